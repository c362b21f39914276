/**
 * The app chart: everything that runs an app (ServiceAccount, a Deployment per process, the web
 * Service, an Ingress per domain, CronJobs). Its config and registry credentials are separate
 * releases (charts/config, charts/pull-secret) that its pods reference by name.
 */
import { defineChart } from '../define.ts';
import { renderApp } from './render.ts';
import { type AppChartValues, appValues } from './values.ts';

export { type PortMap, parsePortMap } from '../../rules/port-maps.ts';
export { CRON_COMMAND_ANNOTATION, CRON_ID_LABEL, cronIdLabel, cronJobName } from './cronjob.ts';
export { deploymentName } from './deployment.ts';
export { ingressNames } from './ingress.ts';
export { CONFIG_DIGEST_ANNOTATION, RESTARTED_AT_ANNOTATION } from './pod.ts';
export { primaryPortMap } from './ports.ts';
export {
  type DeployTaskKind,
  RELEASE_CONTAINER,
  RELEASE_JOB_VALUE,
  RELEASE_REVISION_ANNOTATION,
  type ReleaseJobOptions,
  releaseJob,
  releaseJobName,
} from './release-job.ts';
export {
  RUN_APP_LABEL,
  RUN_CONTAINER,
  RUN_JOB_ID_ANNOTATION,
  RUN_JOB_LABEL,
  RUN_JOB_VALUE,
  RUN_PROCESS_ANNOTATION,
  type RunJobOptions,
  type RunJobOwner,
  runEnvSecret,
  runJob,
  runLabels,
} from './run-job.ts';
export { webServiceName } from './service.ts';
export { ShellWordsError, splitShellWords } from './shell-words.ts';
export {
  type AppChartValues,
  appValues,
  type CronTaskValues,
  type MountValues,
  type ProcessValues,
} from './values.ts';

export const appChart = defineChart<AppChartValues>({
  name: 'app',
  version: '1.0.0',
  values: appValues,
  build: renderApp,
});

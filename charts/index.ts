/**
 * Charts: pure functions from validated values to Kubernetes objects. They import nothing from
 * src/ (only zod, node:crypto and the shared validation rules of rules/), read no cluster and no
 * clock.
 */
export {
  type AppChartValues,
  appChart,
  appValues,
  CONFIG_DIGEST_ANNOTATION,
  CRON_COMMAND_ANNOTATION,
  CRON_ID_LABEL,
  type CronTaskValues,
  cronIdLabel,
  cronJobName,
  type DeployTaskKind,
  deploymentName,
  ingressNames,
  type MountValues,
  type PortMap,
  type ProcessValues,
  parsePortMap,
  primaryPortMap,
  RELEASE_CONTAINER,
  RELEASE_JOB_VALUE,
  RELEASE_REVISION_ANNOTATION,
  RESTARTED_AT_ANNOTATION,
  type ReleaseJobOptions,
  RUN_APP_LABEL,
  RUN_CONTAINER,
  RUN_JOB_ID_ANNOTATION,
  RUN_JOB_LABEL,
  RUN_JOB_VALUE,
  RUN_PROCESS_ANNOTATION,
  type RunJobOptions,
  type RunJobOwner,
  releaseJob,
  releaseJobName,
  runEnvSecret,
  runJob,
  runLabels,
  ShellWordsError,
  splitShellWords,
  webServiceName,
} from './app/index.ts';
export {
  type AutoscalingAuthChartValues,
  autoscalingAuthChart,
  autoscalingAuthValues,
  triggerAuthSecretName,
} from './autoscaling-auth/index.ts';
export {
  type ConfigChartValues,
  configChart,
  configSecretName,
  configValues,
  SECRET_MAX_BYTES,
} from './config/index.ts';
export { defineChart } from './define.ts';
export { ChartValuesError, type ChartValuesIssue } from './errors.ts';
export {
  appLabels,
  LABEL_INSTANCE,
  LABEL_MANAGED_BY,
  LABEL_NAME,
  LABEL_PART_OF,
  MANAGED_BY,
  processLabels,
  processSelector,
} from './labels.ts';
export {
  CRONJOB_NAME_MAX,
  DNS_LABEL_MAX,
  domainSlug,
  fitName,
  INGRESS_NAME_MAX,
  ingressName,
  LABEL_VALUE_MAX,
  processObjectName,
  runEnvSecretName,
  runJobName,
  shortHash,
  storageObjectName,
} from './names.ts';
export {
  type PullSecretChartValues,
  pullSecretChart,
  pullSecretName,
  pullSecretValues,
} from './pull-secret/index.ts';
export {
  ACCESS_MODES,
  type StorageChartValues,
  storageChart,
  storageLabels,
  storageValues,
} from './storage/index.ts';
export type { Chart, RenderedObject } from './types.ts';

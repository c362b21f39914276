/**
 * Printers of the workload kinds, after kubernetes/kubernetes pkg/printers/internalversion/printers.go:
 * Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, HorizontalPodAutoscaler (v2) and
 * PodDisruptionBudget. Wide columns show the template's containers, images and selector.
 */
import { humanDuration, since } from './age.ts';
import {
  boolPtr,
  containerCells,
  formatLabelSelector,
  formatLabels,
  int,
  intOrString,
  list,
  selectorString,
  str,
} from './format.ts';
import { AGE_COLUMN, column, NAME_COLUMN, type Obj, type Printer } from './table.ts';

const CONTAINERS = column('Containers', 'string', 'Names of each container in the template.', { wide: true });
const IMAGES = column('Images', 'string', 'Images referenced by each container in the template.', {
  wide: true,
});
const selectorColumn = (description: string) => column('Selector', 'string', description, { wide: true });
const name = (o: Obj) => str(o.metadata?.name);
const age = (o: Obj, now: number) => since(o.metadata?.creationTimestamp, now);
/** Unset replicas default to 1 in every workload kind. */
const replicas = (o: Obj) => (typeof o.spec?.replicas === 'number' ? o.spec.replicas : 1);

export const deploymentPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Number of the pod with ready state'),
    column(
      'Up-to-date',
      'string',
      'Total number of non-terminating pods targeted by this deployment that have the desired template spec.',
    ),
    column(
      'Available',
      'string',
      'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.',
    ),
    AGE_COLUMN,
    CONTAINERS,
    IMAGES,
    selectorColumn(
      'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
    ),
  ],
  cells: (d, now) => [
    name(d),
    `${int(d.status?.readyReplicas)}/${replicas(d)}`,
    int(d.status?.updatedReplicas),
    int(d.status?.availableReplicas),
    age(d, now),
    ...containerCells(d.spec?.template?.spec),
    selectorString(d.spec?.selector),
  ],
};

export const replicaSetPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', 'Replicas is the number of desired pods.'),
    column('Current', 'integer', 'Replicas is the most recently observed number of non-terminating pods.'),
    column(
      'Ready',
      'integer',
      'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.',
    ),
    AGE_COLUMN,
    CONTAINERS,
    IMAGES,
    selectorColumn('Selector is a label query over pods that should match the replica count.'),
  ],
  cells: (rs, now) => [
    name(rs),
    replicas(rs),
    int(rs.status?.replicas),
    int(rs.status?.readyReplicas),
    age(rs, now),
    ...containerCells(rs.spec?.template?.spec),
    formatLabelSelector(rs.spec?.selector),
  ],
};

export const statefulSetPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Number of the pod with ready state'),
    AGE_COLUMN,
    CONTAINERS,
    IMAGES,
  ],
  cells: (s, now) => [
    name(s),
    `${int(s.status?.readyReplicas)}/${replicas(s)}`,
    age(s, now),
    ...containerCells(s.spec?.template?.spec),
  ],
};

export const daemonSetPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
    column(
      'Current',
      'integer',
      'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.',
    ),
    column(
      'Ready',
      'integer',
      'numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
    ),
    column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    column(
      'Available',
      'integer',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
    ),
    column(
      'Node Selector',
      'string',
      "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node.",
    ),
    AGE_COLUMN,
    CONTAINERS,
    IMAGES,
    selectorColumn('A label query over pods that are managed by the daemon set.'),
  ],
  cells: (ds, now) => [
    name(ds),
    int(ds.status?.desiredNumberScheduled),
    int(ds.status?.currentNumberScheduled),
    int(ds.status?.numberReady),
    int(ds.status?.updatedNumberScheduled),
    int(ds.status?.numberAvailable),
    formatLabels(ds.spec?.template?.spec?.nodeSelector),
    age(ds, now),
    ...containerCells(ds.spec?.template?.spec),
    formatLabelSelector(ds.spec?.selector),
  ],
};

const hasCondition = (o: Obj, type: string) =>
  list(o.status?.conditions).some((c) => c.type === type && c.status === 'True');

/** printJob's STATUS: finished conditions first, then deletion, suspension and the interim ones. */
function jobStatus(job: Obj): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (typeof job.metadata?.deletionTimestamp === 'string') return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(job, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function jobCompletions(job: Obj): string {
  const succeeded = int(job.status?.succeeded);
  if (typeof job.spec?.completions === 'number') return `${succeeded}/${job.spec.completions}`;
  const parallelism = int(job.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: Obj, now: number): string {
  const start = Date.parse(str(job.status?.startTime));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(str(job.status?.completionTime));
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

export const jobPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'Status of the job.'),
    column(
      'Completions',
      'string',
      'The number of successfully completed pods and how many successful pods are desired.',
    ),
    column('Duration', 'string', 'Time required to complete the job.'),
    AGE_COLUMN,
    CONTAINERS,
    IMAGES,
    selectorColumn(
      'A label query over pods that should match the pod count. Normally, the system sets this field for you.',
    ),
  ],
  cells: (job, now) => [
    name(job),
    jobStatus(job),
    jobCompletions(job),
    jobDuration(job, now),
    age(job, now),
    ...containerCells(job.spec?.template?.spec),
    formatLabelSelector(job.spec?.selector),
  ],
};

export const cronJobPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    column(
      'Timezone',
      'string',
      'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.',
    ),
    column(
      'Suspend',
      'boolean',
      'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.',
    ),
    column('Active', 'integer', 'A list of pointers to currently running jobs.'),
    column(
      'Last Schedule',
      'string',
      'Information when was the last time the job was successfully scheduled.',
    ),
    AGE_COLUMN,
    CONTAINERS,
    IMAGES,
    selectorColumn(
      'A label query over pods that should match the pod count. Normally, the system sets this field for you.',
    ),
  ],
  cells: (cj, now) => [
    name(cj),
    str(cj.spec?.schedule),
    str(cj.spec?.timeZone) || '<none>',
    boolPtr(cj.spec?.suspend),
    list(cj.status?.active).length,
    typeof cj.status?.lastScheduleTime === 'string' ? since(cj.status.lastScheduleTime, now) : '<none>',
    age(cj, now),
    ...containerCells(cj.spec?.jobTemplate?.spec?.template?.spec),
    formatLabelSelector(cj.spec?.jobTemplate?.spec?.selector),
  ],
};

/** A metric target or current value: `50%` for utilization, the quantity otherwise. */
function metricValue(v: Obj, kind: 'target' | 'current'): string | undefined {
  if (!v) return undefined;
  if (typeof v.averageUtilization === 'number') return `${v.averageUtilization}%`;
  if (v.averageValue !== undefined)
    return kind === 'target' ? `${intOrString(v.averageValue)}` : intOrString(v.averageValue);
  if (v.value !== undefined) return intOrString(v.value);
  return undefined;
}

/** formatHPAMetrics: `cpu: 40%/80%` per metric, `<unknown>` before the first measurement, max three. */
function hpaTargets(hpa: Obj): string {
  const specs = list(hpa.spec?.metrics);
  if (specs.length === 0) return '<none>';
  const current = list(hpa.status?.currentMetrics);
  const shown = specs.map((m, i) => {
    const source =
      m.type === 'Resource'
        ? 'resource'
        : m.type === 'ContainerResource'
          ? 'containerResource'
          : m.type === 'Pods'
            ? 'pods'
            : m.type === 'Object'
              ? 'object'
              : 'external';
    const spec = m[source] ?? {};
    const status =
      current.find(
        (c) =>
          c.type === m.type &&
          (c[source]?.name ?? c[source]?.metric?.name) === (spec.name ?? spec.metric?.name),
      ) ?? current[i];
    const target = metricValue(spec.target, 'target') ?? '<unknown>';
    const now = metricValue(status?.[source]?.current, 'current') ?? '<unknown>';
    const avg =
      (m.type === 'External' || m.type === 'Object') && spec.target?.averageValue !== undefined
        ? ' (avg)'
        : '';
    const value = `${now}/${target}${avg}`;
    return m.type === 'Resource' || m.type === 'ContainerResource' ? `${str(spec.name)}: ${value}` : value;
  });
  return shown.length > 3
    ? `${shown.slice(0, 3).join(', ')} + ${shown.length - 3} more...`
    : shown.join(', ');
}

export const hpaPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column(
      'Reference',
      'string',
      'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.',
    ),
    column('Targets', 'string', 'the target value of the metric for autoscaling'),
    column(
      'MinPods',
      'string',
      'lower limit for the number of pods that can be set by the autoscaler, default 1.',
    ),
    column(
      'MaxPods',
      'integer',
      'upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.',
    ),
    column('Replicas', 'integer', 'current number of replicas of pods managed by this autoscaler.'),
    AGE_COLUMN,
  ],
  cells: (hpa, now) => [
    name(hpa),
    `${str(hpa.spec?.scaleTargetRef?.kind)}/${str(hpa.spec?.scaleTargetRef?.name)}`,
    hpaTargets(hpa),
    typeof hpa.spec?.minReplicas === 'number' ? String(hpa.spec.minReplicas) : '<unset>',
    int(hpa.spec?.maxReplicas),
    int(hpa.status?.currentReplicas),
    age(hpa, now),
  ],
};

export const pdbPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    AGE_COLUMN,
  ],
  cells: (pdb, now) => [
    name(pdb),
    pdb.spec?.minAvailable !== undefined ? intOrString(pdb.spec.minAvailable) : 'N/A',
    pdb.spec?.maxUnavailable !== undefined ? intOrString(pdb.spec.maxUnavailable) : 'N/A',
    int(pdb.status?.disruptionsAllowed),
    age(pdb, now),
  ],
};

/**
 * printControllerRevision: the controlling owner as `kind.group/name` (formatResourceName with the
 * kind, lower-cased), `<none>` without one, and the revision number.
 */
export const controllerRevisionPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Controller', 'string', 'Controller of the object'),
    column('Revision', 'integer', 'Revision indicates the revision of the state represented by Data.'),
    AGE_COLUMN,
  ],
  cells: (rev, now) => {
    const owners = (rev.metadata?.ownerReferences ?? []) as {
      apiVersion?: string;
      kind?: string;
      name?: string;
      controller?: boolean;
    }[];
    const owner = owners.find((o) => o.controller === true);
    const group = owner?.apiVersion?.includes('/') ? owner.apiVersion.split('/')[0] : '';
    const controller = owner
      ? `${String(owner.kind ?? '').toLowerCase()}${group ? `.${group}` : ''}/${owner.name ?? ''}`
      : '<none>';
    return [name(rev), controller, typeof rev.revision === 'number' ? rev.revision : 0, age(rev, now)];
  },
};

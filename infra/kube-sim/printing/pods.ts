/**
 * The pod printer of kubernetes/kubernetes pkg/printers/internalversion/printers.go (printPod):
 * READY counts ready containers (and started restartable init containers, "sidecars"); STATUS is
 * the phase, overridden by the pod's reason, then by the first unfinished init container
 * (`Init:0/2`, `Init:CrashLoopBackOff`, `Init:ExitCode:1`), then by the last waiting or
 * terminated container (`CrashLoopBackOff`, `ImagePullBackOff`, `Completed`, `Error`), and
 * `Terminating` while a non-terminal pod is being deleted; RESTARTS adds `(5m ago)`.
 */
import { since } from './age.ts';
import { int, list, str } from './format.ts';
import {
  AGE_COLUMN,
  type Cell,
  column,
  NAME_COLUMN,
  type Obj,
  type Printer,
  type RowCondition,
} from './table.ts';

const NODE_UNREACHABLE_REASON = 'NodeLost';

export const podColumns = [
  NAME_COLUMN,
  column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
  column('Status', 'string', 'The aggregate status of the containers in this pod.'),
  column(
    'Restarts',
    'string',
    'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
  ),
  AGE_COLUMN,
  column(
    'IP',
    'string',
    'podIP is the IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
    { wide: true },
  ),
  column('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', { wide: true }),
  column(
    'Nominated Node',
    'string',
    'nominatedNodeName is set when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
    { wide: true },
  ),
  column(
    'Readiness Gates',
    'string',
    'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
    { wide: true },
  ),
];

const conditionTrue = (pod: Obj, type: string) =>
  list(pod.status?.conditions).some((c) => c.type === type && c.status === 'True');

/** The later of a running latest and a container's last termination. */
function laterRestart(latest: number, status: Obj): number {
  const finished = status.lastState?.terminated?.finishedAt;
  const at = typeof finished === 'string' ? Date.parse(finished) : Number.NaN;
  return Number.isNaN(at) ? latest : Math.max(latest, at);
}

function podCells(pod: Obj, now: number): Cell[] {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  let restarts = 0;
  let sidecarRestarts = 0;
  let totalContainers = list(spec.containers).length;
  let readyContainers = 0;
  let lastRestart = 0;
  let lastSidecarRestart = 0;
  let reason = str(status.reason) || str(status.phase);

  if (list(status.conditions).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) {
    reason = 'SchedulingGated';
  }
  // Restartable init containers (sidecars) run beside the main containers and count as theirs.
  const sidecars = new Set<string>();
  for (const c of list(spec.initContainers)) {
    if (c.restartPolicy === 'Always') {
      sidecars.add(str(c.name));
      totalContainers++;
    }
  }

  let initializing = false;
  const initStatuses = list(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    restarts += int(cs.restartCount);
    lastRestart = laterRestart(lastRestart, cs);
    const sidecar = sidecars.has(str(cs.name));
    if (sidecar) {
      sidecarRestarts += int(cs.restartCount);
      lastSidecarRestart = laterRestart(lastSidecarRestart, cs);
    }
    const terminated = cs.state?.terminated;
    const waiting = cs.state?.waiting;
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (sidecar && cs.started === true) {
      if (cs.ready === true) readyContainers++;
      continue;
    }
    if (terminated) {
      if (str(terminated.reason) === '') {
        reason =
          int(terminated.signal) !== 0
            ? `Init:Signal:${int(terminated.signal)}`
            : `Init:ExitCode:${int(terminated.exitCode)}`;
      } else reason = `Init:${terminated.reason}`;
    } else if (waiting && str(waiting.reason) !== '' && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${list(spec.initContainers).length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(pod, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = list(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += int(cs.restartCount);
      lastRestart = laterRestart(lastRestart, cs);
      const waiting = cs.state?.waiting;
      const terminated = cs.state?.terminated;
      if (waiting && str(waiting.reason) !== '') reason = waiting.reason;
      else if (terminated && str(terminated.reason) !== '') reason = terminated.reason;
      else if (terminated) {
        reason =
          int(terminated.signal) !== 0
            ? `Signal:${int(terminated.signal)}`
            : `ExitCode:${int(terminated.exitCode)}`;
      } else if (cs.ready === true && cs.state?.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A container that ran to completion beside running ones: the pod is still up.
    if (reason === 'Completed' && hasRunning) reason = conditionTrue(pod, 'Ready') ? 'Running' : 'NotReady';
  }

  const deleting = typeof pod.metadata?.deletionTimestamp === 'string';
  if (deleting && status.reason === NODE_UNREACHABLE_REASON) reason = 'Unknown';
  else if (deleting && status.phase !== 'Succeeded' && status.phase !== 'Failed') reason = 'Terminating';

  const restartsCell =
    restarts !== 0 && lastRestart !== 0
      ? `${restarts} (${since(new Date(lastRestart).toISOString(), now)} ago)`
      : String(restarts);

  const podIPs = list(status.podIPs);
  const ip = podIPs.length > 0 ? str(podIPs[0].ip) : str(status.podIP);
  const gates = list(spec.readinessGates);
  const gatesCell =
    gates.length > 0
      ? `${gates.filter((g) => conditionTrue(pod, str(g.conditionType))).length}/${gates.length}`
      : '<none>';
  return [
    str(pod.metadata?.name),
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsCell,
    since(pod.metadata?.creationTimestamp, now),
    ip || '<none>',
    str(spec.nodeName) || '<none>',
    str(status.nominatedNodeName) || '<none>',
    gatesCell,
  ];
}

/** A finished pod's row says so: kubectl's printer may leave such rows out. */
function podConditions(pod: Obj): RowCondition[] | undefined {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded')
    return [
      {
        type: 'Completed',
        status: 'True',
        reason: 'Succeeded',
        message: 'The pod has completed successfully.',
      },
    ];
  if (phase === 'Failed')
    return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return undefined;
}

export const podPrinter: Printer = { columns: podColumns, cells: podCells, conditions: podConditions };

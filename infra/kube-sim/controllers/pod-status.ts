/**
 * The Pod status a kubelet reports (kubelet_pods.go generateAPIPodStatus, getPhase, and
 * pkg/kubelet/status/generate.go for the conditions), from what each container is doing.
 * Conditions come in the kubelet's order — PodReadyToStartContainers, Initialized, Ready,
 * ContainersReady, PodScheduled — and keep their lastTransitionTime while their status stays.
 */
import { timestamp } from '../api/metadata.ts';
import { imageID, newContainerID, normalizedImage } from './container-runtime.ts';
import type {
  ConditionStatus,
  Container,
  ContainerStatus,
  Pod,
  PodCondition,
  PodStatus,
} from './workload-types.ts';

/** A container instance as the runtime knows it (status times are RFC 3339 seconds). */
export interface InstanceInfo {
  containerID: string;
  startedAt: string;
}

/** An instance that exited: state.terminated, or lastState.terminated once it was restarted. */
export interface TerminatedInfo {
  exitCode: number;
  reason: string;
  startedAt: string;
  finishedAt: string;
  containerID: string;
}

/**
 * What a container is doing, as the simulated runtime decided. `restartCount` and
 * `lastTerminated` are the runtime's when it has them; left out, the Pod's status keeps its own.
 */
export type ContainerTarget =
  | {
      kind: 'waiting';
      reason: string;
      message?: string;
      restartCount?: number;
      lastTerminated?: TerminatedInfo;
    }
  | { kind: 'running'; instance?: InstanceInfo; restartCount?: number; lastTerminated?: TerminatedInfo }
  | {
      kind: 'terminated';
      exitCode: number;
      reason: string;
      instance?: InstanceInfo;
      finishedAt?: string;
      restartCount?: number;
      lastTerminated?: TerminatedInfo;
    };

export interface PodTarget {
  /** The sandbox exists (volumes mounted, network set up): PodReadyToStartContainers, podIP. */
  sandboxReady: boolean;
  podIP?: string;
  hostIP: string;
  init: ContainerTarget[];
  containers: ContainerTarget[];
}

/** A restartable init container (a sidecar) runs alongside the regular ones. */
export const isSidecar = (c: Container): boolean => c.restartPolicy === 'Always';

function containerStatus(
  container: Container,
  target: ContainerTarget,
  previous: ContainerStatus | undefined,
  now: string,
): ContainerStatus {
  const image = container.image ?? '';
  const last = target.lastTerminated;
  const base = {
    name: container.name,
    lastState: last ? { terminated: last } : (previous?.lastState ?? {}),
    restartCount: target.restartCount ?? previous?.restartCount ?? 0,
  };
  const runtimeOf = (containerID: string) => ({
    image: normalizedImage(image),
    imageID: imageID(image),
    containerID,
  });
  if (target.kind === 'waiting') {
    const waiting = {
      waiting: {
        reason: target.reason,
        ...(target.message !== undefined ? { message: target.message } : {}),
      },
    };
    // Between restarts the status still names the container that exited (CrashLoopBackOff).
    if (last)
      return { ...base, state: waiting, ready: false, ...runtimeOf(last.containerID), started: false };
    return { ...base, state: waiting, ready: false, image, imageID: '', started: false };
  }
  // The container keeps its identity and start time across status updates.
  const containerID = target.instance?.containerID ?? previous?.containerID ?? newContainerID();
  const startedAt =
    target.instance?.startedAt ??
    previous?.state?.running?.startedAt ??
    previous?.state?.terminated?.startedAt ??
    now;
  if (target.kind === 'running') {
    return {
      ...base,
      state: { running: { startedAt } },
      ready: true,
      ...runtimeOf(containerID),
      started: true,
    };
  }
  const finishedAt = target.finishedAt ?? previous?.state?.terminated?.finishedAt ?? now;
  return {
    ...base,
    state: {
      terminated: { exitCode: target.exitCode, reason: target.reason, startedAt, finishedAt, containerID },
    },
    ready: false,
    ...runtimeOf(containerID),
    started: false,
  };
}

/**
 * getPhase (kubelet_pods.go): Pending while initializing or while a container waits for its first
 * start; Running while one runs — or, with restartPolicy Always (OnFailure after a failure), while
 * they are all between restarts; otherwise Succeeded or Failed. A container waiting with a last
 * termination (CrashLoopBackOff) counts as stopped. A failed init container fails a Pod that
 * never restarts.
 */
function phaseOf(pod: Pod, init: ContainerStatus[], containers: ContainerStatus[]): string {
  const policy = pod.spec.restartPolicy ?? 'Always';
  let pendingInitialization = 0;
  let failedInitialization = 0;
  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  (pod.spec.initContainers ?? []).forEach((c, i) => {
    const status = init[i];
    const state = status?.state;
    if (isSidecar(c)) {
      if (!state) {
        unknown++;
        pendingInitialization++;
      } else if (state.running) {
        if (!status.started) pendingInitialization++;
        running++;
      } else if (state.waiting && !status.lastState?.terminated) {
        pendingInitialization++;
        waiting++;
      }
      return;
    }
    if (!state || state.running) pendingInitialization++;
    else if (state.terminated) {
      if (state.terminated.exitCode !== 0) failedInitialization++;
    } else if (state.waiting) {
      const last = status.lastState?.terminated;
      if (!last) pendingInitialization++;
      else if (last.exitCode !== 0) failedInitialization++;
    } else pendingInitialization++;
  });
  for (const status of containers) {
    const state = status.state;
    if (state?.running) running++;
    else if (state?.terminated) {
      stopped++;
      if (state.terminated.exitCode === 0) succeeded++;
    } else if (state?.waiting) {
      if (status.lastState?.terminated) stopped++;
      else waiting++;
    } else unknown++;
  }
  if (failedInitialization > 0 && policy === 'Never') return 'Failed';
  const anyRegularStarted = containers.some(
    (s) => s.state?.running || s.state?.terminated || s.lastState?.terminated,
  );
  if ((pendingInitialization > 0 && !anyRegularStarted) || waiting > 0) return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

function condition(type: string, status: ConditionStatus, reason?: string, message?: string): PodCondition {
  return {
    type,
    status,
    lastProbeTime: null,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/** `containers with unready status: [a b]`: Go's %s of a []string. */
const goList = (names: string[]): string => `[${names.join(' ')}]`;

function readiness(type: 'Ready' | 'ContainersReady', phase: string, unready: string[]): PodCondition {
  // generateContainersReadyConditionForTerminalPhase / generatePodReadyConditionForTerminalPhase.
  if (phase === 'Succeeded') return condition(type, 'False', 'PodCompleted');
  if (phase === 'Failed') return condition(type, 'False', 'PodFailed');
  if (unready.length > 0)
    return condition(
      type,
      'False',
      'ContainersNotReady',
      `containers with unready status: ${goList(unready)}`,
    );
  return condition(type, 'True');
}

function conditionsOf(
  pod: Pod,
  target: PodTarget,
  phase: string,
  init: ContainerStatus[],
  containers: ContainerStatus[],
): PodCondition[] {
  const initContainers = pod.spec.initContainers ?? [];
  const incomplete = initContainers
    .filter((c, i) => (isSidecar(c) ? !init[i]?.started : init[i]?.state?.terminated?.exitCode !== 0))
    .map((c) => c.name);
  const anyStarted = containers.some((c) => c.started);
  let initialized: PodCondition;
  if (phase === 'Succeeded') initialized = condition('Initialized', 'True', 'PodCompleted');
  else if (anyStarted || incomplete.length === 0) initialized = condition('Initialized', 'True');
  else
    initialized = condition(
      'Initialized',
      'False',
      'ContainersNotInitialized',
      `containers with incomplete status: ${goList(incomplete)}`,
    );
  const unready = [
    ...initContainers.filter((c, i) => isSidecar(c) && !init[i]?.ready).map((c) => c.name),
    ...pod.spec.containers.filter((_, i) => !containers[i]?.ready).map((c) => c.name),
  ];
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  return [
    condition('PodReadyToStartContainers', target.sandboxReady && !terminal ? 'True' : 'False'),
    initialized,
    readiness('Ready', phase, unready),
    readiness('ContainersReady', phase, unready),
    condition('PodScheduled', 'True'),
  ];
}

/** GetPodQOS: Guaranteed (limits = requests for cpu and memory everywhere), BestEffort, Burstable. */
export function qosClass(pod: Pod): string {
  const all = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  const resourcesOf = (c: Container) => ({
    requests: c.resources?.requests ?? {},
    limits: c.resources?.limits ?? {},
  });
  const relevant = (m: Record<string, string>) => Object.keys(m).filter((k) => k === 'cpu' || k === 'memory');
  if (
    all.every(
      (c) => relevant(resourcesOf(c).requests).length === 0 && relevant(resourcesOf(c).limits).length === 0,
    )
  )
    return 'BestEffort';
  const guaranteed = all.every((c) => {
    const { requests, limits } = resourcesOf(c);
    return ['cpu', 'memory'].every(
      (r) => limits[r] !== undefined && (requests[r] ?? limits[r]) === limits[r],
    );
  });
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** The status to write for `target`, carrying over what stays (times, IDs, IPs) from the Pod's. */
export function buildPodStatus(pod: Pod, target: PodTarget, now: Date): PodStatus {
  const previous = pod.status ?? {};
  const t = timestamp(now);
  const prevInit = new Map((previous.initContainerStatuses ?? []).map((s) => [s.name, s]));
  const prevContainers = new Map((previous.containerStatuses ?? []).map((s) => [s.name, s]));
  const init = (pod.spec.initContainers ?? []).map((c, i) =>
    containerStatus(
      c,
      target.init[i] ?? { kind: 'waiting', reason: 'PodInitializing' },
      prevInit.get(c.name),
      t,
    ),
  );
  const containers = pod.spec.containers.map((c, i) =>
    containerStatus(
      c,
      target.containers[i] ?? { kind: 'waiting', reason: 'ContainerCreating' },
      prevContainers.get(c.name),
      t,
    ),
  );
  const phase = phaseOf(pod, init, containers);
  const prevConditions = new Map((previous.conditions ?? []).map((c) => [c.type, c]));
  const conditions = conditionsOf(pod, target, phase, init, containers).map((c) => {
    const before = prevConditions.get(c.type);
    // The status manager keeps lastTransitionTime while a condition's status stays.
    return {
      ...c,
      lastTransitionTime: before && before.status === c.status ? before.lastTransitionTime! : t,
    };
  });
  const podIP = target.podIP;
  return {
    ...previous,
    phase,
    conditions,
    hostIP: target.hostIP,
    hostIPs: [{ ip: target.hostIP }],
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
    startTime: previous.startTime ?? t,
    ...(init.length > 0 ? { initContainerStatuses: init } : {}),
    containerStatuses: containers,
    qosClass: previous.qosClass ?? qosClass(pod),
  };
}

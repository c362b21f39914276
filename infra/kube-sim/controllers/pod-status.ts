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

/** What a container is doing, as the simulated runtime decided. */
export type ContainerTarget =
  | { kind: 'waiting'; reason: string; message?: string }
  | { kind: 'running' }
  | { kind: 'terminated'; exitCode: number; reason: string };

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
  const base = { name: container.name, lastState: {}, restartCount: previous?.restartCount ?? 0 };
  if (target.kind === 'waiting') {
    return {
      ...base,
      state: {
        waiting: {
          reason: target.reason,
          ...(target.message !== undefined ? { message: target.message } : {}),
        },
      },
      ready: false,
      image,
      imageID: '',
      started: false,
    };
  }
  // The container keeps its identity and start time across status updates.
  const containerID = previous?.containerID ?? newContainerID();
  const startedAt = previous?.state?.running?.startedAt ?? previous?.state?.terminated?.startedAt ?? now;
  const runtime = { image: normalizedImage(image), imageID: imageID(image), containerID };
  if (target.kind === 'running') {
    return { ...base, state: { running: { startedAt } }, ready: true, ...runtime, started: true };
  }
  const finishedAt = previous?.state?.terminated?.finishedAt ?? now;
  return {
    ...base,
    state: {
      terminated: { exitCode: target.exitCode, reason: target.reason, startedAt, finishedAt, containerID },
    },
    ready: false,
    ...runtime,
    started: false,
  };
}

/** getPhase: Pending while initializing or any container waits; then Running; then the outcome. */
function phaseOf(pod: Pod, init: ContainerStatus[], containers: ContainerStatus[]): string {
  const initContainers = pod.spec.initContainers ?? [];
  const initPending = initContainers.some((c, i) => {
    const state = init[i]?.state;
    return isSidecar(c) ? !state?.running : state?.terminated?.exitCode !== 0;
  });
  if (initPending) return 'Pending';
  if (containers.some((c) => c.state?.waiting)) return 'Pending';
  if (containers.some((c) => c.state?.running)) return 'Running';
  const exitCodes = containers.map((c) => c.state?.terminated?.exitCode ?? 0);
  return exitCodes.every((code) => code === 0) ? 'Succeeded' : 'Failed';
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

/**
 * The scheduler and the kubelet of a one-node cluster:
 * - new Pods are bound to `kube-sim-node` (pods/binding: spec.nodeName, PodScheduled), then the
 *   kubelet reports them Pending/ContainerCreating with startTime and hostIP;
 * - after `settings.podReadyDelayMs` their containers start: Running and Ready — unless one of the
 *   kubelet's start failures applies (pod-start-checks.ts): a Secret/ConfigMap volume that cannot be
 *   mounted (ContainerCreating), an unpullable image or a missing imagePullSecret
 *   (ErrImagePull, then ImagePullBackOff `Back-off pulling image "x"`), a missing Secret/ConfigMap
 *   or key in envFrom/env (CreateContainerConfigError, `secret "x" not found`);
 * - a blocked Pod is looked at again when a Secret or ConfigMap in its namespace is added or
 *   changed, and every RECHECK_MS (images become pullable when the settings change); containers
 *   already running are never stopped by such a check, as on a real node;
 * - a started container runs its command in the node runtime (runtime/, docs/kube-sim.md
 *   "Container runtime model"): its environment resolved from the store at start
 *   (container-env.ts), its output the container's log. When the process exits, the restart
 *   policy decides (the container's own for sidecars; init containers restart only after a
 *   failure): not restarted → terminated with its exit code (Completed for 0, Error otherwise), and
 *   the Pod Succeeded or Failed once all are; restarted → at once the first time, then after the
 *   crash-loop back-off (`settings.restartBackOffMs` doubling to `restartBackOffMaxMs`;
 *   CrashLoopBackOff `back-off 10s restarting failed container=c pod=p_ns(uid)` meanwhile, not
 *   ready), with restartCount and lastState.terminated;
 * - a command kube-sim cannot run is a server: it runs until stopped — in a Job Pod (restartPolicy
 *   Never or OnFailure) it exits after `settings.jobRunMs`, 0, or 1 for images in
 *   `settings.failingJobImages`; in an init container it completes at once.
 * Status goes through `/status`; a Pod being deleted has its processes killed and is left alone.
 */
import { timestamp } from '../api/metadata.ts';
import { typeKey } from '../api/service.ts';
import { goDuration, RestartBackOff } from '../runtime/back-off.ts';
import type { ContainerInstance, NodeRuntime } from '../runtime/node-runtime.ts';
import type { StoreEvent } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import { containerArgv, type EnvLookup, processEnv, resolveContainerEnv } from './container-env.ts';
import { newContainerID } from './container-runtime.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ControllerQueue } from './controller-queue.ts';
import { EventRecorder } from './event-recorder.ts';
import { EventsV1Recorder } from './events-v1-recorder.ts';
import { NODE } from './node-controller.ts';
import { NodeLoad } from './node-load.ts';
import { FIRST_NODE } from './node-objects.ts';
import { imagePullError, podPullSecrets, unmountableVolume } from './pod-start-checks.ts';
import {
  buildPodStatus,
  type ContainerTarget,
  isSidecar,
  type PodTarget,
  type TerminatedInfo,
} from './pod-status.ts';
import { missingPullSecretsMessage } from './pull-credentials.ts';
import { bindPod } from './registry-writes.ts';
import { hostIPOf, schedulePod } from './scheduler.ts';
import { imageMatches } from './settings.ts';
import { SimClient } from './sim-client.ts';
import {
  CONFIG_MAP,
  type Container,
  type ContainerStatus,
  objectKeyOf,
  POD,
  type Pod,
  SECRET,
  SERVICE,
  splitKey,
} from './workload-types.ts';

export const NODE_NAME = FIRST_NODE;
/** The first node's address (kind's first node has this one), for a Pod whose Node is gone. */
const HOST_IP = '172.18.0.2';
/** How often blocked Pods are looked at again (the kubelet's image back-off is 10 s to 5 min). */
const RECHECK_MS = 250;
/**
 * An unschedulable Pod is tried again when a Node changes, and otherwise after this long: the
 * scheduler's podMaxInUnschedulablePodsDuration (pkg/scheduler/backend/queue), so an unplaceable
 * Pod does not rewrite its FailedScheduling event in a loop.
 */
const UNSCHEDULABLE_RETRY_MS = 5 * 60_000;

const POD_KEY = typeKey(POD);
const NODE_KEY = typeKey(NODE);
const SECRET_KEY = typeKey(SECRET);
const CONFIG_MAP_KEY = typeKey(CONFIG_MAP);
const SERVICE_KEY = typeKey(SERVICE);

/** What a container is to the kubelet: its restart rules differ. */
type Role = 'init' | 'sidecar' | 'regular';

const terminatedInfo = (instance: ContainerInstance): TerminatedInfo => {
  const exitCode = instance.exit?.exitCode ?? 0;
  return {
    exitCode,
    reason: exitCode === 0 ? 'Completed' : 'Error',
    startedAt: timestamp(instance.startedAt),
    finishedAt: timestamp(instance.exit?.finishedAt),
    containerID: instance.containerID,
  };
};

export class PodLifecycleController implements SimController {
  private readonly queue: ControllerQueue;
  private readonly unsubscribe: () => void;
  /** Pod uid → when its containers may start (bound + podReadyDelayMs). */
  private readonly startAt = new Map<string, number>();
  /** Keys of Pods with containers that cannot start yet. */
  private readonly blocked = new Set<string>();
  /** Keys of Pods the scheduler could not place: looked at again when a Node changes. */
  private readonly unschedulable = new Set<string>();
  private recheck: NodeJS.Timeout | undefined;
  private nextIp = 0;
  private readonly lookup: EnvLookup;
  private readonly nodeLoad: NodeLoad;
  private readonly backOff: RestartBackOff;
  /**
   * The default scheduler's events (Scheduled, FailedScheduling), recorded through
   * events.k8s.io/v1 as kube-scheduler does, and the kubelet's (core/v1, its legacy recorder).
   */
  private readonly schedulerEvents: EventsV1Recorder;
  private readonly kubeletEvents: EventRecorder;
  /** `node image` pairs already pulled, so a second Pod finds its image present. */
  private readonly pulled = new Set<string>();
  /** Uids of Pods being deleted whose containers have had their SIGTERM. */
  private readonly signalled = new Set<string>();

  constructor(
    private readonly deps: ControllerDeps,
    private readonly runtime: NodeRuntime,
  ) {
    this.queue = new ControllerQueue(
      (key) => this.sync(key),
      (key, err) => deps.onError(`pod ${key}`, err),
    );
    this.nodeLoad = new NodeLoad(deps.store);
    this.lookup = {
      secret: (ns, name) => deps.store.get(SECRET_KEY, ns, name),
      configMap: (ns, name) => deps.store.get(CONFIG_MAP_KEY, ns, name),
      services: (ns) => deps.store.list(SERVICE_KEY, ns),
    };
    this.schedulerEvents = new EventsV1Recorder(
      new SimClient(deps.client.service, 'default-scheduler'),
      'default-scheduler',
    );
    this.kubeletEvents = new EventRecorder(deps.client, 'kubelet', (pod) => (pod as Pod).spec.nodeName);
    this.backOff = new RestartBackOff(
      () => deps.settings.restartBackOffMs,
      () => deps.settings.restartBackOffMaxMs,
    );
    // An exited container is looked at again at once (the kubelet's PLEG event).
    runtime.setExitListener((key) => this.queue.add(key));
    // Pod IPs continue after those already handed out (a simulator restored from a snapshot).
    for (const pod of deps.store.list(POD_KEY) as Pod[]) {
      const last = Number((pod.status?.podIP ?? '').split('.').at(-1));
      const third = Number((pod.status?.podIP ?? '').split('.').at(-2));
      if (!Number.isNaN(last) && !Number.isNaN(third))
        this.nextIp = Math.max(this.nextIp, third * 254 + last - 1);
      this.queue.add(objectKeyOf(pod));
    }
    this.unsubscribe = deps.store.subscribe((event) => this.observe(event));
  }

  stop(): void {
    this.unsubscribe();
    this.nodeLoad.stop();
    this.queue.stop();
    if (this.recheck) clearTimeout(this.recheck);
    this.recheck = undefined;
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    const { object } = event;
    if (event.typeKey === POD_KEY) {
      const key = objectKeyOf(object);
      if (event.type === 'DELETED') {
        this.blocked.delete(key);
        this.unschedulable.delete(key);
        this.queue.forget(key);
        this.startAt.delete(object.metadata.uid!);
        if (!this.signalled.delete(object.metadata.uid!)) this.recordKilling(object as Pod);
        this.runtime.removePod(object.metadata.uid!);
        this.backOff.forget(`${object.metadata.uid!}/`);
      } else this.queue.add(key);
    } else if (event.typeKey === NODE_KEY) {
      // A Node added, uncordoned, relabelled or becoming Ready may fit a waiting Pod.
      for (const key of this.unschedulable) this.queue.add(key);
    } else if (
      (event.typeKey === SECRET_KEY || event.typeKey === CONFIG_MAP_KEY) &&
      event.type !== 'DELETED'
    ) {
      // The kubelet's secret and configmap managers watch what its Pods reference.
      for (const key of this.blocked)
        if (splitKey(key).namespace === object.metadata.namespace) this.queue.add(key);
    }
  }

  private scheduleRecheck(): void {
    if (this.recheck || this.blocked.size === 0) return;
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      for (const key of this.blocked) this.queue.add(key);
      this.scheduleRecheck();
    }, RECHECK_MS);
    this.recheck.unref();
  }

  private sync(key: string): void {
    const { namespace, name } = splitKey(key);
    let pod = this.deps.store.get(POD_KEY, namespace, name) as Pod | undefined;
    if (!pod) return;
    if (pod.metadata.deletionTimestamp) {
      this.terminate(key, pod);
      return;
    }
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') {
      this.blocked.delete(key);
      // A terminal Pod runs nothing (a sidecar, a container still running beside a failed init).
      this.runtime.killPod(pod.metadata.uid!, 'SIGTERM');
      return;
    }
    if (!pod.spec.nodeName) {
      // The scheduler leaves gated Pods alone (PodScheduled stays False/SchedulingGated upstream).
      if (pod.spec.schedulingGates?.length) return;
      const placement = schedulePod(this.deps.store, this.nodeLoad, pod);
      if ('unschedulable' in placement) {
        // schedule_one.go handleSchedulingFailure: PodScheduled False/Unschedulable and an event;
        // looked at again with the blocked Pods (a Node may come, or be uncordoned).
        this.writeUnschedulable(pod, placement.unschedulable);
        this.schedulerEvents.eventf(
          pod,
          undefined,
          'Warning',
          'FailedScheduling',
          'Scheduling',
          placement.unschedulable,
        );
        this.unschedulable.add(key);
        this.queue.addLater(key, UNSCHEDULABLE_RETRY_MS);
        return;
      }
      this.unschedulable.delete(key);
      pod = bindPod(this.deps.store, namespace, name, placement.node);
      if (!pod) return;
      this.blocked.delete(key);
      // schedule_one.go finishSchedulingCycle: the message upstream's scheduler records.
      this.schedulerEvents.eventf(
        pod,
        undefined,
        'Normal',
        'Scheduled',
        'Binding',
        `Successfully assigned ${namespace}/${name} to ${placement.node}`,
      );
    }
    const uid = pod.metadata.uid!;
    const now = Date.now();
    if (!pod.status?.startTime) {
      // The kubelet admits the Pod: Pending, containers creating, startTime and hostIP set.
      this.writeStatus(pod, this.target(pod, { sandboxReady: false }));
      this.startAt.set(uid, now + this.deps.settings.podReadyDelayMs);
      this.queue.addLater(key, this.deps.settings.podReadyDelayMs);
      return;
    }
    const startAt = this.startAt.get(uid) ?? now;
    if (now < startAt) {
      this.queue.addLater(key, startAt - now);
      return;
    }
    this.startContainers(key, pod, now);
  }

  /** One kubelet SyncPod: mount, pull, configure and start what can start; see what exited. */
  private startContainers(key: string, pod: Pod, now: number): void {
    const volumeError = unmountableVolume(pod, this.lookup);
    let target: PodTarget;
    if (volumeError) target = this.target(pod, { sandboxReady: false });
    else {
      const podIP = pod.status?.podIP ?? this.allocateIp();
      const init = this.initTargets(key, pod, podIP, now);
      const initDone = init.every((t, i) =>
        isSidecar(pod.spec.initContainers![i]!)
          ? t.kind === 'running'
          : t.kind === 'terminated' && t.exitCode === 0,
      );
      const containers = pod.spec.containers.map((c) =>
        initDone
          ? this.containerTarget(key, pod, c, 'regular', podIP, now)
          : ({ kind: 'waiting', reason: 'PodInitializing' } as const),
      );
      target = { sandboxReady: true, podIP, hostIP: this.hostIP(pod), init, containers };
    }
    this.writeStatus(pod, target);
    if (
      target.containers.some((t) => t.kind === 'waiting') ||
      target.init.some((t) => t.kind === 'waiting')
    ) {
      this.blocked.add(key);
      this.scheduleRecheck();
    } else this.blocked.delete(key);
  }

  private isJobPod(pod: Pod): boolean {
    const policy = pod.spec.restartPolicy ?? 'Always';
    return policy === 'Never' || policy === 'OnFailure';
  }

  /**
   * Init containers run one after another; each must complete (a sidecar: start) before the next
   * starts, and the regular containers wait for all of them.
   */
  private initTargets(key: string, pod: Pod, podIP: string, now: number): ContainerTarget[] {
    const targets: ContainerTarget[] = [];
    let blocked = false;
    for (const c of pod.spec.initContainers ?? []) {
      if (blocked) {
        targets.push({ kind: 'waiting', reason: 'PodInitializing' });
        continue;
      }
      const sidecar = isSidecar(c);
      const t = this.containerTarget(key, pod, c, sidecar ? 'sidecar' : 'init', podIP, now);
      targets.push(t);
      const done = sidecar ? t.kind === 'running' : t.kind === 'terminated' && t.exitCode === 0;
      if (!done) blocked = true;
    }
    return targets;
  }

  /** The restart policy that applies: sidecars always restart; init containers only after a failure. */
  private restartPolicyOf(pod: Pod, role: Role): string {
    if (role === 'sidecar') return 'Always';
    const policy = pod.spec.restartPolicy ?? 'Always';
    if (role === 'init') return policy === 'Never' ? 'Never' : 'OnFailure';
    return policy;
  }

  /**
   * What a container does now: keeps running; has exited (and stays terminated, waits out its
   * back-off, or restarts); or, not started on this node yet, is pulled, configured and started
   * in the kubelet's order.
   */
  private containerTarget(
    key: string,
    pod: Pod,
    container: Container,
    role: Role,
    podIP: string,
    now: number,
  ): ContainerTarget {
    const uid = pod.metadata.uid!;
    const slot = this.runtime.container(uid, container.name);
    const current = slot?.current;
    const lastTerminated = slot?.previous ? terminatedInfo(slot.previous) : undefined;
    if (slot && current && !current.exit)
      return {
        kind: 'running',
        instance: { containerID: current.containerID, startedAt: timestamp(current.startedAt) },
        restartCount: slot.restartCount,
        ...(lastTerminated ? { lastTerminated } : {}),
      };
    if (slot && current?.exit) {
      const done = terminatedInfo(current);
      const policy = this.restartPolicyOf(pod, role);
      const restart = policy === 'Always' || (policy === 'OnFailure' && done.exitCode !== 0);
      if (!restart)
        return {
          kind: 'terminated',
          exitCode: done.exitCode,
          reason: done.reason,
          instance: { containerID: done.containerID, startedAt: done.startedAt },
          finishedAt: done.finishedAt,
          restartCount: slot.restartCount,
          ...(lastTerminated ? { lastTerminated } : {}),
        };
      // kuberuntime_manager.go doBackOff, keyed by the container (its finishedAt starts the wait).
      const backOffKey = `${uid}/${container.name}`;
      const finished = current.exit.finishedAt.getTime();
      if (this.backOff.isInBackOffSince(backOffKey, finished, now)) {
        this.queue.addLater(key, this.backOff.remainingMs(backOffKey, finished, now));
        const { name, namespace } = pod.metadata;
        return {
          kind: 'waiting',
          reason: 'CrashLoopBackOff',
          message: `back-off ${goDuration(this.backOff.get(backOffKey))} restarting failed container=${container.name} pod=${name}_${namespace}(${uid})`,
          restartCount: slot.restartCount,
          lastTerminated: done,
        };
      }
      this.backOff.next(backOffKey, finished, now);
      const started = this.start(key, pod, container, role, podIP, slot.restartCount + 1);
      if (typeof started === 'string')
        return {
          kind: 'waiting',
          reason: 'CreateContainerConfigError',
          message: started,
          restartCount: slot.restartCount,
          lastTerminated: done,
        };
      return {
        kind: 'running',
        instance: { containerID: started.containerID, startedAt: timestamp(started.startedAt) },
        restartCount: slot.restartCount,
        lastTerminated: done,
      };
    }
    // Nothing of this container runs here: first start, or a simulator restarted from its state.
    const status = this.previousStatus(pod, container.name);
    if (status?.state?.terminated) {
      const { exitCode, reason } = status.state.terminated;
      return { kind: 'terminated', exitCode, reason: reason ?? (exitCode === 0 ? 'Completed' : 'Error') };
    }
    const adopted = status?.state?.running;
    if (!adopted && !status?.lastState?.terminated) {
      // getPullSecretsForPod warns about pull Secrets it cannot read, and pulls with the rest.
      const { missing } = podPullSecrets(pod, this.lookup);
      if (missing.length > 0)
        this.kubeletEvents.event(
          pod,
          'Warning',
          'FailedToRetrieveImagePullSecret',
          missingPullSecretsMessage(missing),
        );
      const pullError = imagePullError(pod, container, this.deps.settings, this.lookup);
      if (pullError) {
        // The first failure reports the runtime's error; retries during the back-off report that.
        const waiting = status?.state?.waiting?.reason;
        return waiting === 'ErrImagePull' || waiting === 'ImagePullBackOff'
          ? {
              kind: 'waiting',
              reason: 'ImagePullBackOff',
              message: `Back-off pulling image "${container.image}"`,
            }
          : { kind: 'waiting', reason: 'ErrImagePull', message: pullError };
      }
    }
    const restartCount = status?.restartCount ?? 0;
    const started = this.start(
      key,
      pod,
      container,
      role,
      podIP,
      restartCount,
      adopted && status?.containerID
        ? { containerID: status.containerID, startedAt: new Date(adopted.startedAt ?? now) }
        : undefined,
    );
    if (typeof started === 'string')
      return { kind: 'waiting', reason: 'CreateContainerConfigError', message: started };
    return {
      kind: 'running',
      instance: { containerID: started.containerID, startedAt: timestamp(started.startedAt) },
      restartCount,
    };
  }

  /**
   * Starts an instance of the container with its environment resolved now; the
   * CreateContainerConfigError message when a reference is missing. `adopt` keeps the identity of
   * a container the Pod's status says runs (a simulator restarted from its state file).
   */
  private start(
    key: string,
    pod: Pod,
    container: Container,
    role: Role,
    podIP: string,
    restartCount: number,
    adopt?: { containerID: string; startedAt: Date },
  ): ContainerInstance | string {
    const resolved = resolveContainerEnv(pod, container, this.lookup, podIP);
    if (resolved.error !== undefined) return resolved.error;
    const { settings } = this.deps;
    const unknown =
      role === 'init'
        ? { exitAfterMs: 0, exitCode: 0 }
        : role === 'regular' && this.isJobPod(pod)
          ? {
              exitAfterMs: settings.jobRunMs,
              exitCode: imageMatches(container.image ?? '', settings.failingJobImages) ? 1 : 0,
            }
          : undefined;
    const workingDir = container.workingDir as string | undefined;
    if (!adopt) this.recordStart(pod, container, role);
    return this.runtime.start(pod.metadata.uid!, key, container.name, {
      argv: containerArgv(container, resolved.env),
      env: processEnv(pod, container, resolved.env),
      stdin: container.stdin === true,
      tty: container.tty === true,
      stdinOnce: container.stdinOnce === true,
      hostname: (pod.spec.hostname as string | undefined) ?? pod.metadata.name!,
      ...(workingDir ? { workingDir } : {}),
      ...(unknown ? { unknown } : {}),
      containerID: adopt?.containerID ?? newContainerID(),
      startedAt: adopt?.startedAt ?? new Date(),
      restartCount,
    });
  }

  /**
   * The kubelet's events for a container it starts (kuberuntime_container.go startContainer,
   * images/image_manager.go EnsureImageExists; pkg/kubelet/events): the pull — Pulling and Pulled
   * for imagePullPolicy Always or an image not yet on the node, else `already present` — then
   * Created and Started.
   */
  private recordStart(pod: Pod, container: Container, role: Role): void {
    const image = container.image ?? '';
    const fieldPath = `spec.${role === 'regular' ? 'containers' : 'initContainers'}{${container.name}}`;
    const pulledKey = `${pod.spec.nodeName ?? ''} ${image}`;
    const policy = container.imagePullPolicy as string | undefined;
    if (policy === 'Always' || (policy !== 'Never' && !this.pulled.has(pulledKey))) {
      this.kubeletEvents.event(pod, 'Normal', 'Pulling', `Pulling image "${image}"`, fieldPath);
      this.kubeletEvents.event(
        pod,
        'Normal',
        'Pulled',
        `Successfully pulled image "${image}" in 0s (0s including waiting). Image size: 0 bytes.`,
        fieldPath,
      );
      this.pulled.add(pulledKey);
    } else {
      this.kubeletEvents.event(
        pod,
        'Normal',
        'Pulled',
        `Container image "${image}" already present on machine`,
        fieldPath,
      );
    }
    this.kubeletEvents.event(pod, 'Normal', 'Created', `Created container: ${container.name}`, fieldPath);
    this.kubeletEvents.event(pod, 'Normal', 'Started', `Started container ${container.name}`, fieldPath);
  }

  /**
   * A Pod being deleted (kubelet.go HandlePodUpdates → podWorkers' terminating path,
   * kuberuntime_container.go killContainer): its containers get SIGTERM, then SIGKILL once the
   * grace period (deletionTimestamp) is over; when none runs any more the kubelet deletes the Pod
   * with a period of 0 (status_manager.go canBeDeleted → Delete with GracePeriodSeconds 0), which
   * removes it unless finalizers hold it.
   */
  private terminate(key: string, pod: Pod): void {
    const uid = pod.metadata.uid!;
    if (!this.signalled.has(uid)) {
      this.signalled.add(uid);
      this.recordKilling(pod);
      this.runtime.killPod(uid, 'SIGTERM');
    }
    const running = [...(pod.spec.initContainers ?? []), ...pod.spec.containers].some((c) => {
      const current = this.runtime.container(uid, c.name)?.current;
      return current !== undefined && !current.exit;
    });
    if (running) {
      const deadline = Date.parse(pod.metadata.deletionTimestamp!);
      const now = Date.now();
      if (now >= deadline) this.runtime.killPod(uid, 'SIGKILL');
      // The exit listener brings the Pod back as its processes end; the deadline as a fallback.
      else this.queue.addLater(key, deadline - now);
      return;
    }
    if ((pod.metadata.deletionGracePeriodSeconds ?? 0) === 0) return;
    const { namespace, name } = pod.metadata;
    this.deps.client.delete(POD, namespace, name!, 'Background', 0);
  }

  /** kuberuntime_container.go killContainer's event, for each container still running. */
  private recordKilling(pod: Pod): void {
    const uid = pod.metadata.uid!;
    for (const [field, list] of [
      ['initContainers', pod.spec.initContainers ?? []],
      ['containers', pod.spec.containers],
    ] as const) {
      for (const c of list) {
        const current = this.runtime.container(uid, c.name)?.current;
        if (current && !current.exit)
          this.kubeletEvents.event(
            pod,
            'Normal',
            'Killing',
            `Stopping container ${c.name}`,
            `spec.${field}{${c.name}}`,
          );
      }
    }
  }

  private previousStatus(pod: Pod, name: string): ContainerStatus | undefined {
    return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find(
      (s) => s.name === name,
    );
  }

  /** Every container waiting for the sandbox (ContainerCreating, or PodInitializing with init containers). */
  private target(pod: Pod, { sandboxReady }: { sandboxReady: boolean }): PodTarget {
    const reason = pod.spec.initContainers?.length ? 'PodInitializing' : 'ContainerCreating';
    return {
      sandboxReady,
      hostIP: this.hostIP(pod),
      init: (pod.spec.initContainers ?? []).map(() => ({ kind: 'waiting', reason: 'PodInitializing' })),
      containers: pod.spec.containers.map(() => ({ kind: 'waiting', reason })),
    };
  }

  private hostIP(pod: Pod): string {
    return (pod.spec.nodeName && hostIPOf(this.deps.store, pod.spec.nodeName)) || HOST_IP;
  }

  /** PodScheduled False with the scheduler's reason, as the scheduler's status update writes it. */
  private writeUnschedulable(pod: Pod, message: string): void {
    const conditions = pod.status?.conditions ?? [];
    const old = conditions.find((c) => c.type === 'PodScheduled');
    if (old?.status === 'False' && old.message === message) return;
    const condition = {
      type: 'PodScheduled',
      status: 'False' as const,
      lastProbeTime: null,
      lastTransitionTime: old?.status === 'False' ? old.lastTransitionTime : timestamp(new Date()),
      reason: 'Unschedulable',
      message,
    };
    const status = {
      ...(pod.status ?? {}),
      phase: 'Pending',
      conditions: [...conditions.filter((c) => c.type !== 'PodScheduled'), condition],
    };
    this.deps.client.update(POD, { ...pod, status } as KubeObject, 'status');
  }

  /** 10.244.0.0/16 (kind's pod subnet), skipping network and broadcast-looking addresses. */
  private allocateIp(): string {
    this.nextIp++;
    const third = Math.floor(this.nextIp / 254) % 256;
    const last = (this.nextIp % 254) + 1;
    return `10.244.${third}.${last}`;
  }

  private writeStatus(pod: Pod, target: PodTarget): void {
    const current = this.deps.store.get(POD_KEY, pod.metadata.namespace, pod.metadata.name!) as
      | Pod
      | undefined;
    if (!current || current.metadata.deletionTimestamp) return;
    const status = buildPodStatus(current, target, new Date());
    if (semanticEqual(status, current.status)) return;
    this.deps.client.update(POD, { ...current, status } as KubeObject, 'status');
  }
}

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
 * - Pods with restartPolicy Never or OnFailure (Job Pods) run for `settings.jobRunMs`, then end
 *   Succeeded (exit 0, Completed) or, for images in `settings.failingJobImages`, Failed (exit 1,
 *   Error).
 * Status goes through `/status`; Pods being deleted are left alone.
 */
import { typeKey } from '../api/service.ts';
import type { StoreEvent } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ControllerQueue } from './controller-queue.ts';
import {
  containerConfigError,
  imagePullError,
  type ObjectLookup,
  unmountableVolume,
} from './pod-start-checks.ts';
import { buildPodStatus, type ContainerTarget, isSidecar, type PodTarget } from './pod-status.ts';
import { bindPod } from './registry-writes.ts';
import { imageMatches } from './settings.ts';
import {
  CONFIG_MAP,
  type Container,
  type ContainerStatus,
  objectKeyOf,
  POD,
  type Pod,
  SECRET,
  splitKey,
} from './workload-types.ts';

export const NODE_NAME = 'kube-sim-node';
/** The node's address (kind's first node has this one). */
const HOST_IP = '172.18.0.2';
/** How often blocked Pods are looked at again (the kubelet's image back-off is 10 s to 5 min). */
const RECHECK_MS = 250;

const POD_KEY = typeKey(POD);
const SECRET_KEY = typeKey(SECRET);
const CONFIG_MAP_KEY = typeKey(CONFIG_MAP);

export class PodLifecycleController implements SimController {
  private readonly queue: ControllerQueue;
  private readonly unsubscribe: () => void;
  /** Pod uid → when its containers may start (bound + podReadyDelayMs). */
  private readonly startAt = new Map<string, number>();
  /** Pod uid → when its containers started (Job Pods finish jobRunMs later). */
  private readonly runningSince = new Map<string, number>();
  /** Keys of Pods with containers that cannot start yet. */
  private readonly blocked = new Set<string>();
  private recheck: NodeJS.Timeout | undefined;
  private nextIp = 0;
  private readonly lookup: ObjectLookup;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new ControllerQueue(
      (key) => this.sync(key),
      (key, err) => deps.onError(`pod ${key}`, err),
    );
    this.lookup = {
      secret: (ns, name) => deps.store.get(SECRET_KEY, ns, name),
      configMap: (ns, name) => deps.store.get(CONFIG_MAP_KEY, ns, name),
    };
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
        this.queue.forget(key);
        this.startAt.delete(object.metadata.uid!);
        this.runningSince.delete(object.metadata.uid!);
      } else this.queue.add(key);
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
    if (!pod || pod.metadata.deletionTimestamp) return;
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') {
      this.blocked.delete(key);
      return;
    }
    if (!pod.spec.nodeName) {
      // The scheduler leaves gated Pods alone (PodScheduled stays False/SchedulingGated upstream).
      if (pod.spec.schedulingGates?.length) return;
      pod = bindPod(this.deps.store, namespace, name, NODE_NAME);
      if (!pod) return;
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

  /** One kubelet SyncPod: mount, pull, configure and start what can start; finish Job Pods. */
  private startContainers(key: string, pod: Pod, now: number): void {
    const uid = pod.metadata.uid!;
    const volumeError = unmountableVolume(pod, this.lookup);
    let target: PodTarget;
    if (volumeError) target = this.target(pod, { sandboxReady: false });
    else {
      const podIP = pod.status?.podIP ?? this.allocateIp();
      const init = this.initTargets(pod);
      const initDone = init.every((t, i) =>
        isSidecar(pod.spec.initContainers![i]!) ? t.kind === 'running' : t.kind === 'terminated',
      );
      const containers = pod.spec.containers.map((c) =>
        initDone ? this.containerTarget(pod, c) : ({ kind: 'waiting', reason: 'PodInitializing' } as const),
      );
      target = { sandboxReady: true, podIP, hostIP: HOST_IP, init, containers };
    }
    const allRunning = target.containers.length > 0 && target.containers.every((t) => t.kind === 'running');
    if (allRunning && this.isJobPod(pod)) {
      const since = this.runningSince.get(uid) ?? now;
      this.runningSince.set(uid, since);
      const finishAt = since + this.deps.settings.jobRunMs;
      if (now >= finishAt) target.containers = pod.spec.containers.map((c) => this.finished(c));
      else this.queue.addLater(key, finishAt - now);
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

  private finished(container: Container): ContainerTarget {
    const fails = imageMatches(container.image ?? '', this.deps.settings.failingJobImages);
    return fails
      ? { kind: 'terminated', exitCode: 1, reason: 'Error' }
      : { kind: 'terminated', exitCode: 0, reason: 'Completed' };
  }

  /** Init containers run one after another; each must finish (sidecars: start) before the next. */
  private initTargets(pod: Pod): ContainerTarget[] {
    const targets: ContainerTarget[] = [];
    let blocked = false;
    for (const c of pod.spec.initContainers ?? []) {
      if (blocked) {
        targets.push({ kind: 'waiting', reason: 'PodInitializing' });
        continue;
      }
      const t = this.containerTarget(pod, c);
      if (t.kind === 'waiting') {
        blocked = true;
        targets.push(t);
      } else targets.push(isSidecar(c) ? t : { kind: 'terminated', exitCode: 0, reason: 'Completed' });
    }
    return targets;
  }

  /**
   * A container that runs (or ran) keeps doing so; one that has not started yet is pulled and
   * configured now, in the kubelet's order.
   */
  private containerTarget(pod: Pod, container: Container): ContainerTarget {
    const status = this.previousStatus(pod, container.name);
    if (status?.state?.running) return { kind: 'running' };
    if (status?.state?.terminated) {
      const { exitCode, reason } = status.state.terminated;
      return { kind: 'terminated', exitCode, reason: reason ?? (exitCode === 0 ? 'Completed' : 'Error') };
    }
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
    const configError = containerConfigError(pod, container, this.lookup);
    if (configError) return { kind: 'waiting', reason: 'CreateContainerConfigError', message: configError };
    return { kind: 'running' };
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
      hostIP: HOST_IP,
      init: (pod.spec.initContainers ?? []).map(() => ({ kind: 'waiting', reason: 'PodInitializing' })),
      containers: pod.spec.containers.map(() => ({ kind: 'waiting', reason })),
    };
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

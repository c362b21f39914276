/**
 * The Job controller (kube-controller-manager pkg/controller/job, 1.33 defaults) and the
 * TTL-after-finished controller (pkg/controller/ttlafterfinished), as one simulated controller.
 *
 * - Pods come from the template (generateName `<job>-`, the template's labels, which the API
 *   server's Job defaulting fills with job-name/controller-uid; a controller reference with
 *   blockOwnerDeletion; the `batch.kubernetes.io/job-tracking` finalizer), up to parallelism and
 *   never more than the completions left (manageJob).
 * - Finished pods are counted, then released from the finalizer (trackJobStatusAndRemoveFinalizers;
 *   uncountedTerminatedPods stays empty because counting and releasing happen in one step here).
 *   A pod deleted before it succeeded counts as failed, and gets a replacement.
 * - Success: `SuccessCriteriaMet` then `Complete` (reason CompletionsReached), completionTime.
 *   Failure: `FailureTarget` then `Failed` with BackoffLimitExceeded (failed > backoffLimit) or
 *   DeadlineExceeded (activeDeadlineSeconds since startTime; active pods deleted). 1.33 always
 *   takes the two steps (delayTerminalCondition: JobManagedBy and JobPodReplacementPolicy are on).
 * - `spec.suspend`: active pods are deleted without counting, condition Suspended; resuming resets
 *   startTime.
 * - `ttlSecondsAfterFinished`: the Job is deleted that long after its Complete/Failed condition's
 *   lastTransitionTime, with propagation Foreground and a UID precondition (processJob), so the
 *   garbage collector removes its pods first.
 * - `podFailurePolicy` (job-failure-policy.ts): a failed pod matching a FailJob rule fails the Job
 *   (FailureTarget then Failed, reason PodFailurePolicy) ahead of the backoffLimit check; one
 *   matching an Ignore rule is released without counting.
 * - Back-off between retries (job-backoff.ts): after failures, new pods wait an exponential delay
 *   from the last failure (manageJob's getRemainingTime), the sync requeued for then.
 * Not simulated: Indexed completion (so FailIndex counts as a failure), successPolicy,
 * backoffLimitPerIndex, adoption of orphan pods matching the selector.
 */
import { timestamp } from '../api/metadata.ts';
import type { ObjectStore, StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import {
  type Condition,
  controllerRef,
  findCondition,
  finishedCondition,
  isPodActive,
  isPodReady,
  isPodTerminal,
  JOB,
  JOB_KEY,
  type JobSpec,
  type JobStatus,
  newControllerRef,
  POD,
  POD_KEY,
  podPhase,
  statusOf,
} from './batch-types.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { EventRecorder } from './event-recorder.ts';
import { type BackoffRecord, nextBackoffRecord, remainingBackoffMs } from './job-backoff.ts';
import {
  ensureCondition,
  jobStatus,
  msUntilActiveDeadline,
  newCondition,
  pastBackoffLimitOnFailure,
} from './job-conditions.ts';
import { matchPodFailurePolicy, type PodFailurePolicy } from './job-failure-policy.ts';
import { KeyedTimers } from './keyed-timers.ts';
import { ReconcileQueue } from './reconcile-queue.ts';

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
const JOB_CONTROLLER_NAME = 'kubernetes.io/job-controller';

const jobKey = (namespace: string, name: string) => `job:${namespace}/${name}`;
const podKey = (pod: KubeObject) => `pod:${pod.metadata.namespace}/${pod.metadata.name}`;
const hasTrackingFinalizer = (pod: KubeObject) =>
  pod.metadata.finalizers?.includes(JOB_TRACKING_FINALIZER) === true;
const failurePolicyOf = (spec: JobSpec) => spec.podFailurePolicy as PodFailurePolicy | undefined;

/**
 * isPodFailed for podReplacementPolicy TerminatingOrFailed (the default): a pod deleted before it
 * succeeded is a failure. With policy Failed upstream waits for the kubelet to mark the pod Failed;
 * the simulator has no graceful termination, so it counts such pods at once either way.
 */
const isPodFailed = (pod: KubeObject) =>
  podPhase(pod) === 'Failed' ||
  (pod.metadata.deletionTimestamp !== undefined && podPhase(pod) !== 'Succeeded');

export class JobController implements SimController {
  private readonly store: ObjectStore;
  private readonly queue: ReconcileQueue;
  private readonly timers: KeyedTimers;
  private readonly events: EventRecorder;
  /** podBackoffStore: failures since the last success, per Job key, in memory as upstream's. */
  private readonly backoff = new Map<string, BackoffRecord>();
  private readonly unsubscribe: () => void;
  private stopped = false;

  constructor(private readonly deps: ControllerDeps) {
    this.store = deps.store;
    this.queue = new ReconcileQueue(
      (key) => this.handle(key),
      (key, err) => deps.onError(`job controller ${key}`, err),
    );
    this.timers = new KeyedTimers((key) => this.queue.add(key));
    this.events = new EventRecorder(deps.client, 'job-controller');
    this.unsubscribe = deps.store.subscribe((event) => this.observe(event));
    // Restored from a snapshot: look at every Job, and at pods still holding the finalizer.
    for (const job of deps.store.list(JOB_KEY))
      this.queue.add(jobKey(job.metadata.namespace!, job.metadata.name!));
    for (const pod of deps.store.list(POD_KEY)) if (hasTrackingFinalizer(pod)) this.queue.add(podKey(pod));
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    this.timers.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    const { object } = event;
    const namespace = object.metadata.namespace ?? '';
    if (event.typeKey === JOB_KEY) {
      const key = jobKey(namespace, object.metadata.name!);
      if (event.type === 'DELETED') {
        this.timers.cancel(key);
        this.backoff.delete(key);
      }
      this.queue.add(key);
      return;
    }
    if (event.typeKey !== POD_KEY) return;
    const ref = controllerRef(object);
    if (ref?.kind === 'Job' && ref.apiVersion === 'batch/v1') this.queue.add(jobKey(namespace, ref.name));
    if (event.type !== 'DELETED' && hasTrackingFinalizer(object)) this.queue.add(podKey(object));
  }

  private handle(key: string): void {
    if (this.stopped) return;
    const colon = key.indexOf(':');
    const [namespace, name] = key.slice(colon + 1).split('/') as [string, string];
    if (key.startsWith('job:')) this.syncJob(namespace, name);
    else this.syncOrphanPod(namespace, name);
  }

  /**
   * syncOrphanPod: a pod holding the tracking finalizer whose Job is gone, finished, or not its
   * controller any more is released, so it is not stuck when deleted.
   */
  private syncOrphanPod(namespace: string, name: string): void {
    const pod = this.deps.client.get(POD, namespace, name);
    if (!pod || !hasTrackingFinalizer(pod)) return;
    const ref = controllerRef(pod);
    if (ref) {
      if (ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1') return;
      const job = this.deps.client.get(JOB, namespace, ref.name);
      if (job && job.metadata.uid === ref.uid && !finishedCondition(job)) return;
    }
    this.removeFinalizer(pod);
  }

  private podsOf(job: KubeObject): KubeObject[] {
    return this.store
      .list(POD_KEY, job.metadata.namespace)
      .filter((pod) => controllerRef(pod)?.uid === job.metadata.uid);
  }

  private syncJob(namespace: string, name: string): void {
    const job = this.deps.client.get(JOB, namespace, name);
    if (!job) return;
    const spec = job.spec as JobSpec;
    // managedByExternalController: another controller writes this Job's status.
    if (spec.managedBy !== undefined && spec.managedBy !== JOB_CONTROLLER_NAME) return;
    const done = finishedCondition(job);
    if (done) {
      this.backoff.delete(jobKey(namespace, name));
      for (const pod of this.podsOf(job)) if (hasTrackingFinalizer(pod)) this.removeFinalizer(pod);
      this.expireAfterFinished(job, done);
      return;
    }
    const now = new Date();
    const status = statusOf<JobStatus>(job);
    const suspended = spec.suspend === true;
    const conditions: Condition[] = clone(status.conditions ?? []);
    let startTime = status.startTime ?? (suspended ? undefined : timestamp(now));
    let pods = this.podsOf(job);
    const tracked = pods.filter(hasTrackingFinalizer);
    const succeeded = (status.succeeded ?? 0) + tracked.filter((p) => podPhase(p) === 'Succeeded').length;
    const policy = failurePolicyOf(spec);
    const newFailed = tracked.filter(isPodFailed);
    // nonIgnoredFailedPodsCount: failures an Ignore rule matched do not count against backoffLimit.
    const failed =
      (status.failed ?? 0) + newFailed.filter((p) => matchPodFailurePolicy(policy, p).countFailed).length;
    const backoff = nextBackoffRecord(
      this.backoff.get(jobKey(namespace, name)),
      tracked.filter((p) => podPhase(p) === 'Succeeded'),
      newFailed,
    );

    // A Job that met its criteria in an earlier pass only waits to be declared finished.
    let interim =
      findCondition(conditions, 'SuccessCriteriaMet') ?? findCondition(conditions, 'FailureTarget');
    // getFailJobMessage: a failed pod matching a FailJob rule decides before the backoffLimit.
    const failJobMessage = policy
      ? pods
          .filter(isPodFailed)
          .map((p) => matchPodFailurePolicy(policy, p).failJobMessage)
          .find((m) => m !== undefined)
      : undefined;
    if (!interim && failJobMessage !== undefined) {
      interim = newCondition('FailureTarget', 'True', 'PodFailurePolicy', failJobMessage, now);
    }
    if (!interim) {
      const untilDeadline = msUntilActiveDeadline(spec, startTime, now);
      if (failed > (spec.backoffLimit ?? 6) || pastBackoffLimitOnFailure(spec, pods)) {
        interim = newCondition(
          'FailureTarget',
          'True',
          'BackoffLimitExceeded',
          'Job has reached the specified backoff limit',
          now,
        );
      } else if (untilDeadline !== undefined && untilDeadline <= 0) {
        interim = newCondition(
          'FailureTarget',
          'True',
          'DeadlineExceeded',
          'Job was active longer than specified deadline',
          now,
        );
      } else if (untilDeadline !== undefined) {
        this.timers.after(jobKey(namespace, name), untilDeadline);
      }
    }

    if (interim) {
      // deleteActivePods (any pod still running once the outcome is known): the pods keep their
      // finalizer, so they are counted as failed below.
      for (const pod of pods.filter(isPodActive)) this.deletePod(job, pod, false);
    } else if (!job.metadata.deletionTimestamp) {
      this.manageJob(job, spec, pods, succeeded, backoff, now);
      const active = this.podsOf(job).filter(isPodActive).length;
      const complete =
        spec.completions === undefined || spec.completions === null
          ? succeeded > 0 && active === 0
          : succeeded >= spec.completions && active === 0;
      if (complete) {
        interim = newCondition(
          'SuccessCriteriaMet',
          'True',
          'CompletionsReached',
          'Reached expected number of succeeded pods',
          now,
        );
      } else if (suspended) {
        if (ensureCondition(conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now))
          this.events.event(job, 'Normal', 'Suspended', 'Job suspended');
      } else if (ensureCondition(conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', now)) {
        this.events.event(job, 'Normal', 'Resumed', 'Job resumed');
        // A resumed Job's activeDeadlineSeconds counts from the resumption.
        startTime = timestamp(now);
      }
    }

    const counted = this.releaseFinishedPods(job, interim, policy);
    // updateBackoffRecord once the finished pods are counted (and released).
    this.backoff.set(jobKey(namespace, name), backoff);
    pods = this.podsOf(job);
    const active = pods.filter(isPodActive);
    const terminating = pods.filter((p) => p.metadata.deletionTimestamp && !isPodTerminal(p)).length;
    if (interim && !findCondition(conditions, interim.type)) conditions.push(interim);
    const parts = {
      conditions,
      startTime,
      completionTime: status.completionTime,
      active: active.length,
      succeeded: (status.succeeded ?? 0) + counted.succeeded,
      failed: (status.failed ?? 0) + counted.failed,
      terminating,
      ready: active.filter(isPodReady).length,
    };
    this.writeStatus(job, jobStatus(parts));

    // enactJobFinished: the terminal condition once nothing runs or terminates any more.
    if (!interim || active.length > 0 || terminating > 0) return;
    const type = interim.type === 'FailureTarget' ? 'Failed' : 'Complete';
    const final = newCondition(type, 'True', interim.reason ?? '', interim.message ?? '', now);
    const finished = this.writeStatus(
      job,
      jobStatus({
        ...parts,
        conditions: [...conditions, final],
        completionTime: type === 'Complete' ? final.lastTransitionTime : undefined,
      }),
    );
    // recordJobFinished
    if (type === 'Complete') this.events.event(job, 'Normal', 'Completed', 'Job completed');
    else this.events.event(job, 'Warning', final.reason ?? '', final.message ?? '');
    if (finished) this.expireAfterFinished(finished, final);
  }

  /**
   * manageJob for NonIndexed Jobs: as many active pods as parallelism allows and completions still
   * need (a Job without completions stops starting pods after its first success); a suspended Job
   * has none. Pods removed here are released first, so they are not counted as failures. New pods
   * wait out the back-off after failures; the Job is looked at again when it ends.
   */
  private manageJob(
    job: KubeObject,
    spec: JobSpec,
    pods: KubeObject[],
    succeeded: number,
    backoff: BackoffRecord,
    now: Date,
  ): void {
    const active = pods.filter(isPodActive);
    let want = 0;
    if (spec.suspend !== true) {
      const parallelism = spec.parallelism ?? 1;
      if (spec.completions === undefined || spec.completions === null)
        want = succeeded > 0 ? active.length : parallelism;
      else want = Math.max(0, Math.min(parallelism, spec.completions - succeeded));
    }
    if (active.length > want) {
      for (const pod of active.slice(want)) this.deletePod(job, pod, true);
      return;
    }
    let missing = want - active.length;
    // podReplacementPolicy Failed: a replacement waits until the terminating pod is gone.
    if (spec.podReplacementPolicy === 'Failed')
      missing -= pods.filter((p) => p.metadata.deletionTimestamp && !isPodTerminal(p)).length;
    if (missing <= 0) return;
    const { jobBackOffBaseMs, jobBackOffMaxMs } = this.deps.settings;
    const wait = remainingBackoffMs(backoff, jobBackOffBaseMs, jobBackOffMaxMs, now.getTime());
    if (wait > 0) {
      this.timers.after(jobKey(job.metadata.namespace!, job.metadata.name!), wait);
      return;
    }
    for (let i = 0; i < missing; i++) this.createPod(job, spec);
  }

  private createPod(job: KubeObject, spec: JobSpec): void {
    const meta = spec.template.metadata ?? {};
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        // controller.getPodsPrefix: the apiserver appends five random characters.
        generateName: `${job.metadata.name}-`,
        namespace: job.metadata.namespace,
        ...(meta.labels ? { labels: { ...meta.labels } } : {}),
        ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
        finalizers: [...(meta.finalizers ?? []), JOB_TRACKING_FINALIZER],
        ownerReferences: [newControllerRef(job)],
      },
      spec: clone(spec.template.spec ?? {}),
    };
    try {
      const created = this.deps.client.create(POD, pod);
      this.events.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
    } catch (err) {
      this.events.event(job, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
    }
  }

  /** Deletes a pod; `release` takes the tracking finalizer off first (deleteJobPods). */
  private deletePod(job: KubeObject, pod: KubeObject, release: boolean): void {
    if (release) this.removeFinalizer(pod);
    if (!this.deps.client.get(POD, pod.metadata.namespace, pod.metadata.name!)) return;
    try {
      this.deps.client.delete(POD, pod.metadata.namespace, pod.metadata.name!);
      this.events.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
    } catch (err) {
      this.events.event(job, 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
    }
  }

  /**
   * Counts the pods that finished (or may be released because the Job is finishing or being
   * deleted) and takes their finalizer off (canRemoveFinalizer): succeeded pods count as
   * succeeded; failed ones, and every unfinished one when the Job is failing, as failed, unless a
   * podFailurePolicy Ignore rule matches.
   */
  private releaseFinishedPods(
    job: KubeObject,
    interim: Condition | undefined,
    policy: PodFailurePolicy | undefined,
  ): { succeeded: number; failed: number } {
    const counted = { succeeded: 0, failed: 0 };
    const failing = interim?.type === 'FailureTarget';
    for (const pod of this.podsOf(job)) {
      if (!hasTrackingFinalizer(pod)) continue;
      const succeeded = podPhase(pod) === 'Succeeded';
      const failed = isPodFailed(pod);
      if (!succeeded && !failed && !interim && !job.metadata.deletionTimestamp) continue;
      if (succeeded) counted.succeeded++;
      else if ((failed || failing) && matchPodFailurePolicy(policy, pod).countFailed) counted.failed++;
      this.removeFinalizer(pod);
    }
    return counted;
  }

  private removeFinalizer(pod: KubeObject): void {
    const current = this.deps.client.get(POD, pod.metadata.namespace, pod.metadata.name!);
    if (!current || !hasTrackingFinalizer(current)) return;
    const next = clone(current);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER);
    this.deps.client.update(POD, next);
  }

  /** Writes status through `/status` when it changed; returns the stored Job. */
  private writeStatus(job: KubeObject, status: JobStatus): KubeObject | undefined {
    const current = this.deps.client.get(JOB, job.metadata.namespace, job.metadata.name!);
    if (!current || current.metadata.uid !== job.metadata.uid) return undefined;
    if (JSON.stringify(current.status ?? {}) === JSON.stringify(status)) return current;
    return this.deps.client.update(JOB, { ...clone(current), status }, 'status');
  }

  /**
   * The TTL-after-finished controller (processJob/processTTL): once `ttlSecondsAfterFinished` has
   * passed since the Job finished, delete it in the foreground, if it is still the same Job.
   */
  private expireAfterFinished(job: KubeObject, finished: Condition): void {
    const ttl = (job.spec as JobSpec).ttlSecondsAfterFinished;
    if (ttl === undefined || ttl === null || job.metadata.deletionTimestamp) return;
    const finishedAt = Date.parse(finished.lastTransitionTime ?? '');
    if (Number.isNaN(finishedAt)) return;
    const { namespace, name, uid } = job.metadata;
    const remaining = finishedAt + ttl * 1000 - Date.now();
    if (remaining > 0) {
      this.timers.after(jobKey(namespace!, name!), remaining);
      return;
    }
    const fresh = this.deps.client.get(JOB, namespace, name!);
    if (!fresh || fresh.metadata.uid !== uid || fresh.metadata.deletionTimestamp) return;
    this.deps.client.delete(JOB, namespace, name!, 'Foreground');
  }
}

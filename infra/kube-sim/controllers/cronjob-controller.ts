/**
 * The CronJob controller (kube-controller-manager pkg/controller/cronjob, cronjob_controllerv2.go).
 * Each sync runs syncCronJob on the CronJob clock (cron-clock.ts; settings.timeScale): it finds the
 * most recent activation missed since lastScheduleTime (else creationTimestamp) — cron-schedule-
 * times.ts, after utils.go — skips it when later than startingDeadlineSeconds (MissSchedule),
 * when already run, or under Forbid with a Job active; creates its Job otherwise; and requeues
 * itself (addLater) for just after the next activation. `trigger()` runs a CronJob now, as its
 * schedule would at the current minute (syncCronJob's tail):
 * - a suspended CronJob is not run; with concurrencyPolicy Forbid and a Job still active the run
 *   is skipped (event JobAlreadyActive); with Replace the active Jobs are deleted first;
 * - the Job comes from spec.jobTemplate (getJobFromTemplate2): name `<cronjob>-<scheduled time in
 *   minutes since the epoch>` (getJobName), the template's labels and annotations plus
 *   `batch.kubernetes.io/cronjob-scheduled-timestamp` (RFC 3339 in spec.timeZone), a controller
 *   reference with blockOwnerDeletion;
 * - status.active gets a reference to it, status.lastScheduleTime the scheduled time.
 * When its Jobs change, the CronJob is reconciled as syncCronJob does: finished Jobs leave
 * status.active (SawCompletedJob), Jobs gone missing too (MissingJob), lastSuccessfulTime follows
 * the newest completionTime, and cleanupFinishedJobs deletes the oldest finished Jobs beyond
 * successfulJobsHistoryLimit / failedJobsHistoryLimit (propagation Background).
 */
import { timestamp } from '../api/metadata.ts';
import { StatusError } from '../errors.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import {
  CRONJOB,
  CRONJOB_KEY,
  type CronJobSpec,
  type CronJobStatus,
  controllerRef,
  finishedCondition,
  isControlledBy,
  JOB,
  JOB_KEY,
  type JobStatus,
  newControllerRef,
  type ObjectReference,
  statusOf,
} from './batch-types.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ControllerQueue } from './controller-queue.ts';
import { CronClock } from './cron-clock.ts';
import { type CronSchedule, parseCronSchedule, UnparseableScheduleError } from './cron-schedule.ts';
import {
  mostRecentScheduleTime,
  nextScheduleTimeDuration,
  type ScheduleInputs,
} from './cron-schedule-times.ts';
import { rfc3339InZone } from './cron-time.ts';
import { EventRecorder } from './event-recorder.ts';

export const CRONJOB_SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
const MINUTE_MS = 60_000;

export class CronJobController implements SimController {
  private readonly queue: ControllerQueue;
  private readonly events: EventRecorder;
  /** The CronJob clock: settings.timeScale times real time. */
  readonly clock: CronClock;
  private readonly unsubscribe: () => void;
  private stopped = false;

  constructor(private readonly deps: ControllerDeps) {
    this.clock = new CronClock(deps.settings);
    this.queue = new ControllerQueue(
      (key) => {
        if (this.stopped) return;
        const [namespace, name] = key.split('/') as [string, string];
        this.sync(namespace, name);
      },
      (key, err) => deps.onError(`cronjob controller ${key}`, err),
    );
    this.events = new EventRecorder(deps.client, 'cronjob-controller');
    this.unsubscribe = deps.store.subscribe((event) => this.observe(event));
    for (const cronJob of deps.store.list(CRONJOB_KEY))
      this.queue.add(`${cronJob.metadata.namespace}/${cronJob.metadata.name}`);
  }

  stop(): void {
    this.stopped = true;
    this.queue.stop();
    this.unsubscribe();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * Runs the CronJob now and returns the Job it created. The scheduled time is the current minute;
   * a CronJob already run for that minute takes the minute after its lastScheduleTime, so every
   * trigger makes its own Job, as a `* * * * *` schedule would minute after minute.
   */
  trigger(namespace: string, name: string): KubeObject {
    const found = this.deps.client.get(CRONJOB, namespace, name);
    if (!found) throw new Error(`cronjobs.batch "${name}" not found in namespace "${namespace}"`);
    if (found.metadata.deletionTimestamp)
      throw new Error(`CronJob ${namespace}/${name} is being deleted: it starts no more Jobs`);
    const spec = found.spec as CronJobSpec;
    if (spec.suspend === true)
      throw new Error(
        `CronJob ${namespace}/${name} is suspended (spec.suspend: true): its schedule starts no Jobs`,
      );
    // Bring status.active up to date first, as the sync before a scheduled run does.
    this.sync(namespace, name, false);
    const cronJob = this.deps.client.get(CRONJOB, namespace, name)!;
    const status: CronJobStatus = clone(statusOf<CronJobStatus>(cronJob));
    const active = status.active ?? [];
    if (spec.concurrencyPolicy === 'Forbid' && active.length > 0) {
      this.events.event(
        cronJob,
        'Normal',
        'JobAlreadyActive',
        'Not starting job because prior execution is running and concurrency policy is Forbid',
      );
      throw new Error(
        `CronJob ${namespace}/${name} skipped this run: concurrencyPolicy Forbid and Job ${active[0]!.name} is still active`,
      );
    }
    if (spec.concurrencyPolicy === 'Replace') {
      for (const ref of [...active]) this.deleteJob(cronJob, status, ref.name);
    }
    const scheduled = this.nextScheduledTime(status);
    const job = this.createJob(cronJob, spec, scheduled);
    status.active = [...(status.active ?? []), jobRef(job)];
    status.lastScheduleTime = timestamp(scheduled);
    this.writeStatus(cronJob, status);
    return job;
  }

  private nextScheduledTime(status: CronJobStatus): Date {
    let at = Math.floor(this.clock.now() / MINUTE_MS) * MINUTE_MS;
    const last = status.lastScheduleTime ? Date.parse(status.lastScheduleTime) : Number.NaN;
    if (!Number.isNaN(last) && last >= at) at = last + MINUTE_MS;
    return new Date(at);
  }

  /** getJobFromTemplate2 + CreateJob; an existing Job of that name we own is taken as ours. */
  private createJob(cronJob: KubeObject, spec: CronJobSpec, scheduled: Date): KubeObject {
    const template = spec.jobTemplate;
    const name = jobNameFor(cronJob, scheduled);
    const job: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace: cronJob.metadata.namespace,
        ...(template.metadata?.labels ? { labels: { ...template.metadata.labels } } : {}),
        annotations: {
          ...(template.metadata?.annotations ?? {}),
          [CRONJOB_SCHEDULED_TIMESTAMP]: rfc3339InZone(scheduled, spec.timeZone),
        },
        ownerReferences: [newControllerRef(cronJob)],
      },
      spec: clone(template.spec),
    };
    try {
      const created = this.deps.client.create(JOB, job);
      this.events.event(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${name}`);
      return created;
    } catch (err) {
      const existing =
        err instanceof StatusError && err.code === 409
          ? this.deps.client.get(JOB, cronJob.metadata.namespace, name)
          : undefined;
      if (existing && isControlledBy(existing, cronJob)) return existing;
      this.events.event(cronJob, 'Warning', 'FailedCreate', `Error creating job: ${(err as Error).message}`);
      throw err;
    }
  }

  private observe(event: StoreEvent): void {
    const { object } = event;
    if (event.typeKey === CRONJOB_KEY) {
      const key = `${object.metadata.namespace}/${object.metadata.name}`;
      if (event.type !== 'DELETED') this.queue.add(key);
      else this.queue.forget(key);
      return;
    }
    if (event.typeKey !== JOB_KEY) return;
    const ref = controllerRef(object);
    if (ref?.kind === 'CronJob' && ref.apiVersion === 'batch/v1')
      this.queue.add(`${object.metadata.namespace}/${ref.name}`);
  }

  /** syncCronJob's bookkeeping, its scheduling (unless `schedule` is false) and cleanupFinishedJobs. */
  private sync(namespace: string, name: string, schedule = true): void {
    const cronJob = this.deps.client.get(CRONJOB, namespace, name);
    if (!cronJob) return;
    const spec = cronJob.spec as CronJobSpec;
    const status: CronJobStatus = clone(statusOf<CronJobStatus>(cronJob));
    const jobs = this.deps.store.list(JOB_KEY, namespace).filter((j) => isControlledBy(j, cronJob));
    const uids = new Set(jobs.map((j) => j.metadata.uid));
    for (const job of jobs) {
      const done = finishedCondition(job);
      const listed = (status.active ?? []).some((r) => r.uid === job.metadata.uid);
      if (!done) {
        if (!listed)
          this.events.event(
            cronJob,
            'Warning',
            'UnexpectedJob',
            `Saw a job that the controller did not create or forgot: ${job.metadata.name}`,
          );
        continue;
      }
      if (listed) {
        status.active = (status.active ?? []).filter((r) => r.uid !== job.metadata.uid);
        this.events.event(
          cronJob,
          'Normal',
          'SawCompletedJob',
          `Saw completed job: ${job.metadata.name}, status: ${done.type}`,
        );
      }
      const completedAt = statusOf<JobStatus>(job).completionTime;
      if (done.type === 'Complete' && completedAt) {
        const last = status.lastSuccessfulTime
          ? Date.parse(status.lastSuccessfulTime)
          : Number.NEGATIVE_INFINITY;
        if (Date.parse(completedAt) > last) status.lastSuccessfulTime = completedAt;
      }
    }
    // Active Jobs that no longer exist must not keep the CronJob "active" forever.
    for (const ref of [...(status.active ?? [])]) {
      if (uids.has(ref.uid) || this.deps.client.get(JOB, namespace, ref.name)?.metadata.uid === ref.uid)
        continue;
      this.events.event(cronJob, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
      status.active = (status.active ?? []).filter((r) => r.uid !== ref.uid);
    }
    const requeueMs = schedule ? this.scheduleRun(cronJob, spec, status) : undefined;
    if (!cronJob.metadata.deletionTimestamp) this.cleanupFinishedJobs(cronJob, spec, status, jobs);
    this.writeStatus(cronJob, status);
    if (requeueMs !== undefined) this.queue.addLater(`${namespace}/${name}`, requeueMs);
  }

  /**
   * syncCronJob's scheduling: starts the Job of the most recent missed activation when one is due,
   * and returns the real ms until the sync after the next activation (undefined: none, as for a
   * suspended CronJob or one being deleted, which upstream does not requeue either).
   */
  private scheduleRun(cronJob: KubeObject, spec: CronJobSpec, status: CronJobStatus): number | undefined {
    if (cronJob.metadata.deletionTimestamp || spec.suspend === true) return undefined;
    let sched: CronSchedule;
    try {
      sched = parseCronSchedule(spec.schedule, spec.timeZone);
    } catch (err) {
      if (!(err instanceof UnparseableScheduleError)) throw err;
      // Upstream records the event and does not requeue: only an update of the CronJob helps.
      this.events.event(
        cronJob,
        'Warning',
        err.reason,
        err.reason === 'UnknownTimeZone'
          ? `invalid timeZone: ${JSON.stringify(spec.timeZone)}: ${err.message}`
          : `unparseable schedule: ${JSON.stringify(spec.schedule)} : ${err.message}`,
      );
      return undefined;
    }
    const now = this.clock.now();
    const last = status.lastScheduleTime ? Date.parse(status.lastScheduleTime) : Number.NaN;
    const inputs: ScheduleInputs = {
      earliest: Number.isNaN(last)
        ? this.clock.simAt(Date.parse(cronJob.metadata.creationTimestamp ?? new Date().toISOString()))
        : last,
      startingDeadlineSeconds: spec.startingDeadlineSeconds,
    };
    const requeue = () =>
      Math.max(
        1,
        Math.ceil(
          nextScheduleTimeDuration(sched, { ...inputs, earliest: this.earliest(status, inputs) }, now) /
            this.deps.settings.timeScale,
        ),
      );
    // nextScheduleTime: the activation to run now, if any.
    const found = mostRecentScheduleTime(sched, inputs, now, true);
    if (found.tooManyMissed)
      this.events.event(
        cronJob,
        'Warning',
        'TooManyMissedTimes',
        'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
      );
    if (found.mostRecent === undefined || found.mostRecent > now) return requeue();
    const scheduled = new Date(found.mostRecent);
    if (
      typeof spec.startingDeadlineSeconds === 'number' &&
      scheduled.getTime() + spec.startingDeadlineSeconds * 1000 < now
    ) {
      this.events.event(
        cronJob,
        'Warning',
        'MissSchedule',
        `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`,
      );
      return requeue();
    }
    const jobName = jobNameFor(cronJob, scheduled);
    if (
      (status.active ?? []).some((r) => r.name === jobName) ||
      (status.lastScheduleTime !== undefined && Date.parse(status.lastScheduleTime) === scheduled.getTime())
    )
      return requeue();
    const active = status.active ?? [];
    if (spec.concurrencyPolicy === 'Forbid' && active.length > 0) {
      this.events.event(
        cronJob,
        'Normal',
        'JobAlreadyActive',
        'Not starting job because prior execution is running and concurrency policy is Forbid',
      );
      return requeue();
    }
    if (spec.concurrencyPolicy === 'Replace') {
      for (const ref of [...active]) this.deleteJob(cronJob, status, ref.name);
    }
    const job = this.createJob(cronJob, spec, scheduled);
    status.active = [...(status.active ?? []).filter((r) => r.uid !== job.metadata.uid), jobRef(job)];
    status.lastScheduleTime = timestamp(scheduled);
    return requeue();
  }

  /** The earliest time after this sync's changes: a new lastScheduleTime moves it on. */
  private earliest(status: CronJobStatus, inputs: ScheduleInputs): number {
    const last = status.lastScheduleTime ? Date.parse(status.lastScheduleTime) : Number.NaN;
    return Number.isNaN(last) ? inputs.earliest : last;
  }

  /** cleanupFinishedJobs/removeOldestJobs: oldest first by startTime, then name (byJobStartTime). */
  private cleanupFinishedJobs(
    cronJob: KubeObject,
    spec: CronJobSpec,
    status: CronJobStatus,
    jobs: KubeObject[],
  ): void {
    const limits: [string, number | undefined][] = [
      ['Complete', spec.successfulJobsHistoryLimit],
      ['Failed', spec.failedJobsHistoryLimit],
    ];
    for (const [type, limit] of limits) {
      if (limit === undefined || limit === null) continue;
      const finished = jobs.filter((j) => finishedCondition(j)?.type === type).sort(byJobStartTime);
      for (const job of finished.slice(0, Math.max(0, finished.length - limit)))
        this.deleteJob(cronJob, status, job.metadata.name!);
    }
  }

  /** deleteJob: the Job (propagation Background) and its reference in status.active. */
  private deleteJob(cronJob: KubeObject, status: CronJobStatus, jobName: string): void {
    const job = this.deps.client.get(JOB, cronJob.metadata.namespace, jobName);
    try {
      if (job) this.deps.client.delete(JOB, cronJob.metadata.namespace, jobName, 'Background');
    } catch (err) {
      this.events.event(cronJob, 'Warning', 'FailedDelete', `Deleted job: ${(err as Error).message}`);
      return;
    }
    status.active = (status.active ?? []).filter((r) => r.name !== jobName);
    this.events.event(cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${jobName}`);
  }

  private writeStatus(cronJob: KubeObject, status: CronJobStatus): void {
    const current = this.deps.client.get(CRONJOB, cronJob.metadata.namespace, cronJob.metadata.name!);
    if (!current || current.metadata.uid !== cronJob.metadata.uid) return;
    const next: CronJobStatus = {};
    if (status.active?.length) next.active = status.active;
    if (status.lastScheduleTime) next.lastScheduleTime = status.lastScheduleTime;
    if (status.lastSuccessfulTime) next.lastSuccessfulTime = status.lastSuccessfulTime;
    if (JSON.stringify(current.status ?? {}) === JSON.stringify(next)) return;
    this.deps.client.update(CRONJOB, { ...clone(current), status: next }, 'status');
  }
}

/** getJobName: `<cronjob>-<scheduled time in minutes since the epoch>`. */
function jobNameFor(cronJob: KubeObject, scheduled: Date): string {
  return `${cronJob.metadata.name}-${Math.floor(scheduled.getTime() / MINUTE_MS)}`;
}

/** Go's time.RFC1123Z of a UTC time: `Mon, 02 Jan 2006 15:04:05 -0700` (here always +0000). */
function rfc1123z(date: Date): string {
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][date.getUTCDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][
    date.getUTCMonth()
  ];
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${day}, ${pad(date.getUTCDate())} ${month} ${date.getUTCFullYear()} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

/** ref.GetReference for a Job: the reference status.active holds. */
function jobRef(job: KubeObject): ObjectReference {
  return {
    kind: 'Job',
    namespace: job.metadata.namespace!,
    name: job.metadata.name!,
    uid: job.metadata.uid!,
    apiVersion: 'batch/v1',
    resourceVersion: job.metadata.resourceVersion!,
  };
}

function byJobStartTime(a: KubeObject, b: KubeObject): number {
  const sa = statusOf<JobStatus>(a).startTime;
  const sb = statusOf<JobStatus>(b).startTime;
  if (!sa && sb) return 1;
  if (sa && !sb) return -1;
  if (sa && sb && sa !== sb) return Date.parse(sa) - Date.parse(sb);
  return a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0;
}

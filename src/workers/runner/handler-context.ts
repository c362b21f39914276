/** The HandlerContext of one running job (src/workers/handler.ts describes each member). */
import type { Job } from 'bullmq';
import type { Logger } from '../../core/logger.ts';
import { encodeLogEvent } from '../../jobs/stream-event-codec.ts';
import type { CacheFences, Fence } from '../../kube/cache-fence.ts';
import type { HandlerContext, WorkerServices } from '../handler.ts';
import type { Abortable } from './abort.ts';
import type { RunningJob } from './running-job.ts';

export function handlerContext(
  job: Job,
  running: RunningJob,
  abortable: Abortable,
  deps: { logger: Logger; services: WorkerServices; fences?: CacheFences },
): HandlerContext<unknown> {
  const services = running.fence && deps.fences ? fencedServices(deps, running, abortable) : deps.services;
  let child: Logger | undefined;
  return {
    job: running.info,
    payload: running.payload,
    idempotencyKey: running.info.id,
    get signal() {
      return abortable.signal;
    },
    // The same rule as the runner's failure path: no attempt is left after this one.
    finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
    get cancelled() {
      return abortable.reason?.kind === 'cancel';
    },
    report: (release) => {
      running.release = release;
    },
    get logger() {
      child ??= deps.logger.child({
        jobId: running.info.id,
        type: running.info.type,
        ...(running.app ? { app: running.app } : {}),
      });
      return child;
    },
    services,
    log: async (line) => {
      await job.log(encodeLogEvent({ kind: 'detail', text: line }));
    },
    step: async (text) => {
      await job.log(encodeLogEvent({ kind: 'step', text }));
      await job.updateProgress({ step: text });
    },
    warn: async (text) => {
      await job.log(encodeLogEvent({ kind: 'warning', text }));
    },
    rollout: async (status) => {
      await job.log(
        encodeLogEvent({
          kind: 'rollout',
          ...(status.release ? { release: status.release } : {}),
          deployments: status.deployments,
        }),
      );
    },
    progress: async (progress) => {
      await job.updateProgress({ ...progress });
    },
  };
}

/**
 * The services of a job that starts from a cache fence: its first call of `cluster()` returns
 * once this process's caches hold what the fence names (src/kube/cache-fence.ts), or fails the
 * attempt as transient after the wait's limit. Later calls do not wait again.
 */
function fencedServices(
  deps: { logger: Logger; services: WorkerServices; fences?: CacheFences },
  running: RunningJob,
  abortable: Abortable,
): WorkerServices {
  const { services, fences, logger } = deps;
  const fence = running.fence as Fence;
  let fenced: Promise<Awaited<ReturnType<WorkerServices['cluster']>>> | undefined;
  return {
    ...services,
    cluster: () => {
      fenced ??= services.cluster().then(async (cluster) => {
        const behind = fences!.behind(fence);
        if (behind.length === 0) return cluster;
        const started = Date.now();
        logger.info(
          { jobId: running.info.id, app: running.app, behind },
          "waiting for this worker's caches to catch up with the app's previous job",
        );
        await fences!.await(fence, undefined, abortable.signal);
        logger.info(
          { jobId: running.info.id, app: running.app, waitedMs: Date.now() - started },
          "this worker's caches caught up with the app's previous job",
        );
        return cluster;
      });
      // A failed wait is not kept: a caller trying again (the handler's own retry) waits anew.
      fenced.catch(() => {
        fenced = undefined;
      });
      return fenced;
    },
  };
}

/** The HandlerContext of one running job (src/workers/handler.ts describes each member). */
import type { Job } from 'bullmq';
import type { Logger } from '../../core/logger.ts';
import { encodeLogEvent } from '../../jobs/stream-event-codec.ts';
import type { HandlerContext, WorkerServices } from '../handler.ts';
import type { Abortable } from './abort.ts';
import type { RunningJob } from './running-job.ts';

export function handlerContext(
  job: Job,
  running: RunningJob,
  abortable: Abortable,
  deps: { logger: Logger; services: WorkerServices },
): HandlerContext<unknown> {
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
    services: deps.services,
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

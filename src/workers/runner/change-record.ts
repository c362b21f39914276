/**
 * The `change` position a success records in the status projection (docs/ordering.md, "Newer
 * work"): the job's enqueue position, for an operator change. A job that rejoined its lane (a
 * forced retry) can finish after a newer change succeeded; the record then keeps the newer
 * position, so the retry of an old job never lowers the guard that refuses re-applying work older
 * than what succeeded. Only such jobs pay a read.
 */
import type { Redis } from 'ioredis';
import { readLaneStatus } from '../../jobs/status.ts';
import type { RunningJob } from './running-job.ts';

export async function changeRecord(redis: Redis, running: RunningJob): Promise<{ seq: number } | undefined> {
  if (running.contract.operatorChange === false) return undefined;
  const seq = running.enqueuedSeq ?? running.info.seq ?? 0;
  if (!running.requeued || !running.info.lane) return { seq };
  const current = await readLaneStatus(redis, running.info.lane).catch(() => undefined);
  return (current?.lastChangeSeq ?? 0) > seq ? undefined : { seq };
}

/**
 * A job's done marker (`lsDone` in its hash), written with its end: a duplicate delivery (a crash
 * between our record and BullMQ's) answers from it instead of running the job again.
 */
import { UnrecoverableError } from 'bullmq';
import type { HandlerResult } from '../handler.ts';

interface DoneMarker {
  outcome: 'completed' | 'failed' | 'superseded';
  result?: unknown;
  error?: string;
  finishedAt: number;
}

export const doneJson = {
  completed: (result: HandlerResult, now: number): string =>
    JSON.stringify({ outcome: 'completed', result, finishedAt: now } satisfies DoneMarker),
  failed: (error: string, now: number): string =>
    JSON.stringify({ outcome: 'failed', error, finishedAt: now } satisfies DoneMarker),
  superseded: (by: string, now: number): string =>
    JSON.stringify({
      outcome: 'superseded',
      result: { supersededBy: by },
      finishedAt: now,
    } satisfies DoneMarker),
};

/** What the processor answers BullMQ for a job that already has a done marker. */
export function answerFromDoneMarker(done: string): unknown {
  const marker = JSON.parse(done) as DoneMarker;
  if (marker.outcome === 'failed') throw new UnrecoverableError(marker.error ?? 'failed');
  return marker.outcome === 'superseded'
    ? { outcome: 'superseded', ...(marker.result as object) }
    : marker.result;
}

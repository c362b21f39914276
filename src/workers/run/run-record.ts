/**
 * What a `run` job remembers across attempts, in its own BullMQ hash (so it expires with the job):
 * - `lsRun`: the uid of the Job it created, written right after the create. A later attempt that
 *   finds no Job although this is set knows the command already ran (or runs no more): it never
 *   creates the Job again, which would run a migration twice.
 * - `lsRunLog`: the relay cursor (log-cursor.ts), written in the same transaction as the lines it
 *   covers (stream-writer.ts), so the stream and the cursor never disagree.
 * - `lsRunEnd`: the result, written with the stream's `end` entry: a duplicate delivery answers from
 *   it without reading the cluster.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { JOB_FIELDS, keys } from '../../jobs/keys.ts';
import type { HandlerResult } from '../handler.ts';
import type { RelayCursor } from './log-cursor.ts';

export interface RunRecordState {
  uid?: string;
  cursor?: RelayCursor;
  end?: HandlerResult;
}

function parse<T>(raw: string | null | undefined): T | undefined {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}

/** The hash fields a record uses: a run's, or a deploy's release task's. */
export interface RunRecordFields {
  job: string;
  relay: string;
  end: string;
}

export const RUN_FIELDS: RunRecordFields = {
  job: JOB_FIELDS.runJob,
  relay: JOB_FIELDS.runRelay,
  end: JOB_FIELDS.runEnd,
};

export const RELEASE_TASK_FIELDS: RunRecordFields = {
  job: JOB_FIELDS.releaseJob,
  relay: JOB_FIELDS.releaseRelay,
  end: JOB_FIELDS.releaseEnd,
};

/** A deploy's postdeploy task (src/workers/deploy/postdeploy-task.ts). */
export const POSTDEPLOY_TASK_FIELDS: RunRecordFields = {
  job: JOB_FIELDS.postdeployJob,
  relay: JOB_FIELDS.postdeployRelay,
  end: JOB_FIELDS.postdeployEnd,
};

export class RunRecord {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    jobId: string,
    private readonly fields: RunRecordFields = RUN_FIELDS,
  ) {
    this.key = keys.job(jobId);
  }

  async read(): Promise<RunRecordState> {
    const [uid, cursor, end] = await this.redis.hmget(
      this.key,
      this.fields.job,
      this.fields.relay,
      this.fields.end,
    );
    const state: RunRecordState = {};
    if (uid) state.uid = uid;
    const c = parse<RelayCursor>(cursor);
    if (c) state.cursor = c;
    const e = parse<HandlerResult>(end);
    if (e) state.end = e;
    return state;
  }

  async created(uid: string): Promise<void> {
    await this.redis.hset(this.key, this.fields.job, uid);
  }

  /** The Job was deleted before its command ran (its pod could not start): a retry may create it again. */
  async forgetJob(): Promise<void> {
    await this.redis.hdel(this.key, this.fields.job, this.fields.relay);
  }

  /** Forgets the Job, its cursor and its end: a task run again (a retried postdeploy) starts over. */
  async forget(): Promise<void> {
    await this.redis.hdel(this.key, this.fields.job, this.fields.relay, this.fields.end);
  }

  /** Adds the cursor's write to a transaction that also writes the lines it covers. */
  cursorWrite(cursor: RelayCursor): (multi: ChainableCommander) => void {
    return (multi) => multi.hset(this.key, this.fields.relay, JSON.stringify(cursor));
  }

  /** Writes a cursor alone (a sink that cannot share a transaction with its lines). */
  async saveCursor(cursor: RelayCursor): Promise<void> {
    await this.redis.hset(this.key, this.fields.relay, JSON.stringify(cursor));
  }

  /** Writes the end alone. */
  async saveEnd(result: HandlerResult): Promise<void> {
    await this.redis.hset(this.key, this.fields.end, JSON.stringify(result));
  }

  endWrite(result: HandlerResult): (multi: ChainableCommander) => void {
    return (multi) => multi.hset(this.key, this.fields.end, JSON.stringify(result));
  }
}

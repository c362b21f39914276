/**
 * Typed calls to the ordering scripts. One instance per Redis connection; scripts are registered
 * with ioredis `defineCommand`, which sends EVALSHA and falls back to EVAL after a Redis restart
 * flushed the script cache.
 */
import type { Redis } from 'ioredis';
import { JOB_RECORD_TTL_SECONDS, keys } from '../keys.ts';
import { ACQUIRE, FINISH, PEEK, RESERVE, UNRESERVE } from './scripts.ts';

type ScriptFn = (...args: (string | number)[]) => Promise<unknown>;

const SCRIPTS = {
  lsReserve: { numberOfKeys: 5, lua: RESERVE },
  lsUnreserve: { numberOfKeys: 3, lua: UNRESERVE },
  lsAcquire: { numberOfKeys: 9, lua: ACQUIRE },
  lsPeek: { numberOfKeys: 2, lua: PEEK },
  lsFinish: { numberOfKeys: 8, lua: FINISH },
} as const;

export type AcquireResult =
  | { kind: 'done'; result: string }
  | { kind: 'wait'; head: string }
  | { kind: 'superseded'; by: string; seq: number }
  | { kind: 'go'; seq: number; requeued: boolean; previousAttempts: string[] };

export interface FinishInput {
  jobId: string;
  lane: string;
  supersedeKey?: string;
  /** Stored as the job's done marker; a duplicate delivery returns it instead of running again. */
  doneValue?: string;
  /** Replaces the job's last attempt record. */
  attempt?: string;
  /** Fields written to the lane's status projection. */
  status?: Record<string, string | number>;
}

export class LaneStore {
  private readonly redis: Redis;

  constructor(redis: Redis) {
    this.redis = redis;
    for (const [name, def] of Object.entries(SCRIPTS)) {
      if (!(name in redis)) redis.defineCommand(name, def);
    }
  }

  private script(name: keyof typeof SCRIPTS): ScriptFn {
    const fn = (this.redis as unknown as Record<string, ScriptFn>)[name]!;
    return fn.bind(this.redis);
  }

  async reserve(lane: string, supersedeKey = ''): Promise<{ jobId: string; seq: number }> {
    const [jobId, seq] = (await this.script('lsReserve')(
      keys.laneSeq(lane),
      keys.lanePending(lane),
      keys.laneReserved(lane),
      keys.lanes,
      keys.laneLatest(lane),
      lane,
      Date.now(),
      keys.bull,
      supersedeKey,
      keys.jobPrefix,
    )) as [string, number];
    return { jobId, seq: Number(seq) };
  }

  async unreserve(lane: string, jobId: string, supersedeKey = ''): Promise<void> {
    await this.script('lsUnreserve')(
      keys.lanePending(lane),
      keys.laneReserved(lane),
      keys.laneLatest(lane),
      jobId,
      supersedeKey,
    );
  }

  async acquire(input: {
    lane: string;
    jobId: string;
    jobType: string;
    supersedeKey?: string;
    attempt: string;
    graceMs: number;
  }): Promise<AcquireResult> {
    const reply = (await this.script('lsAcquire')(
      keys.lanePending(input.lane),
      keys.laneReserved(input.lane),
      keys.laneSeq(input.lane),
      keys.laneLatest(input.lane),
      keys.status(input.lane),
      keys.statusIndex,
      keys.jobAttempts(input.jobId),
      keys.jobDone(input.jobId),
      keys.lanes,
      input.jobId,
      Date.now(),
      input.graceMs,
      keys.bull,
      input.lane,
      input.supersedeKey ?? '',
      input.attempt,
      input.jobType,
      JOB_RECORD_TTL_SECONDS,
      keys.jobPrefix,
    )) as unknown[];
    switch (reply[0]) {
      case 'done':
        return { kind: 'done', result: String(reply[1]) };
      case 'wait':
        return { kind: 'wait', head: String(reply[1]) };
      case 'superseded':
        return { kind: 'superseded', by: String(reply[1]), seq: Number(reply[2]) };
      case 'go':
        return {
          kind: 'go',
          seq: Number(reply[1]),
          requeued: Number(reply[2]) === 1,
          previousAttempts: (reply[3] as string[]) ?? [],
        };
      default:
        throw new Error(`unexpected reply from the ordering script: ${JSON.stringify(reply)}`);
    }
  }

  /** True when `jobId` is now the head of its lane. */
  async isHead(lane: string, jobId: string, graceMs: number): Promise<boolean> {
    const reply = await this.script('lsPeek')(
      keys.lanePending(lane),
      keys.laneReserved(lane),
      jobId,
      Date.now(),
      graceMs,
      keys.bull,
      keys.jobPrefix,
    );
    return Number(reply) === 1;
  }

  async finish(input: FinishInput): Promise<{ next?: string; nextDelayed: boolean }> {
    const statusPairs = Object.entries(input.status ?? {}).flatMap(([k, v]) => [k, String(v)]);
    const [next, delayed] = (await this.script('lsFinish')(
      keys.lanePending(input.lane),
      keys.laneReserved(input.lane),
      keys.laneLatest(input.lane),
      keys.status(input.lane),
      keys.statusIndex,
      keys.jobAttempts(input.jobId),
      keys.jobDone(input.jobId),
      keys.lanes,
      input.jobId,
      Date.now(),
      input.lane,
      input.supersedeKey ?? '',
      input.doneValue ?? '',
      input.attempt ?? '',
      JOB_RECORD_TTL_SECONDS,
      keys.bull,
      ...statusPairs,
    )) as [string, number];
    return next ? { next, nextDelayed: Number(delayed) === 1 } : { nextDelayed: false };
  }

  /** Pending job ids of a lane in order (for listings and tests). */
  async pending(lane: string): Promise<string[]> {
    return this.redis.zrange(keys.lanePending(lane), 0, -1);
  }
}

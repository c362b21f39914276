/**
 * Typed calls to the ordering scripts (scripts.ts; the Lua is in ./lua/). Scripts are registered
 * with ioredis `defineCommand`, which sends EVALSHA and falls back to EVAL after a Redis restart
 * flushed the script cache; they are read and assembled once per process, by the first LaneStore.
 */
import type { Redis } from 'ioredis';
import { keys } from '../keys.ts';
import { prefixOfJobId, prefixOfLane, shardOfLane } from '../shards.ts';
import { AcquireBatcher, type AcquireRequest } from './acquire-batcher.ts';
import { coalesceWritesThisTick } from './coalesced-writes.ts';
import { type OrderingScript, orderingScripts } from './scripts.ts';

type ScriptFn = (...args: (string | number)[]) => Promise<unknown>;

/** The ioredis command each script is registered as. */
const COMMANDS = {
  lsReserve: 'reserve',
  lsUnreserve: 'unreserve',
  lsAcquire: 'acquire',
  lsAcquireMany: 'acquire-many',
  lsPeek: 'peek',
  lsFinish: 'finish',
  lsStartUnordered: 'start-unordered',
  lsEndAttempt: 'end-attempt',
} as const satisfies Record<string, OrderingScript>;

type ScriptName = keyof typeof COMMANDS;

/** What `acquire` decided for a job picked by a worker (docs/ordering.md, "The protocol"). */
export type LaneDecision =
  /** It finished already (a duplicate delivery): its done marker. */
  | { kind: 'done'; done: string }
  /** Not its turn: `head` goes first. */
  | { kind: 'wait'; head: string }
  /** A newer job of its supersede key skips it. */
  | { kind: 'superseded'; by: string; seq: number }
  /** Its turn: it runs as attempt `attemptNumber`, after the earlier attempts (as stored, oldest first). */
  | {
      kind: 'go';
      seq: number;
      requeued: boolean;
      attemptNumber: number;
      previousAttemptsJson: string[];
      /**
       * The lane's rename marker as stored (src/jobs/renamed.ts), read by the same script; absent
       * when there is none (the common case). A lane acquired without it (older scripts) has none.
       */
      renamedTo?: string;
      /** The lane's cache fence as its last finished job left it (src/kube/cache-fence.ts); absent when none. */
      cacheFence?: string;
    };

/** How a job without a lane starts (`startUnordered`). */
export type UnorderedStart =
  | { kind: 'done'; done: string }
  | { kind: 'go'; attemptNumber: number; previousAttemptsJson: string[] };

/** The closing record of attempt `attemptNumber` (see jobs/attempts.ts). */
export interface EndedAttempt {
  attemptNumber: number;
  attemptJson: string;
}

export interface FinishInput {
  jobId: string;
  lane: string;
  supersedeKey?: string;
  /** The job's done marker: a duplicate delivery answers from it instead of running again. */
  done: string;
  /** The attempt record to close, by number (as `acquire` returned it). */
  endedAttempt?: EndedAttempt;
  /** Fields of the lane's status projection to set (see jobs/status.ts). */
  status: Record<string, string | number>;
}

export class LaneStore {
  /**
   * Coalesces the acquire calls of one tick into one script call (acquire-batcher.ts), one batcher
   * per queue shard: a script call touches the keys of one shard's hash tag only.
   */
  private readonly batchers = new Map<number, AcquireBatcher>();

  constructor(private readonly redis: Redis) {
    const scripts = orderingScripts();
    for (const [name, file] of Object.entries(COMMANDS)) {
      const { numberOfKeys, lua } = scripts[file];
      if (!(name in redis)) redis.defineCommand(name, { numberOfKeys, lua });
    }
  }

  private batcherFor(lane: string): AcquireBatcher {
    const shard = shardOfLane(lane);
    let batcher = this.batchers.get(shard);
    if (!batcher) {
      batcher = new AcquireBatcher(
        (r) => this.acquireOne(r),
        (requests) => this.acquireMany(requests),
      );
      this.batchers.set(shard, batcher);
    }
    return batcher;
  }

  private async acquireOne(r: AcquireRequest): Promise<unknown[]> {
    const args: (string | number)[] = [
      prefixOfLane(r.lane),
      r.lane,
      r.jobId,
      Date.now(),
      r.graceMs,
      r.supersedeKey,
      r.attemptJson,
    ];
    if (r.supersedeKey) args.push(r.supersedeRule, ...r.passable);
    return (await this.call('lsAcquire', keys.lanePending(r.lane), ...args)) as unknown[];
  }

  private async acquireMany(requests: readonly AcquireRequest[]): Promise<unknown[][]> {
    // Every request of a batch is in one shard (batcherFor).
    const args: (string | number)[] = [prefixOfLane(requests[0]!.lane), Date.now(), requests.length];
    for (const r of requests) {
      args.push(
        r.lane,
        r.jobId,
        r.graceMs,
        r.supersedeKey,
        r.attemptJson,
        r.supersedeRule,
        r.passable.length,
        ...r.passable,
      );
    }
    return (await this.call('lsAcquireMany', keys.lanePending(requests[0]!.lane), ...args)) as unknown[][];
  }

  private call(name: ScriptName, key: string, ...args: (string | number)[]): Promise<unknown> {
    return (this.redis as unknown as Record<ScriptName, ScriptFn>)[name].call(this.redis, key, ...args);
  }

  /**
   * The lane's next position for a new job id; with `barrierLane`, also that lane's next position
   * for the same id, in the same script (docs/ordering.md, "Barriers"). The producer adds the job
   * after; a position whose job never comes is dropped after the grace, as any reservation.
   */
  async reserve(
    lane: string,
    supersedeKey = '',
    barrierLane = '',
  ): Promise<{ jobId: string; seq: number; barrierSeq?: number }> {
    // Both lanes' keys must be under one shard's hash tag, as one script needs on Redis Cluster;
    // lanes of two shards go through src/jobs/cross-shard-lanes.ts instead.
    if (barrierLane && shardOfLane(barrierLane) !== shardOfLane(lane))
      throw new Error(`lanes ${lane} and ${barrierLane} are in different queue shards`);
    const reply = (await this.call(
      'lsReserve',
      keys.lanePending(lane),
      prefixOfLane(lane),
      lane,
      Date.now(),
      supersedeKey,
      barrierLane,
    )) as unknown[];
    const jobId = String(reply[0]);
    const seq = Number(reply[1]);
    return barrierLane ? { jobId, seq, barrierSeq: Number(reply[2]) } : { jobId, seq };
  }

  async unreserve(lane: string, jobId: string, supersedeKey = ''): Promise<void> {
    await this.call('lsUnreserve', keys.lanePending(lane), prefixOfLane(lane), lane, jobId, supersedeKey);
  }

  /**
   * Whether a picked job runs now (its LaneDecision). Calls made in the same tick go to Redis as
   * one script call (acquire-batcher.ts); each still gets its own decision. With a supersede key, `supersedeRule` says
   * which newer job of its type skips it (`adjacent`, the default: only one with nothing but
   * `passable` job types between them; `any`: the newest) — `supersessionOf(contract)` in
   * jobs/contracts.ts gives all three.
   */
  async acquire(input: {
    lane: string;
    jobId: string;
    supersedeKey?: string;
    supersedeRule?: 'any' | 'adjacent';
    passable?: readonly string[];
    /** The record of the attempt this job would start (jobs/attempts.ts). */
    attemptJson: string;
    graceMs: number;
  }): Promise<LaneDecision> {
    const reply = await this.batcherFor(input.lane).acquire({
      lane: input.lane,
      jobId: input.jobId,
      graceMs: input.graceMs,
      supersedeKey: input.supersedeKey ?? '',
      supersedeRule: input.supersedeKey ? (input.supersedeRule ?? 'adjacent') : '',
      passable: input.supersedeKey ? (input.passable ?? []) : [],
      attemptJson: input.attemptJson,
    });
    switch (reply[0]) {
      case 'done':
        return { kind: 'done', done: String(reply[1]) };
      case 'wait':
        return { kind: 'wait', head: String(reply[1]) };
      case 'superseded':
        return { kind: 'superseded', by: String(reply[1]), seq: Number(reply[2]) };
      case 'go': {
        const renamedTo = reply[5] ? String(reply[5]) : undefined;
        const cacheFence = reply[6] ? String(reply[6]) : undefined;
        return {
          kind: 'go',
          seq: Number(reply[1]),
          requeued: Number(reply[2]) === 1,
          attemptNumber: Number(reply[3]),
          previousAttemptsJson: (reply[4] as string[]) ?? [],
          ...(renamedTo ? { renamedTo } : {}),
          ...(cacheFence ? { cacheFence } : {}),
        };
      }
      default:
        throw new Error(`unexpected reply from the ordering script: ${JSON.stringify(reply)}`);
    }
  }

  /** True when `jobId` is now the head of its lane. */
  async isHead(lane: string, jobId: string, graceMs: number): Promise<boolean> {
    return (await this.turn(lane, jobId, graceMs)) === 'head';
  }

  /**
   * Where `jobId` stands in `lane`: its head, behind another job, or not in it at all (for a
   * barrier lane: nothing to wait for).
   */
  async turn(lane: string, jobId: string, graceMs: number): Promise<'head' | 'behind' | 'absent'> {
    const reply = Number(
      await this.call('lsPeek', keys.lanePending(lane), prefixOfLane(lane), lane, jobId, Date.now(), graceMs),
    );
    return reply === 1 ? 'head' : reply === 0 ? 'behind' : 'absent';
  }

  /**
   * Sent just ahead of BullMQ's completion of the job (runner/job-records.ts): both go out in
   * one socket write (coalesced-writes.ts).
   */
  async finish(input: FinishInput): Promise<{ next?: string; nextDelayed: boolean }> {
    coalesceWritesThisTick(this.redis);
    const status: (string | number)[] = [];
    for (const field in input.status) status.push(field, input.status[field]!);
    const reply = (await this.call(
      'lsFinish',
      keys.lanePending(input.lane),
      prefixOfLane(input.lane),
      input.lane,
      input.jobId,
      Date.now(),
      input.supersedeKey ?? '',
      input.done,
      input.endedAttempt?.attemptNumber ?? 0,
      input.endedAttempt?.attemptJson ?? '',
      ...status,
    )) as unknown[];
    const next = String(reply[0] ?? '');
    return next ? { next, nextDelayed: Number(reply[1]) === 1 } : { nextDelayed: false };
  }

  /** Start of a job that has no lane: its done marker, or its earlier attempts after recording this one. */
  async startUnordered(jobId: string, attemptJson: string): Promise<UnorderedStart> {
    const reply = (await this.call(
      'lsStartUnordered',
      keys.job(jobId),
      prefixOfJobId(jobId),
      jobId,
      attemptJson,
    )) as unknown[];
    if (reply[0] === 'done') return { kind: 'done', done: String(reply[1]) };
    return {
      kind: 'go',
      attemptNumber: Number(reply[1]),
      previousAttemptsJson: (reply[2] as string[]) ?? [],
    };
  }

  /** Replaces the record of an attempt of a job; with `done`, also records the job's outcome. */
  async endAttempt(jobId: string, ended: EndedAttempt, done = ''): Promise<void> {
    coalesceWritesThisTick(this.redis);
    await this.call('lsEndAttempt', keys.job(jobId), ended.attemptNumber, ended.attemptJson, done);
  }

  /** Pending job ids of a lane in order (for listings and tests). */
  async pending(lane: string): Promise<string[]> {
    return this.redis.zrange(keys.lanePending(lane), 0, -1);
  }
}

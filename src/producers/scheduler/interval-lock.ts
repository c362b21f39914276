/**
 * One Redis key per scheduled job type that at most one process can take per interval
 * (`SET key owner NX PX interval`), so the fleet enqueues one scheduled job per interval however
 * many schedulers run. Taking the key and reading how long it is still held is one atomic script,
 * so a scheduler that lost the race knows when to try again without polling.
 */
import type { Redis } from 'ioredis';
import { KEY_PREFIX } from '../../jobs/keys.ts';

/** `{longshore}:scheduler:{name}`: shares the `{longshore}` hash tag with every other key. */
export const schedulerKey = (name: string) => `${KEY_PREFIX}:scheduler:${name}`;

/**
 * KEYS[1] the lock; ARGV[1] owner, ARGV[2] interval (ms). Returns {1, interval} when taken, or
 * {0, ms left} when another owner holds it. A key without an expiry (set by hand) is given one,
 * so it can never switch scheduling off for good.
 */
const TAKE = `
local taken = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
if taken then return {1, tonumber(ARGV[2])} end
local left = redis.call('PTTL', KEYS[1])
if left == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  left = tonumber(ARGV[2])
end
return {0, left}
`;

/** KEYS[1] the lock; ARGV[1] owner. Deletes the key only while this owner holds it. */
const GIVE_BACK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export type TakeResult = { taken: true } | { taken: false; heldForMs: number };

/**
 * What the sync scheduler needs of its interval key: IntervalLock below in Redis; tests of the
 * scheduler's timing pass an in-memory one on a manual clock (test/helpers/memory-interval-lock.ts).
 */
export interface IntervalKey {
  readonly key: string;
  /** Takes the key for `intervalMs` unless someone holds it; otherwise says for how much longer. */
  take(intervalMs: number): Promise<TakeResult>;
  /** Frees the key if this owner still holds it. */
  giveBack(): Promise<void>;
}

type ScriptFn = (key: string, ...args: (string | number)[]) => Promise<unknown>;

export class IntervalLock implements IntervalKey {
  readonly key: string;

  constructor(
    private readonly redis: Redis,
    name: string,
    private readonly owner: string,
  ) {
    this.key = schedulerKey(name);
    if (!('lsSchedulerTake' in redis)) redis.defineCommand('lsSchedulerTake', { numberOfKeys: 1, lua: TAKE });
    if (!('lsSchedulerGiveBack' in redis)) {
      redis.defineCommand('lsSchedulerGiveBack', { numberOfKeys: 1, lua: GIVE_BACK });
    }
  }

  private script(name: 'lsSchedulerTake' | 'lsSchedulerGiveBack'): ScriptFn {
    const fn = (this.redis as unknown as Record<string, ScriptFn>)[name]!;
    return fn.bind(this.redis);
  }

  /** Takes the key for `intervalMs` unless someone holds it. */
  async take(intervalMs: number): Promise<TakeResult> {
    const [taken, left] = (await this.script('lsSchedulerTake')(this.key, this.owner, intervalMs)) as [
      number,
      number,
    ];
    return taken === 1 ? { taken: true } : { taken: false, heldForMs: Math.max(0, Number(left)) };
  }

  /** Gives the key back (when the job could not be enqueued), so the next attempt need not wait. */
  async giveBack(): Promise<void> {
    await this.script('lsSchedulerGiveBack')(this.key, this.owner);
  }
}

/**
 * The sync scheduler's interval key in memory, on a Clock: the semantics of the Redis script in
 * src/producers/scheduler/interval-lock.ts (`SET key owner NX PX interval`, else the PTTL; give
 * back only while still the owner), so scheduler timing tests need neither Redis nor real time.
 * A key is gone the moment its time is up (`now >= expiresAt`). One MemoryIntervalKeys is the
 * shared Redis; `for(owner)` is one scheduler's handle on it.
 */
import type { Clock } from '../../src/core/clock.ts';
import {
  type IntervalKey,
  schedulerKey,
  type TakeResult,
} from '../../src/producers/scheduler/interval-lock.ts';

export class MemoryIntervalKeys {
  private held: { owner: string; expiresAt: number } | undefined;

  constructor(private readonly clock: Clock) {}

  /** Who holds the key now, if anyone. */
  holder(): string | undefined {
    return this.live()?.owner;
  }

  for(owner: string): IntervalKey {
    return {
      key: schedulerKey('sync'),
      take: async (intervalMs: number): Promise<TakeResult> => {
        const now = this.clock.now();
        const held = this.live();
        if (!held) {
          this.held = { owner, expiresAt: now + intervalMs };
          return { taken: true };
        }
        return { taken: false, heldForMs: held.expiresAt - now };
      },
      giveBack: async () => {
        if (this.live()?.owner === owner) this.held = undefined;
      },
    };
  }

  private live(): { owner: string; expiresAt: number } | undefined {
    if (this.held && this.clock.now() >= this.held.expiresAt) this.held = undefined;
    return this.held;
  }
}

/**
 * Whether a scheduler process is ready, for its /readyz (the worker's health server,
 * src/workers/health-server.ts): every scheduler it runs is ticking, and none has failed its last
 * ticks in a row (Redis unreachable). One failed tick is a blip the next tick (5 s later) retries;
 * several in a row take the pod out of readiness so an operator sees it, without restarting it
 * (the liveness probe is /healthz, which only asks whether the process answers).
 */
import type { Readiness } from '../../workers/health-server.ts';

/** Failed ticks in a row after which the process reports not ready. */
export const UNREADY_AFTER_FAILED_TICKS = 3;

interface Ticking {
  readonly job: string;
  readonly running: boolean;
  readonly failingTicks: number;
}

export function schedulerReadiness(schedulers: readonly Ticking[]): Readiness {
  return {
    ready() {
      const stopped = schedulers.find((s) => !s.running);
      if (stopped) return { ok: false, reason: `the ${stopped.job} scheduler is not running` };
      const failing = schedulers.find((s) => s.failingTicks >= UNREADY_AFTER_FAILED_TICKS);
      if (failing)
        return {
          ok: false,
          reason: `the ${failing.job} scheduler's last ${failing.failingTicks} ticks failed (is Redis reachable?)`,
        };
      return { ok: true };
    },
  };
}

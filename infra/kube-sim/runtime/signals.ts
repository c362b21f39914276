/**
 * The signals a simulated process can receive, and how they end it: a process killed by signal N
 * exits with status 128 + N, as a shell reports it and as the kubelet records it (`exitCode: 137`
 * for SIGKILL, 143 for SIGTERM, 130 for Ctrl-C).
 */

export type Signal = 'SIGHUP' | 'SIGINT' | 'SIGKILL' | 'SIGTERM';

export const SIGNAL_NUMBERS: Record<Signal, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

export const signalExitCode = (signal: Signal): number => 128 + SIGNAL_NUMBERS[signal];

/** Thrown through a running command when its process (or its foreground job) gets a signal. */
export class Interrupted extends Error {
  constructor(readonly signal: Signal) {
    super(`interrupted by ${signal}`);
    this.name = 'Interrupted';
  }
}

/** What an aborted signal's reason means for the command that waited on it. */
export function interruption(signal: AbortSignal): Interrupted {
  const reason: unknown = signal.reason;
  return reason instanceof Interrupted ? reason : new Interrupted('SIGINT');
}

/** setTimeout's largest delay; longer sleeps are chained. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * An abortable wait on a real timer (`sleep`); rejects with Interrupted when the signal aborts.
 * The timer is unref'd (a sleeping container never keeps a process alive by itself) and cleared
 * on abort, so a killed process leaves no timer behind. Infinity waits for the signal only.
 */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(interruption(signal));
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      if (timer) clearTimeout(timer);
      reject(interruption(signal));
    };
    const arm = (remaining: number) => {
      if (!Number.isFinite(remaining)) return;
      timer = setTimeout(
        () => {
          if (remaining > MAX_TIMER_MS) arm(remaining - MAX_TIMER_MS);
          else {
            signal.removeEventListener('abort', onAbort);
            resolve();
          }
        },
        Math.min(remaining, MAX_TIMER_MS),
      );
      timer.unref();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    arm(ms);
  });
}

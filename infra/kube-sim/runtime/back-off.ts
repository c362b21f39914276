/**
 * The kubelet's crash-loop back-off (k8s.io/client-go/util/flowcontrol Backoff, as
 * kuberuntime_manager.go doBackOff uses it), with time passed in so it is pure:
 * - the first exit of a container restarts it at once and starts its back-off at the initial
 *   duration (10 s); each later exit within the back-off waits it out (CrashLoopBackOff) and
 *   doubles it, up to the maximum (5 min);
 * - a container that ran longer than twice the maximum since the last back-off starts over.
 * The back-off is measured from the exited container's finishedAt.
 */

export class RestartBackOff {
  private readonly entries = new Map<string, { backOffMs: number; lastUpdate: number }>();

  constructor(
    private readonly initialMs: () => number,
    private readonly maxMs: () => number,
  ) {}

  private expired(eventTime: number, lastUpdate: number): boolean {
    return eventTime - lastUpdate > 2 * this.maxMs();
  }

  /** IsInBackOffSince: the exit at `eventTime` is still inside the back-off. */
  isInBackOffSince(key: string, eventTime: number, now: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.expired(eventTime, entry.lastUpdate)) return false;
    return now - eventTime < entry.backOffMs;
  }

  /** How long from `now` until the back-off of the exit at `eventTime` is over. */
  remainingMs(key: string, eventTime: number, now: number): number {
    const entry = this.entries.get(key);
    return entry ? Math.max(0, entry.backOffMs - (now - eventTime)) : 0;
  }

  /** Next: the container restarts now; the following exit waits longer. */
  next(key: string, eventTime: number, now: number): void {
    const entry = this.entries.get(key);
    if (!entry || this.expired(eventTime, entry.lastUpdate))
      this.entries.set(key, { backOffMs: this.initialMs(), lastUpdate: now });
    else {
      entry.backOffMs = Math.min(entry.backOffMs * 2, this.maxMs());
      entry.lastUpdate = now;
    }
  }

  /** The current back-off of `key` (ms). */
  get(key: string): number {
    return this.entries.get(key)?.backOffMs ?? 0;
  }

  /** Forgets every key starting with `prefix` (a Pod's containers). */
  forget(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}

/** Go's time.Duration String for a whole number of milliseconds: `10s`, `1m20s`, `5m0s`, `100ms`, `1.6s`. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const secondsMs = ms % 60_000;
  const whole = Math.floor(secondsMs / 1000);
  const fraction = String(secondsMs % 1000)
    .padStart(3, '0')
    .replace(/0+$/, '');
  const seconds = `${whole}${fraction ? `.${fraction}` : ''}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}

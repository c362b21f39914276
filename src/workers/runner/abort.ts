/**
 * Why a running handler is stopped (operator cancel, shutdown deadline, lost job lock), and the
 * per-job state that carries it to the handler's AbortSignal.
 */

export type AbortKind = 'shutdown' | 'cancel' | 'lock-lost';

export class JobAbort extends Error {
  constructor(
    readonly kind: AbortKind,
    message: string,
  ) {
    super(message);
    this.name = 'JobAbort';
  }
}

/**
 * Abort state of a running job. The AbortController is created only when the handler asks for its
 * signal: most fast jobs never do, and one controller per job is measurable at thousands of jobs/s.
 */
export class Abortable {
  reason?: JobAbort;
  private controller?: AbortController;

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.reason && !this.controller.signal.aborted) this.controller.abort(this.reason);
    return this.controller.signal;
  }

  abort(reason: JobAbort): boolean {
    if (this.reason) return false;
    this.reason = reason;
    this.controller?.abort(reason);
    return true;
  }
}

/**
 * Named error types shared by every layer. Each carries a stable `code` so the CLI, the worker and
 * the HTTP side can map it to an exit code, a retry decision or a status without string matching.
 */

export abstract class LongshoreError extends Error {
  abstract readonly code: string;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** One problem with one field of some input, named by its path (`set.DATABASE_URL`, `image`). */
export interface FieldIssue {
  path: string;
  message: string;
}

/** Input a person must fix: never retried, never written anywhere. CLI exit code 2. */
export class InvalidInputError extends LongshoreError {
  readonly code = 'INVALID_INPUT';
  constructor(
    readonly issues: FieldIssue[],
    readonly subject = 'input',
  ) {
    super(
      `invalid ${subject}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`,
    );
  }
}

/** The process environment (REDIS_URL, LONGSHORE_SECRET…) is unusable. CLI exit code 2. */
export class ConfigError extends LongshoreError {
  readonly code = 'CONFIG';
}

/** Sealing or unsealing a secret value failed (wrong fleet key, tampered ciphertext). */
export class SealingError extends LongshoreError {
  readonly code = 'SEALING';
}

/** Redis could not be reached or answered with an error the caller cannot fix by changing input. */
export class InfrastructureError extends LongshoreError {
  readonly code = 'INFRASTRUCTURE';
}

/** A job or other named thing does not exist. */
export class NotFoundError extends LongshoreError {
  readonly code = 'NOT_FOUND';
}

/** An operator action was refused because it would do something surprising without `--force`. */
export class RefusedError extends LongshoreError {
  readonly code = 'REFUSED';
}

/**
 * A failure that may pass by itself (API 5xx, 429, timeouts, conflicts). Handlers throw it (or an
 * error classified as transient) to get a jittered, bounded retry. `retryAfterMs` honours a
 * server's Retry-After.
 */
export class TransientError extends LongshoreError {
  readonly code = 'TRANSIENT';
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A failure that will not pass by retrying: the job fails with this reason at once. */
export class PermanentError extends LongshoreError {
  readonly code = 'PERMANENT';
}

/** A worker has no handler registered for a job type it received. */
export class MissingHandlerError extends LongshoreError {
  readonly code = 'MISSING_HANDLER';
}

/** The job was cancelled by an operator while it ran. */
export class CancelledError extends LongshoreError {
  readonly code = 'CANCELLED';
}

/** Waiting on a job (`--wait --timeout`) gave up before the job ended; the job itself goes on. */
export class WaitTimeoutError extends LongshoreError {
  readonly code = 'WAIT_TIMEOUT';
}

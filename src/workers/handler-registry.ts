/**
 * Which handler runs each job type. A worker receiving a type with no registered handler fails the
 * job at once with a message naming the type; there are no placeholder handlers.
 */
import { MissingHandlerError } from '../core/errors.ts';
import type { JobType } from '../jobs/contract.ts';
import type { Handler } from './handler.ts';

export class HandlerRegistry {
  private readonly handlers = new Map<JobType, Handler<never>>();

  register<P>(type: JobType, handler: Handler<P>): this {
    if (this.handlers.has(type)) throw new Error(`a handler for "${type}" is already registered`);
    this.handlers.set(type, handler as Handler<never>);
    return this;
  }

  get(type: JobType): Handler<unknown> {
    const handler = this.handlers.get(type);
    if (!handler) {
      throw new MissingHandlerError(
        `no handler for "${type}" jobs in this worker (handled here: ${this.types().join(', ') || 'none'}); ` +
          'upgrade the worker fleet to a version that handles it',
      );
    }
    return handler as Handler<unknown>;
  }

  types(): JobType[] {
    return [...this.handlers.keys()].sort();
  }
}

/**
 * The handlers this build of the worker runs. Kubernetes handlers (deploy, config, storage…) are
 * registered here as the release engine lands; a job type without one fails with a clear message.
 */
import { HandlerRegistry } from '../handler-registry.ts';
import { syncHandler } from './sync.ts';

export function defaultHandlers(): HandlerRegistry {
  return new HandlerRegistry().register('sync', syncHandler);
}

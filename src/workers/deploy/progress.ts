/**
 * The release engine's progress events, streamed to whoever waits on the job: every event becomes
 * the job's progress (`[progress] app: apply — …`), and the steps a person follows become log
 * lines. Repeated wait events are logged only when their message changes.
 */
import type { ProgressEvent } from '../../releases/index.ts';
import type { HandlerContext } from '../handler.ts';

const LOGGED_STEPS = new Set([
  'recover',
  'noop',
  'revision',
  'pull-secrets',
  'wait',
  'finish',
  'failed',
  'rollback',
  'uninstall',
]);

export interface Forwarder {
  listener: (event: ProgressEvent) => void;
  /** Resolves once every event so far reached the job (call before logging the outcome). */
  flush(): Promise<void>;
}

export function progressForwarder(ctx: HandlerContext<unknown>, label: string): Forwarder {
  let lastWait = '';
  let chain = Promise.resolve();
  const listener = (event: ProgressEvent) => {
    const step = `${label}: ${event.step}`;
    chain = chain
      .then(async () => {
        await ctx.progress({
          step,
          message: event.message,
          ...(event.percent !== undefined ? { percent: event.percent } : {}),
        });
        if (!LOGGED_STEPS.has(event.step)) return;
        if (event.step === 'wait') {
          if (event.message === lastWait) return;
          lastWait = event.message;
        }
        await ctx.log(`${label}: ${event.message}`);
      })
      .catch(() => undefined);
  };
  return { listener, flush: () => chain };
}

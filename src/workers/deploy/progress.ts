/**
 * The release engine's progress events, turned into the job's stream (src/jobs/stream-events.ts):
 * the steps a person follows become detail lines (`shop: revision 3 deployed`), and a rollout's
 * `wait` events become `rollout` events with every Deployment's counts, written when the counts
 * change. Other waits (claims binding, objects being deleted) are details when their message
 * changes. Nothing here writes the job's progress value: the handler's steps do, once each.
 */
import { deploymentName } from '../../../charts/index.ts';
import type { RolloutCounts } from '../../jobs/stream-events.ts';
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

export interface ForwarderOptions {
  /** The process type a Deployment runs (`shop-web` → `web`), for the rollout line. */
  processOf?(deployment: string): string | undefined;
  /** The step header written when the engine starts waiting (`Rolling out shop (revision 3)`). */
  waitStep?(revision: number | undefined): string;
}

export function progressForwarder(
  ctx: HandlerContext<unknown>,
  label: string,
  options: ForwarderOptions = {},
): Forwarder {
  let lastWait = '';
  let lastRollout = '';
  let waitStepped = false;
  let chain = Promise.resolve();
  const listener = (event: ProgressEvent) => {
    if (!LOGGED_STEPS.has(event.step)) return;
    chain = chain
      .then(async () => {
        if (event.step === 'wait' && options.waitStep && !waitStepped) {
          waitStepped = true;
          await ctx.step(options.waitStep(event.revision));
        }
        if (event.step === 'wait' && event.rollouts) {
          const deployments = event.rollouts.map((r): RolloutCounts => {
            const process = options.processOf?.(r.name);
            return {
              name: r.name,
              ...(process ? { process } : {}),
              desired: r.desired,
              updated: r.updated,
              ready: r.ready,
              available: r.available,
            };
          });
          const counts = JSON.stringify(deployments);
          if (counts === lastRollout) return;
          lastRollout = counts;
          await ctx.rollout({ release: label, deployments });
          return;
        }
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

/**
 * The forwarder options of an app release: its Deployments named by process type, and a
 * `Rolling out {app} (revision N)` step when the rollout wait starts.
 */
export function appReleaseForwarding(app: string, processTypes: readonly string[]): ForwarderOptions {
  const processOf = new Map(processTypes.map((type) => [deploymentName(app, type), type]));
  return {
    processOf: (name) => processOf.get(name),
    waitStep: (revision) => `Rolling out ${app}${revision !== undefined ? ` (revision ${revision})` : ''}`,
  };
}

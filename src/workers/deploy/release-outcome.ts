/**
 * Honest failure states of an app job's releases (issue 11, case 6):
 * - what an interrupted release revision is left as: pending for the job's retry while attempts
 *   remain, `failed` when the job gives up (its last attempt) or is cancelled — never `pending-*`
 *   with nobody coming back for it;
 * - what the status projection says about the app release afterwards: the deployed revision and,
 *   while no later change deployed, the failed one (`apps:status`).
 */
import type { ReleaseReport } from '../../jobs/status.ts';
import { type InterruptDecision, rollbackTargetOf } from '../../releases/index.ts';
import type { ReleaseHistoryReader } from '../../storage/release-history.ts';
import { classifyError } from '../failure.ts';
import type { HandlerContext } from '../handler.ts';

/**
 * The engine's `onInterrupt` for this job, by the job runner's own rule: a cancel fails the job
 * (restore the deployed revision); a shutdown or a lost lock hands the job on (keep the revision
 * pending for whoever runs it next); otherwise a transient error with attempts left is retried,
 * and anything else ends the job.
 */
export function interruptDecision(ctx: HandlerContext<unknown>): (err: unknown) => InterruptDecision {
  return (err) => {
    if (ctx.cancelled) return 'cancel';
    if (ctx.signal.aborted) return 'retry';
    return ctx.finalAttempt || !classifyError(err).transient ? 'give-up' : 'retry';
  };
}

/**
 * The app release as history shows it: the deployed revision (with its image) and the last change
 * when it failed. A change is any revision but a rollback, so a failure restored by
 * rollback-on-failure (or a cancel) is still shown next to the revision that restored it, until a
 * later change deploys.
 */
export async function releaseReport(
  store: ReleaseHistoryReader,
  release: string,
  deployedImage?: string,
): Promise<ReleaseReport> {
  const history = store.history(release);
  const report: ReleaseReport = {};
  const deployed = store.deployed(release);
  if (deployed) {
    const rollbackTo = rollbackTargetOf(deployed);
    const image = deployedImage ?? (await imageOf(store, release, deployed.revision));
    report.deployed = {
      revision: deployed.revision,
      ...(image ? { image } : {}),
      ...(rollbackTo !== undefined ? { rollbackTo } : {}),
    };
  }
  const lastChange = [...history].reverse().find((r) => rollbackTargetOf(r) === undefined);
  report.failed =
    lastChange?.status === 'failed'
      ? { revision: lastChange.revision, reason: lastChange.description }
      : null;
  return report;
}

async function imageOf(
  store: ReleaseHistoryReader,
  release: string,
  revision: number,
): Promise<string | undefined> {
  try {
    const content = await store.read(release, revision);
    const image = (content.values as { image?: unknown }).image;
    return typeof image === 'string' ? image : undefined;
  } catch {
    // The report must never hide the job's own outcome: without the image, it says the revision only.
    return undefined;
  }
}

/** How a job's log line names an upgrade's outcome. */
export function outcomeText(outcome: 'noop' | 'repaired' | 'deployed', revision: number): string {
  if (outcome === 'noop') return `unchanged (revision ${revision})`;
  if (outcome === 'repaired') return `drift repaired (revision ${revision})`;
  return `revision ${revision} deployed`;
}

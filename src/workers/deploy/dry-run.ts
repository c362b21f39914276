/**
 * The deploy pipeline's dry run (HandlerContext.dryRun): every check and render of a real run, then
 * each release planned by the engine (engine.plan, engine.planUninstall) in place of its write, and
 * the plans returned as the job's result. What a dry run never does: create the namespace, write a
 * release (history or objects), save the spec, record the process types, catch up with a fleet
 * credential rotation, report a revision to the status projection (docs/releases.md, "Dry runs").
 *
 * The result holds no Secret value: a Secret's keys are listed with `added`/`changed`/`removed`,
 * compared by digest (src/releases/object-diff.ts), so it may be kept in Redis as any result.
 */
import type * as k8s from '@kubernetes/client-node';
import type { DryRunOutcome } from '../../jobs/schemas/dry-run.ts';
import { isNotFound } from '../../kube/errors.ts';
import { withKubeRetry } from '../../kube/retry.ts';
import type { PlannedObject, ReleasePlan } from '../../releases/index.ts';
import type { HandlerResult } from '../handler.ts';

/** What a dry-run job returns (also what `--dry-run --json` prints as the job's result). */
export interface DryRunResult extends HandlerResult {
  summary: string;
  dryRun: true;
  /** The app's namespace, when the real job would create it. */
  namespace?: { name: string; action: 'create' };
  releases: ReleasePlan[];
}

/** Whether the namespace is missing (a real run would create it): one GET, as ensureNamespace's. */
export async function namespaceMissing(core: k8s.CoreV1Api, name: string): Promise<boolean> {
  return withKubeRetry(`read Namespace ${name}`, async () => {
    try {
      await core.readNamespace({ name });
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  });
}

/** The job's result: the plans, and a summary line counting what each action would touch. */
export function dryRunResult(what: string, releases: ReleasePlan[], namespace?: string): DryRunResult {
  return {
    summary: `dry run of ${what}: ${countActions(releases.flatMap((r) => r.objects))}; nothing was written`,
    dryRun: true,
    ...(namespace ? { namespace: { name: namespace, action: 'create' } } : {}),
    releases,
  } satisfies DryRunOutcome;
}

/** `1 to create, 2 to update, 1 to delete, 9 unchanged` (actions with no object left out). */
export function countActions(objects: readonly PlannedObject[]): string {
  const count = (action: PlannedObject['action']) => objects.filter((o) => o.action === action).length;
  const parts = [
    [count('create'), 'to create'],
    [count('update'), 'to update'],
    [count('delete'), 'to delete'],
    [count('unchanged'), 'unchanged'],
  ] as const;
  const shown = parts.filter(([n]) => n > 0).map(([n, label]) => `${n} ${label}`);
  return shown.length > 0 ? shown.join(', ') : 'no objects';
}

/** The log line of one planned release, as the real run logs its outcome. */
export function planLine(plan: ReleasePlan): string {
  if (plan.uninstall) return `${plan.release}: would be uninstalled (${countActions(plan.objects)})`;
  const revision = plan.newRevision
    ? `a new revision${plan.deployedRevision !== undefined ? ` after ${plan.deployedRevision}` : ''}`
    : `no new revision (revision ${plan.deployedRevision} stays)`;
  return `${plan.release}: ${countActions(plan.objects)}; ${revision}`;
}

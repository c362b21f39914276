/**
 * `--dry-run` on the app-job commands: the job is enqueued as a `dry-run` job standing for it
 * (src/jobs/schemas/dry-run.ts), in the app's lane, waited for (a dry run's answer is its result),
 * and its plan printed: per release, `+ create`, `~ update` with the diff of the fields longshore
 * owns (Secret values only as `KEY: (changed)`), `- delete`, and a count of the unchanged objects.
 * `--json` prints the job with the plan as its `result`.
 *
 * Commands whose job has no dry run take the option too, and refuse it before anything is
 * enqueued, saying why (NO_DRY_RUN), rather than failing on an unknown option.
 */
import type { Redis } from 'ioredis';
import { InvalidInputError } from '../../core/errors.ts';
import { isPlannable, PLANNABLE_TYPES } from '../../jobs/plannable.ts';
import type { DryRunOutcome } from '../../jobs/schemas/dry-run.ts';
import { type CommonOptions, type Output, type ResultView, submit } from './runtime.ts';

export interface DryRunOptions extends CommonOptions {
  dryRun?: boolean;
}

/** Why a job type has no dry run, for the refusal. */
const NO_DRY_RUN: Record<string, string> = {
  rename:
    'a rename installs the app under its new name and removes the old releases; `deploy NEW --dry-run` after it shows the new app',
  rollback:
    'a rollback restores a stored revision as it was; `releases APP` lists the revisions and what each deployed',
};

/** The `--dry-run` option of the app-job commands (`.option(...DRY_RUN_OPTION)`). */
export const DRY_RUN_OPTION = [
  '--dry-run',
  'show what the job would change (per object: create, update with a diff, delete, unchanged) and change nothing; implies --wait',
] as const;

/** `submit`, or with --dry-run the dry run of the same job, its plan printed. */
export function submitAppJob(
  type: string,
  payload: unknown,
  options: DryRunOptions,
  precheck?: (redis: Redis) => Promise<void>,
): Promise<number> {
  const { dryRun, ...rest } = options;
  if (!dryRun) return submit(type, payload, rest, precheck);
  if (!isPlannable(type)) {
    const why = NO_DRY_RUN[type] ?? 'it is not an app change the deploy pipeline makes';
    throw new InvalidInputError([
      {
        path: '--dry-run',
        message: `${type} jobs have no dry run: ${why} (dry runs exist for: ${PLANNABLE_TYPES.join(', ')})`,
      },
    ]);
  }
  return submit('dry-run', { type, payload }, { ...rest, wait: true }, precheck, planView);
}

type PlanResult = Partial<DryRunOutcome>;
type ReleasePlan = DryRunOutcome['releases'][number];
type PlannedObject = ReleasePlan['objects'][number];

export const planView: ResultView = {
  enrich: async (result) => result,
  print: (result: unknown, output: Output) => {
    for (const line of formatPlan(result as PlanResult)) output.out(line);
  },
};

/** The plan as a person reads it (pure, for tests). */
export function formatPlan(result: PlanResult): string[] {
  const lines: string[] = [];
  if (result.namespace) lines.push(`+ create Namespace/${result.namespace.name}`);
  for (const plan of result.releases ?? []) {
    lines.push(`${plan.release} (${revisionNote(plan)})`);
    let unchanged = 0;
    for (const object of plan.objects) {
      if (object.action === 'unchanged') unchanged++;
      else lines.push(...objectLines(object));
    }
    if (unchanged > 0) lines.push(`  = ${unchanged} unchanged`);
    if (plan.objects.length === 0) lines.push('  (no live objects)');
  }
  if (result.summary) lines.push(result.summary);
  return lines;
}

function revisionNote(plan: ReleasePlan): string {
  if (plan.uninstall) return 'uninstall: its history goes too';
  if (!plan.newRevision) return `no new revision; revision ${plan.deployedRevision} stays`;
  return plan.deployedRevision === undefined
    ? 'install: revision 1'
    : `new revision after ${plan.deployedRevision}`;
}

const SIGN: Record<PlannedObject['action'], string> = {
  create: '+ create',
  update: '~ update',
  delete: '- delete',
  unchanged: '= unchanged',
};

function objectLines(object: PlannedObject): string[] {
  const where = object.namespace ? ` (namespace ${object.namespace})` : '';
  const lines = [`  ${SIGN[object.action]} ${object.kind}/${object.name}${where}`];
  if (object.note) lines.push(`      # ${object.note}`);
  for (const [key, change] of Object.entries(object.values ?? {})) lines.push(`      ${key}: (${change})`);
  if (object.diff) for (const line of object.diff.replace(/\n$/, '').split('\n')) lines.push(`      ${line}`);
  return lines;
}

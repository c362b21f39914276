/**
 * `dry-run`: an app job (`deploy --dry-run`, `config:set --dry-run`, …) run to see what it would
 * change, and changing nothing. The payload is the job it stands for, `{ type, payload }`, the
 * inner payload validated by that job's own contract: one wrapper instead of a `dryRun` field in
 * every app job's schema, and the ordering keys of real jobs never see a dry run as one of them.
 *
 * Why a job type of its own rather than a flag on the real job (docs/releases.md, "Dry runs"):
 * - it runs in the inner job's lane (and holds its barrier lane: a dry-run mount waits for the
 *   entry's earlier jobs), so it sees what every job enqueued before it did;
 * - it carries no supersede key and its BullMQ job name is not the inner type's, so it never
 *   supersedes a real job nor is superseded by one; and it is not a type a supersession walk
 *   passes (PASSABLE_TYPES, contracts.ts), so a deploy queued before it is never skipped in favour
 *   of one queued after it — the plan then shows the state the lane has at its place;
 * - neutral (NEUTRAL_JOB_TYPES, contract.ts): it is not newer work a retry of an older change must not undo, and its
 *   success records no `change` in the status projection; its handler reports no revision or image.
 *
 * Which jobs have a dry run: the app jobs that go through the deploy pipeline, and destroy (all
 * deletes). rename, rollback, run, logs, registry and storage jobs do not: the CLI refuses
 * `--dry-run` for them before enqueueing, and so does this schema.
 */
import { z } from 'zod';
import { defineContract, type JobContract, type JobType } from '../contract.ts';
import { isPlannable, PLANNABLE_TYPES, type PlannableType } from '../plannable.ts';
import { configContract } from './config.ts';
import { deployContract } from './deploy.ts';
import { destroyContract } from './destroy.ts';
import { domainsContract } from './domains.ts';
import { metadataContract } from './metadata.ts';
import { mountsContract } from './mounts.ts';
import { portsContract } from './ports.ts';
import { propertiesContract } from './properties.ts';
import { psContract } from './ps.ts';
import { resourcesContract } from './resources.ts';
import { scaleContract } from './scale.ts';

/** The contract of every job type a dry run can stand for (plannable.ts lists them). */
const PLANNABLE: Record<PlannableType, { type: JobType }> = {
  deploy: deployContract,
  config: configContract,
  scale: scaleContract,
  domains: domainsContract,
  ports: portsContract,
  properties: propertiesContract,
  mounts: mountsContract,
  ps: psContract,
  resources: resourcesContract,
  metadata: metadataContract,
  destroy: destroyContract,
};

function contractOf(type: PlannableType): JobContract<unknown> {
  return PLANNABLE[type] as unknown as JobContract<unknown>;
}

export const dryRunPayload = z
  .object({
    type: z.string({ error: 'is required (the job type to dry-run)' }).refine(isPlannable, {
      message: `has no dry run (dry runs exist for: ${PLANNABLE_TYPES.join(', ')})`,
    }),
    payload: z.unknown(),
  })
  .strict()
  .transform((job, ctx) => {
    const type = job.type as PlannableType;
    const parsed = contractOf(type).payload.safeParse(job.payload);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        ctx.addIssue({ code: 'custom', path: ['payload', ...issue.path], message: issue.message });
      return z.NEVER;
    }
    return { type, payload: parsed.data };
  });

export type DryRunPayload = z.output<typeof dryRunPayload>;

export const dryRunContract = defineContract<DryRunPayload>({
  type: 'dry-run',
  summary:
    'Show what an app job would change (per object: create, update with a diff, delete, unchanged); writes nothing',
  payload: dryRunPayload as unknown as z.ZodType<DryRunPayload>,
  lane: (p) => contractOf(p.type).lane(p.payload),
  barrierLane: (p) => contractOf(p.type).barrierLane?.(p.payload),
  app: (p) => contractOf(p.type).app(p.payload),
  describe: (p) => `dry run: ${contractOf(p.type).describe(p.payload)}`,
});

/**
 * What a dry-run job returns as its result, for the CLI that prints it (the worker builds it from
 * the engine's plans, src/workers/deploy/dry-run.ts). Holds no Secret value.
 */
export interface DryRunOutcome {
  summary: string;
  dryRun: true;
  /** The app's namespace, when the real job would create it. */
  namespace?: { name: string; action: 'create' };
  releases: {
    release: string;
    /** The deployed revision compared with (absent: not installed). */
    deployedRevision?: number;
    /** Whether the real job would make a new revision of this release. */
    newRevision: boolean;
    /** An uninstall: every object goes, with the history. */
    uninstall?: true;
    objects: {
      apiVersion: string;
      kind: string;
      name: string;
      namespace?: string;
      action: 'create' | 'update' | 'delete' | 'unchanged';
      /** Unified diff of the owned fields' YAML, live → rendered (never Secret values). */
      diff?: string;
      /** Secrets: the keys whose value would be added, changed or removed. */
      values?: Record<string, 'added' | 'changed' | 'removed'>;
      note?: string;
    }[];
  }[];
}

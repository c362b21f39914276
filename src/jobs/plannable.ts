/**
 * The job types a dry run can stand for (src/jobs/schemas/dry-run.ts holds their contracts): the
 * app jobs that go through the deploy pipeline, and destroy. A plain list, so the CLI can refuse
 * `--dry-run` on other jobs without loading any schema.
 */
import type { JobType } from './contract.ts';

export const PLANNABLE_TYPES = [
  'deploy',
  'config',
  'scale',
  'domains',
  'ports',
  'properties',
  'mounts',
  'ps',
  'resources',
  'metadata',
  'destroy',
] as const satisfies readonly JobType[];

export type PlannableType = (typeof PLANNABLE_TYPES)[number];

export function isPlannable(type: string): type is PlannableType {
  return (PLANNABLE_TYPES as readonly string[]).includes(type);
}

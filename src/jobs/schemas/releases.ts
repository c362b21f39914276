/**
 * `releases`: a read job whose return value is the app release's history (the CLI holds no cluster
 * credentials; see docs/apps.md, "releases"). It orders nothing, so it runs at once, beside a
 * deploy of the same app, and reads history from the worker's cache.
 */
import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName } from './common.ts';

export const releasesPayload = z.object({ app: appName }).strict();

export type ReleasesPayload = z.infer<typeof releasesPayload>;

export const releasesContract = defineContract<ReleasesPayload>({
  type: 'releases',
  summary: "List an app release's history (revision, status, image, change, when, job)",
  payload: releasesPayload,
  lane: () => undefined,
  app: (p) => p.app,
  describe: (p) => `releases ${p.app}`,
});

/** One revision as the `releases` job returns it. */
export interface ReleaseEntry {
  revision: number;
  status: string;
  image?: string;
  /** What changed: the job's description (`deployed nginx:1.27`, `Rollback to 1`). */
  change: string;
  /** When the revision was last written (its status set), ISO 8601. */
  at: string;
  createdAt: string;
  /** The job that made the revision (its id); absent for revisions written outside a job. */
  job?: string;
  /** Whether the revision records the spec it was made from (a rollback target needs it). */
  rollbackable: boolean;
}

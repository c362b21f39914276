/**
 * What `prune` removes, decided from plain data (no cluster, no clock): run Jobs past their TTL,
 * releases whose app record is gone, app records with no release left. The handler
 * (src/workers/handlers/prune.ts) gathers the data and does the deleting; the rules are here so
 * they are tested on their own (test/unit/workers/prune-plan.test.ts) and documented once
 * (docs/apps.md, "prune").
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { RUN_JOB_LABEL, RUN_JOB_VALUE } from '../../../charts/index.ts';
import { MANAGED_BY, MANAGED_BY_LABEL } from '../../releases/objects.ts';
import type { AppRecord } from '../../storage/app-records.ts';
import type { RevisionInfo } from '../../storage/index.ts';

/** Selector of longshore's run Jobs (labelled by their builder, charts/app/run-job.ts). */
export const RUN_JOB_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY},${RUN_JOB_LABEL}=${RUN_JOB_VALUE}`;
export const PART_OF_LABEL = 'app.kubernetes.io/part-of';

/** Only what longshore labelled as its own is ever touched by prune. */
export function isManaged(object: KubernetesObject | undefined): boolean {
  return object?.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY;
}

interface JobLike extends KubernetesObject {
  spec?: { ttlSecondsAfterFinished?: number | null };
  status?: {
    completionTime?: Date | string | null;
    conditions?: { type?: string; status?: string; lastTransitionTime?: Date | string | null }[] | null;
  };
}

/** When a Job finished (its Complete or Failed condition turned True), or undefined while it runs. */
export function finishedAt(job: JobLike): number | undefined {
  const done = (job.status?.conditions ?? []).find(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
  if (!done) return undefined;
  const at = done.lastTransitionTime ?? job.status?.completionTime;
  const ms = at ? new Date(at).getTime() : Number.NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Run Jobs (managed-by longshore and `longshore.dev/job=run`, optionally of one app) that
 * finished at least their `ttlSecondsAfterFinished` ago: what the cluster's TTL controller should
 * have deleted (it may be off, or lagging). A Job without a TTL, or still running, is kept.
 */
export function expiredRunJobs<J extends JobLike>(jobs: readonly J[], nowMs: number, app?: string): J[] {
  return jobs.filter((job) => {
    const labels = job.metadata?.labels ?? {};
    if (!isManaged(job) || labels[RUN_JOB_LABEL] !== RUN_JOB_VALUE) return false;
    if (app !== undefined && labels[PART_OF_LABEL] !== app) return false;
    if (job.metadata?.deletionTimestamp) return false;
    const ttl = job.spec?.ttlSecondsAfterFinished;
    if (ttl === undefined || ttl === null) return false;
    const finished = finishedAt(job);
    return finished !== undefined && nowMs >= finished + ttl * 1000;
  });
}

export interface GoneApps {
  /** Releases whose app has no record (the garbage collector has not removed them yet, or cannot). */
  releases: { release: string; app: string }[];
  /** App records that no release belongs to any more, older than the grace. */
  records: string[];
}

/**
 * Apps that no longer exist. The app record owns every release Secret of its app and is created
 * before the first one, so:
 * - a release whose app has no record lost it (destroyed, GC lag): its history goes;
 * - a record with no release at all and no saved spec is left by a first deploy that stopped
 *   between the record and the first revision; it goes once it is older than `graceMs` (a first
 *   deploy in flight creates its revision within seconds). A record that holds a spec (readable or
 *   not) is an app configured before its first deploy (domains, ports, scale… accepted then write
 *   only the spec): it is kept, however old.
 * `app` narrows both to one app.
 */
export function goneApps(input: {
  records: readonly AppRecord[];
  /** Every release and the newest revision's info (its `app`). */
  releases: readonly { release: string; last: RevisionInfo | undefined }[];
  nowMs: number;
  graceMs: number;
  app?: string;
}): GoneApps {
  const recorded = new Set(input.records.map((r) => r.app));
  const withReleases = new Set<string>();
  const releases: GoneApps['releases'] = [];
  for (const { release, last } of input.releases) {
    if (!last) continue;
    withReleases.add(last.app);
    if (input.app !== undefined && last.app !== input.app) continue;
    if (!recorded.has(last.app)) releases.push({ release, app: last.app });
  }
  const records = input.records
    .filter((r) => input.app === undefined || r.app === input.app)
    .filter((r) => !withReleases.has(r.app))
    .filter((r) => r.spec === undefined && r.unreadableSpec === undefined)
    .filter((r) => {
      const created = new Date(r.createdAt).getTime();
      return Number.isFinite(created) && input.nowMs - created >= input.graceMs;
    })
    .map((r) => r.app);
  return { releases, records };
}

/**
 * The expected state of the fleet after a chaos run: the succeeded jobs of each app applied in
 * lane order to a small model of an app (image, replicas per process type, env, domains), keyed by
 * the app's current name. Deliberately simple and independent of src/apps/: it restates the
 * documented rules (docs/apps.md) a user relies on, so a product bug shows as a difference.
 *
 * Lane order is the driver's enqueue order per app: an app's jobs are FIFO in its lane, and the
 * jobs for a rename's new name wait for the rename (its barrier lane, docs/ordering.md "Barriers").
 * A superseded deploy did nothing; the deploy that superseded it carries the change (the driver's
 * deploys carry only an image and a process set, which the later one replaces anyway).
 *
 * Storage (docs/apps.md, "Storage", "Destroy", "Rename"): an entry exists once its
 * `storage-create` succeeded; a succeeded mount puts it at its path into every process of the app
 * (a mount of an entry that does not exist is refused, so one that succeeded is impossible), an
 * unmount takes it out; mounts are part of the spec, so they survive deploys and move with a
 * rename; a destroy empties the spec, and with `--with-storage` the entries the app mounted are to
 * be destroyed by the `storage-destroy` jobs it enqueues (the checks read how those ended). A
 * `run` changes nothing the model holds; the checks look at its own result.
 */
import type { PlannedJob } from './plan.ts';

export interface ModelApp {
  /** Absent until a deploy succeeded: a config or domains job alone makes a record, no workload. */
  image?: string;
  processes: Record<string, number>;
  env: Record<string, string>;
  domains: string[];
  /** Mounted storage entries and their path (every process: the driver never names one). */
  mounts: Record<string, string>;
}

export interface ModelEntry {
  exists: boolean;
  /** The plan index of a succeeded `destroy --with-storage` of the app that mounted it. */
  destroyedBy?: number;
}

export type Outcome = 'completed' | 'superseded' | 'failed';

export interface ModelResult {
  apps: Map<string, ModelApp>;
  /** Every entry a succeeded storage-create made. */
  entries: Map<string, ModelEntry>;
  /** Succeeded jobs the model says could not have (a scale of a type the app lacks…). */
  impossible: string[];
}

/** Dokku starts one `web` and no other process (src/apps/mutations.ts defaultReplicas). */
const firstReplicas = (type: string) => (type === 'web' ? 1 : 0);

const empty = (): ModelApp => ({ processes: {}, env: {}, domains: [], mounts: {} });

export function expectedState(jobs: PlannedJob[], outcomes: Outcome[]): ModelResult {
  const apps = new Map<string, ModelApp>();
  const impossible: string[] = [];
  const entries = new Map<string, ModelEntry>();
  jobs.forEach((job, i) => {
    if (outcomes[i] !== 'completed') return;
    const app = apps.get(job.app);
    switch (job.type) {
      case 'deploy': {
        const next = app ?? empty();
        const types = job.withWorker ? ['web', 'worker'] : ['web'];
        next.processes = Object.fromEntries(types.map((t) => [t, next.processes[t] ?? firstReplicas(t)]));
        next.image = job.image;
        apps.set(job.app, next);
        return;
      }
      case 'config': {
        const next = app ?? empty();
        for (const key of job.unset) delete next.env[key];
        Object.assign(next.env, job.set);
        apps.set(job.app, next);
        return;
      }
      case 'scale': {
        const unknown = Object.keys(job.processes).filter((t) => app?.processes[t] === undefined);
        if (!app || unknown.length > 0) {
          impossible.push(
            `job ${i} (scale ${job.app} ${unknown.join(',')}) succeeded on types the app lacks`,
          );
          return;
        }
        Object.assign(app.processes, job.processes);
        return;
      }
      case 'domains': {
        const next = app ?? empty();
        const current = new Set(next.domains);
        if (job.action === 'add') for (const d of job.domains) current.add(d);
        if (job.action === 'remove') for (const d of job.domains) current.delete(d);
        next.domains =
          job.action === 'set' ? [...new Set(job.domains)] : job.action === 'clear' ? [] : [...current];
        next.domains.sort();
        apps.set(job.app, next);
        return;
      }
      case 'rename':
        if (!app || apps.has(job.newName)) {
          impossible.push(
            `job ${i} (rename ${job.app} → ${job.newName}) succeeded without the app or onto one`,
          );
          return;
        }
        apps.delete(job.app);
        apps.set(job.newName, app);
        return;
      case 'destroy':
        if (!app) impossible.push(`job ${i} (destroy ${job.app}) succeeded on an app the model lacks`);
        if (app && job.withStorage)
          for (const entry of Object.keys(app.mounts)) entries.set(entry, { exists: true, destroyedBy: i });
        apps.delete(job.app);
        return;
      case 'storage-create':
        entries.set(job.entry, { exists: true });
        return;
      case 'mounts': {
        const next = app ?? empty();
        if (job.action === 'mount') {
          if (!entries.get(job.entry)?.exists) {
            impossible.push(
              `job ${i} (mount ${job.app} ${job.entry}) succeeded, but the model has no entry ${job.entry}`,
            );
            return;
          }
          next.mounts[job.entry] = job.mountPath;
        } else delete next.mounts[job.entry];
        apps.set(job.app, next);
        return;
      }
      case 'run':
        return;
    }
  });
  return { apps, entries, impossible };
}

/** Every name the plan uses: each must end as the model says, present or gone. */
export function namesOf(jobs: PlannedJob[]): string[] {
  const names = new Set<string>();
  for (const job of jobs) {
    names.add(job.app);
    if (job.type === 'rename') names.add(job.newName);
  }
  return [...names].sort();
}

/** Every storage entry the plan creates. */
export function entriesOf(jobs: PlannedJob[]): string[] {
  return jobs.flatMap((j) => (j.type === 'storage-create' ? [j.entry] : [])).sort();
}

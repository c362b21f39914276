/**
 * The chaos driver's plan: from a seed, which jobs each app gets, in which order, and when the
 * chaos happens (worker SIGKILLs, the Redis restart). Pure and seeded (test/helpers/prng.ts), so a
 * failing run's seed gives the same plan again; only the timing of the processes differs.
 *
 * The mix per app after its first deploy, by share of the rolls: deploy 13 %, config 22 %, scale
 * 19 %, domains 18 %, rename 8 %, destroy 6 %, storage 9 % (create an entry and mount it, mount an
 * entry the app had before, or unmount one), run 5 %.
 */
import { prng } from '../helpers/prng.ts';

export type PlannedJob =
  | { type: 'deploy'; app: string; image: string; withWorker: boolean }
  | { type: 'config'; app: string; set: Record<string, string>; unset: string[] }
  | { type: 'scale'; app: string; processes: Record<string, number> }
  | { type: 'domains'; app: string; action: 'add' | 'remove' | 'set' | 'clear'; domains: string[] }
  | { type: 'rename'; app: string; newName: string }
  /** `withStorage`: also destroy the storage entries the app mounts (apps:destroy --with-storage). */
  | { type: 'destroy'; app: string; withStorage: boolean }
  /** A new fleet-wide entry, made for `app` (not in its lane: in the entry's, storage.{entry}). */
  | { type: 'storage-create'; app: string; entry: string; size: string }
  /** storage:mount / storage:unmount of an entry at `/data/{entry}`, into every process. */
  | { type: 'mounts'; app: string; action: 'mount' | 'unmount'; entry: string; mountPath: string }
  /** A one-off `run` (no lane): `sh -c 'echo …; exit N'`, followed or detached, maybe with a sealed env value. */
  | { type: 'run'; app: string; exitCode: number; detach: boolean; env: Record<string, string> };

export interface ChaosSize {
  apps: number;
  /** Jobs per app, its first deploy included. */
  jobsPerApp: number;
  /** Worker SIGKILLs during the run (each followed by a restart). */
  kills: number;
  /** Redis SIGKILL + restart on the same data directory (AOF): 0 or 1. */
  redisRestarts: number;
  /** `longshore worker` processes, and the jobs each runs at once. */
  workers: number;
  concurrency: number;
}

export interface ChaosPlan {
  seed: number;
  /** Every job in the order the driver enqueues it (apps interleaved). */
  jobs: PlannedJob[];
  /** After how many enqueued jobs each chaos action happens. */
  kills: number[];
  redisRestartAt: number[];
  /** Every plaintext config value the plan sets: none may appear in Redis or in a log. */
  secrets: string[];
}

/** The job types the driver enqueues (others in the queue the fleet enqueued itself). */
export const PLANNED_TYPES: ReadonlySet<string> = new Set<PlannedJob['type']>([
  'deploy',
  'config',
  'scale',
  'domains',
  'rename',
  'destroy',
  'storage-create',
  'mounts',
  'run',
]);

/** What a run's command prints and exits with: the exit code is the run job's `exitCode`. */
export const runCommand = (job: { exitCode: number }): string[] => [
  'sh',
  '-c',
  `echo chaos run; exit ${job.exitCode}`,
];

/** A run Job's `ttlSecondsAfterFinished`: short, so the cluster deletes it before the checks. */
export const RUN_TTL_SECONDS = 5;

const KEYS = ['DATABASE_URL', 'API_TOKEN', 'GREETING', 'LOG_LEVEL', 'FEATURE_X'];
const DOMAINS = ['www', 'api', 'shop', 'admin'];

export function planChaos(seed: number, size: ChaosSize): ChaosPlan {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const secrets: string[] = [];
  const secret = (app: number, job: number) =>
    `s3cr3t-${seed}-${app}-${job}-${Math.floor(random() * 1e9).toString(36)}`;
  let images = 0;
  const perApp: PlannedJob[][] = [];
  for (let i = 0; i < size.apps; i++) {
    const base = `chaos${i}`;
    let name = base;
    let renames = 0;
    // What the driver believes (it enqueues what a user would: a deploy first, a deploy after a
    // destroy, scale only of types the last deploy declared); jobs may still fail under faults.
    let withWorker = true;
    let live = false;
    // Entries the driver believes the app mounts, and entries of this app that exist unmounted
    // (unmounted, or kept by a destroy without --with-storage); each entry is created once.
    let mounted: string[] = [];
    const kept: string[] = [];
    let entries = 0;
    const jobs: PlannedJob[] = [];
    const mount = (entry: string) => {
      jobs.push({ type: 'mounts', app: name, action: 'mount', entry, mountPath: `/data/${entry}` });
      mounted.push(entry);
    };
    const deploy = () => {
      withWorker = random() < 0.7;
      live = true;
      jobs.push({ type: 'deploy', app: name, image: `registry.example.com/${base}:${++images}`, withWorker });
    };
    deploy();
    while (jobs.length < size.jobsPerApp) {
      if (!live) {
        deploy();
        continue;
      }
      const roll = random();
      if (roll < 0.13) deploy();
      else if (roll < 0.35) {
        const set: Record<string, string> = {};
        const unset: string[] = [];
        for (const key of KEYS) {
          const r = random();
          if (r < 0.3) {
            // A value no other text contains, so a leak is found by plain search.
            const value = secret(i, jobs.length);
            set[key] = value;
            secrets.push(value);
          } else if (r < 0.4) unset.push(key);
        }
        if (Object.keys(set).length === 0 && unset.length === 0) set.GREETING = 'hello';
        jobs.push({ type: 'config', app: name, set, unset });
      } else if (roll < 0.54) {
        const processes: Record<string, number> = { web: Math.floor(random() * 4) };
        if (withWorker && random() < 0.6) processes.worker = Math.floor(random() * 3);
        jobs.push({ type: 'scale', app: name, processes });
      } else if (roll < 0.72) {
        const action = pick(['add', 'add', 'remove', 'set', 'clear'] as const);
        const domains =
          action === 'clear'
            ? []
            : DOMAINS.filter(() => random() < 0.4).map((d) => `${d}.${base}.example.com`);
        if (action !== 'clear' && action !== 'set' && domains.length === 0)
          domains.push(`www.${base}.example.com`);
        jobs.push({ type: 'domains', app: name, action, domains });
      } else if (roll < 0.8) {
        // Mounts go with the app (docs/apps.md, "Rename": the same spec, mounts included).
        const newName = `${base}r${++renames}`;
        jobs.push({ type: 'rename', app: name, newName });
        name = newName;
      } else if (roll < 0.86) {
        const withStorage = mounted.length > 0 && random() < 0.5;
        jobs.push({ type: 'destroy', app: name, withStorage });
        // Without --with-storage the entries outlive the app (docs/apps.md, "Destroy" step 4).
        if (!withStorage) kept.push(...mounted);
        mounted = [];
        live = false;
      } else if (roll < 0.95) {
        const r = random();
        if (mounted.length > 0 && r < 0.35) {
          const entry = pick(mounted);
          jobs.push({ type: 'mounts', app: name, action: 'unmount', entry, mountPath: `/data/${entry}` });
          mounted = mounted.filter((e) => e !== entry);
          kept.push(entry);
        } else if (kept.length > 0 && r < 0.6) {
          mount(kept.splice(Math.floor(random() * kept.length), 1)[0]!);
        } else {
          const entry = `${base}-s${++entries}`;
          jobs.push({ type: 'storage-create', app: name, entry, size: pick(['1Gi', '2Gi', '512Mi']) });
          // A create and its mount need two of the app's jobs; with one left the entry stays unmounted.
          if (jobs.length < size.jobsPerApp) mount(entry);
          else kept.push(entry);
        }
      } else {
        const env: Record<string, string> = {};
        if (random() < 0.3) {
          env.RUN_TOKEN = secret(i, jobs.length);
          secrets.push(env.RUN_TOKEN);
        }
        jobs.push({ type: 'run', app: name, exitCode: pick([0, 0, 3]), detach: random() < 0.3, env });
      }
    }
    perApp.push(jobs);
  }
  // Interleave: each step enqueues the next job of a random app that has one left.
  const jobs: PlannedJob[] = [];
  const next = perApp.map(() => 0);
  while (jobs.length < size.apps * size.jobsPerApp) {
    const open = perApp.map((_, i) => i).filter((i) => next[i]! < perApp[i]!.length);
    const i = pick(open);
    jobs.push(perApp[i]![next[i]!++]!);
  }
  const moment = () => Math.floor(random() * jobs.length * 0.9);
  const kills = Array.from({ length: size.kills }, moment).sort((a, b) => a - b);
  const redisRestartAt = Array.from({ length: size.redisRestarts }, moment);
  return { seed, jobs, kills, redisRestartAt, secrets };
}

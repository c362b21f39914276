/**
 * The chaos driver's plan: from a seed, which jobs each app gets, in which order, and when the
 * chaos happens (worker SIGKILLs, the Redis restart). Pure and seeded (test/helpers/prng.ts), so a
 * failing run's seed gives the same plan again; only the timing of the processes differs.
 */
import { prng } from '../helpers/prng.ts';

export type PlannedJob =
  | { type: 'deploy'; app: string; image: string; withWorker: boolean }
  | { type: 'config'; app: string; set: Record<string, string>; unset: string[] }
  | { type: 'scale'; app: string; processes: Record<string, number> }
  | { type: 'domains'; app: string; action: 'add' | 'remove' | 'set' | 'clear'; domains: string[] }
  | { type: 'rename'; app: string; newName: string }
  | { type: 'destroy'; app: string };

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

const KEYS = ['DATABASE_URL', 'API_TOKEN', 'GREETING', 'LOG_LEVEL', 'FEATURE_X'];
const DOMAINS = ['www', 'api', 'shop', 'admin'];

export function planChaos(seed: number, size: ChaosSize): ChaosPlan {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const secrets: string[] = [];
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
    const jobs: PlannedJob[] = [];
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
      if (roll < 0.15) deploy();
      else if (roll < 0.4) {
        const set: Record<string, string> = {};
        const unset: string[] = [];
        for (const key of KEYS) {
          const r = random();
          if (r < 0.3) {
            // A value no other text contains, so a leak is found by plain search.
            const value = `s3cr3t-${seed}-${i}-${jobs.length}-${Math.floor(random() * 1e9).toString(36)}`;
            set[key] = value;
            secrets.push(value);
          } else if (r < 0.4) unset.push(key);
        }
        if (Object.keys(set).length === 0 && unset.length === 0) set.GREETING = 'hello';
        jobs.push({ type: 'config', app: name, set, unset });
      } else if (roll < 0.62) {
        const processes: Record<string, number> = { web: Math.floor(random() * 4) };
        if (withWorker && random() < 0.6) processes.worker = Math.floor(random() * 3);
        jobs.push({ type: 'scale', app: name, processes });
      } else if (roll < 0.82) {
        const action = pick(['add', 'add', 'remove', 'set', 'clear'] as const);
        const domains =
          action === 'clear'
            ? []
            : DOMAINS.filter(() => random() < 0.4).map((d) => `${d}.${base}.example.com`);
        if (action !== 'clear' && action !== 'set' && domains.length === 0)
          domains.push(`www.${base}.example.com`);
        jobs.push({ type: 'domains', app: name, action, domains });
      } else if (roll < 0.92) {
        const newName = `${base}r${++renames}`;
        jobs.push({ type: 'rename', app: name, newName });
        name = newName;
      } else {
        jobs.push({ type: 'destroy', app: name });
        live = false;
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

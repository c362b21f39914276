/**
 * longshore's deploy of one app against a Dokku-style pipeline of three `helm upgrade --install`
 * runs (issue 6), in the same run, each on its own kube-sim with identical settings (workload
 * controllers on, pods ready after the default `podReadyDelayMs`):
 *
 *   Helm 4 (Dokku's scheduler-k3s "Deploy" steps 6, 7, 9):
 *     helm upgrade --install config-{app}      <chart>  (no wait)
 *     helm upgrade --install pull-secret-{app} <chart>  (no wait)
 *     helm upgrade --install {app}             <chart>  --wait=watcher --timeout 300s
 *   longshore: a `deploy` job enqueued with JobClient on a private redis-server and run by a real
 *     worker process (`bin/longshore.js worker`, KUBECONFIG → the simulator), waited on through
 *     BullMQ QueueEvents. Wall time = enqueue → completion event.
 *
 * The charts Helm gets are plain templates of the very objects longshore renders: the same pure
 * mutations and charts, fed the same job sequence (bench/fixtures/deploy-app.ts). Both systems
 * start from the same cluster state: the app's `config-{app}` release installed (longshore's
 * `config` job, a `helm upgrade --install config-{app}`) and a warm-up app deployed first, so
 * longshore's worker has its informers listed and watching (it is a long-running process) and
 * helm has run against the cluster before.
 *
 *   (1) first deploy   (2) image change (new tag; both wait for the rollout)
 *   (3) unchanged redeploy (same payload again: Helm still runs its three upgrades)
 *
 * Per phase, from each simulator's request log: reads (get/list/watch), writes
 * (create/update/patch/delete), discovery (/api, /apis, /openapi, /version), bytes written
 * (request bodies of writes), bytes received (response bodies, watch streams left out), wall time.
 * `--runs N` (default 3) runs, alternating which system goes first; the median is printed with
 * PASS/FAIL against the issue's targets. The benchmark asserts nothing.
 *
 * Usage: npm run bench -- deploy [--runs N] [--trace]   (--trace: every request of run 1, timed)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { Job, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { defaultControllerSettings } from '../infra/kube-sim/controllers/settings.ts';
import type { RequestRecord } from '../infra/kube-sim/server/request-log.ts';
import { type Sim, type SimOptions, startSim } from '../infra/kube-sim/sim.ts';
import { releaseNames } from '../src/apps/releases.ts';
import { loadFleetConfig } from '../src/core/env.ts';
import { createRedis, waitForRedis } from '../src/core/redis.ts';
import { type PrivateRedis, startPrivateRedis } from '../src/dev/private-redis.ts';
import { JobClient } from '../src/jobs/client.ts';
import { KEY_PREFIX, QUEUE_NAME } from '../src/jobs/keys.ts';
import { Sealer } from '../src/jobs/sealing.ts';
import { deploymentReadiness, RELEASE_LABEL } from '../src/releases/index.ts';
import { SecretReleaseStore } from '../src/storage/index.ts';
import type { ReleaseObject } from '../src/storage/types.ts';
import { type KubeCli, kubeCli } from '../test/helpers/kubectl.ts';
import { deployPayload, HelmApp, type HelmRelease, setupJobs } from './fixtures/deploy-app.ts';
import { int, median, printTable, ratio } from './fixtures/report.ts';
import { type Figures, isWrite, sleep, Windows } from './fixtures/request-windows.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECRET = 'bench-passphrase-bench-passphrase-0123';

/** Both simulators get exactly these settings, so neither system runs on an easier cluster. */
const SIM_OPTIONS: SimOptions = { controllers: true, onControllerError: () => undefined };
const APP = 'shop';
/** Deployed first, unmeasured, on both sides: warms longshore's worker (and helm's first contact). */
const WARMUP = 'warmup';
const APP_TIMEOUT = '300s';

type System = 'helm' | 'longshore';
type Phase = 'first' | 'image' | 'noop';

const PHASES: { phase: Phase; label: string }[] = [
  { phase: 'first', label: '(1) first deploy' },
  { phase: 'image', label: '(2) image change' },
  { phase: 'noop', label: '(3) unchanged redeploy' },
];

const SYSTEM_LABEL: Record<System, string> = {
  helm: 'Helm 4 ×3 (Dokku)',
  longshore: 'longshore',
};

interface Row extends Figures {
  requests: number;
}

const METRICS: (keyof Row)[] = [
  'requests',
  'reads',
  'writes',
  'discovery',
  'bytesWritten',
  'bytesReceived',
  'wallMs',
];
const COUNTS: (keyof Row)[] = ['requests', 'reads', 'writes', 'discovery'];

function parseArgs(argv: string[]): { runs: number; trace: boolean } {
  const i = argv.indexOf('--runs');
  const runs = i >= 0 ? Number(argv[i + 1]) : 3;
  if (!Number.isInteger(runs) || runs <= 0) throw new Error('--runs must be a positive integer');
  return { runs, trace: argv.includes('--trace') };
}

function kubeConfigOf(sim: Sim): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  return kc;
}

// ---------------------------------------------------------------------------------------------
// Helm: three `helm upgrade --install` runs per deploy.

interface HelmStep {
  release: string;
  ms: number;
}

async function helmPipeline(cli: KubeCli, namespace: string, releases: HelmRelease[]): Promise<HelmStep[]> {
  const steps: HelmStep[] = [];
  for (const r of releases) {
    const args = ['upgrade', '--install', r.release, r.dir, '--namespace', namespace];
    if (r.wait) args.push('--wait=watcher', '--timeout', APP_TIMEOUT);
    const t0 = performance.now();
    const result = await cli.helm(args);
    if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed: ${result.stderr.trim()}`);
    steps.push({ release: r.release, ms: performance.now() - t0 });
  }
  return steps;
}

// ---------------------------------------------------------------------------------------------
// longshore: a private redis-server, one worker process, jobs enqueued and awaited.

interface JobOutcome {
  id: string;
  summary: string;
  logs: string[];
  /** Enqueued → picked up by the worker, and the handler's run, from the job's own timestamps. */
  queuedMs: number;
  runMs: number;
}

interface Fleet {
  redis: PrivateRedis;
  worker: ChildProcess;
  client: JobClient;
  events: QueueEvents;
  sealer: Sealer;
  /** Enqueues and waits for completion (throws on failure); `measured` wraps only that. */
  run(
    type: string,
    payload: unknown,
    measured?: (fn: () => Promise<void>) => Promise<void>,
  ): Promise<JobOutcome>;
  stop(): Promise<void>;
}

async function startFleet(sim: Sim, dir: string): Promise<Fleet> {
  const redis = await startPrivateRedis({ appendfsync: 'everysec' });
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, sim.kubeconfig());
  const env = {
    REDIS_URL: redis.url,
    LONGSHORE_SECRET: SECRET,
    KUBECONFIG: kubeconfig,
    LONGSHORE_METRICS_PORT: '0',
    LONGSHORE_METRICS_HOST: '127.0.0.1',
    LONGSHORE_LOG_LEVEL: 'info',
    LONGSHORE_SYNC_INTERVAL_MS: '0',
  };
  const worker = spawn(process.execPath, [`${ROOT}bin/longshore.js`, 'worker'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        output.push(line);
        if (output.length > 200) output.shift();
        if (line.includes('worker started')) resolve();
      }
    };
    worker.stdout!.on('data', onData);
    worker.stderr!.on('data', onData);
    worker.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output.join('\n')}`)));
  });

  const config = loadFleetConfig(env);
  const connection = createRedis(config.redisUrl, 'producer');
  await waitForRedis(connection, config.redisUrl);
  const client = new JobClient(connection, { attempts: config.jobAttempts, backoffMs: config.backoffMs });
  const eventsConnection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const events = new QueueEvents(QUEUE_NAME, { connection: eventsConnection, prefix: KEY_PREFIX });
  await events.waitUntilReady();
  const sealer = new Sealer(SECRET);

  return {
    redis,
    worker,
    client,
    events,
    sealer,
    async run(type, payload, measured = (fn) => fn()) {
      let id = '';
      let result: unknown;
      await measured(async () => {
        const enqueued = await client.enqueue(type, payload, 'bench');
        id = enqueued.id;
        const job = await Job.fromId(client.queue, id);
        if (!job) throw new Error(`job ${id} vanished`);
        result = await job.waitUntilFinished(events, 600_000);
      });
      const job = await Job.fromId(client.queue, id);
      const { logs } = await client.queue.getJobLogs(id, 0, -1, true);
      const summary = (result as { summary?: string } | undefined)?.summary ?? JSON.stringify(result);
      return {
        id,
        summary,
        logs,
        queuedMs: (job?.processedOn ?? 0) - (job?.timestamp ?? 0),
        runMs: (job?.finishedOn ?? 0) - (job?.processedOn ?? 0),
      };
    },
    async stop() {
      await events.close().catch(() => undefined);
      eventsConnection.disconnect();
      await client.close().catch(() => undefined);
      connection.disconnect();
      if (worker.exitCode === null && worker.signalCode === null) {
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        worker.kill('SIGTERM');
        await Promise.race([exited, sleep(20_000)]);
        if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
      }
      await redis.stop();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// One run.

interface RunResult {
  figures: Map<string, Row>;
  /** Requests per window, grouped `verb resource` → count, for "where the requests go". */
  breakdown: Map<string, Map<string, number>>;
  helmSteps: Map<Phase, HelmStep[]>;
  jobs: Map<Phase, JobOutcome>;
  identical: string[];
  /** Per window, every request with its start relative to the window (`--trace`). */
  traces: Map<string, string[]>;
  timelines: Map<string, Timeline>;
}

/** Canonical JSON (sorted keys) of a list of objects, to compare what each system was given. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

function requestKey(r: RequestRecord): string {
  if (r.verb === 'other') return `discovery ${r.path.split('?')[0]!.split('/').slice(0, 2).join('/')}`;
  return `${r.verb} ${r.resource || r.path}${r.subresource ? `/${r.subresource}` : ''}`;
}

/** Compares the objects longshore stored for each release with those Helm was given. */
async function compareObjects(sim: Sim, helmApp: HelmApp): Promise<string[]> {
  const store = new SecretReleaseStore({ kube: kubeConfigOf(sim) });
  await store.start();
  try {
    const expected: [string, ReleaseObject[]][] = [
      [releaseNames.config(APP), helmApp.configObjects()],
      [releaseNames.pullSecret(APP), helmApp.pullSecretObjects()],
      [releaseNames.app(APP), helmApp.appObjects()],
    ];
    const out: string[] = [];
    for (const [release, objects] of expected) {
      const deployed = store.deployed(release);
      const stored = deployed ? (await store.read(release, deployed.revision)).objects : [];
      // The engine labels what it applies with its release; Helm records ownership in annotations.
      const unlabelled = stored.map((o) => {
        const { [RELEASE_LABEL]: _, ...labels } = o.metadata.labels ?? {};
        return { ...o, metadata: { ...o.metadata, labels } };
      });
      // Stored in apply order, rendered in the chart's order: compared as sets.
      const sorted = (list: unknown[]) => list.map(canonical).sort().join('\n');
      const same = sorted(unlabelled) === sorted(objects);
      if (!same && process.env.BENCH_DEBUG)
        console.log(release, canonical(unlabelled), '\n', canonical(objects));
      out.push(`${release} ${objects.length} object(s) ${same ? 'identical' : 'DIFFERENT'}`);
    }
    return out;
  } finally {
    await store.stop();
  }
}

/**
 * When the app's Deployments finished rolling out, seen inside the simulator (its store's events,
 * no API request): the time each became complete (observed generation, every replica updated and
 * available, no old replica left) and has stayed so since.
 */
class RolloutClock {
  private readonly completeSince = new Map<string, number | undefined>();
  private readonly unsubscribe: () => void;

  constructor(sim: Sim, app: string) {
    this.unsubscribe = sim.store.subscribe((event) => {
      if (event.typeKey !== 'apps/deployments') return;
      const d = event.object as unknown as k8s.V1Deployment & { metadata: { name: string } };
      if (d.metadata.labels?.['app.kubernetes.io/part-of'] !== app) return;
      // The engine's own definition of "rolled out" (kubectl's), so both systems are timed alike.
      const complete = event.type !== 'DELETED' && deploymentReadiness(d).state === 'ready';
      const name = d.metadata.name;
      if (!complete) this.completeSince.set(name, undefined);
      else if (this.completeSince.get(name) === undefined) this.completeSince.set(name, Date.now());
    });
  }

  /** When the last Deployment became complete, if that happened after `since`. */
  doneAfter(since: number): number | undefined {
    const times = [...this.completeSince.values()];
    if (times.length === 0 || times.some((t) => t === undefined)) return undefined;
    const last = Math.max(...(times as number[]));
    return last > since ? last : undefined;
  }

  stop(): void {
    this.unsubscribe();
  }
}

interface Timeline {
  /** From the window's start to the first write of a Deployment, ms. */
  applied?: number;
  /** From the window's start to the rollout complete in the simulator, ms. */
  rolledOut?: number;
}

async function runScenario(helmFirst: boolean): Promise<RunResult> {
  const helmSim = await startSim(SIM_OPTIONS);
  const longshoreSim = await startSim(SIM_OPTIONS);
  const cli = await kubeCli(helmSim);
  const dir = mkdtempSync(join(tmpdir(), 'longshore-bench-deploy-'));
  const windows = new Windows<System, Phase>();
  const helmSteps = new Map<Phase, HelmStep[]>();
  const jobs = new Map<Phase, JobOutcome>();
  let identical: string[] = [];
  const clocks: Record<System, RolloutClock> = {
    helm: new RolloutClock(helmSim, APP),
    longshore: new RolloutClock(longshoreSim, APP),
  };
  const rolledOutAt = new Map<string, number | undefined>();
  const measure = async (system: System, phase: Phase, fn: () => Promise<void>) => {
    await windows.measure(system, phase, fn);
    rolledOutAt.set(`${system}/${phase}`, clocks[system].doneAfter(windows.list.at(-1)!.start));
  };
  const fleet = await startFleet(longshoreSim, dir);
  try {
    const helmApp = new HelmApp(APP, join(dir, 'charts', APP));
    const helmWarmup = new HelmApp(WARMUP, join(dir, 'charts', WARMUP));

    // Set-up, unmeasured: the same cluster state on both sides before the first deploy.
    for (const app of [WARMUP, APP]) {
      for (const job of setupJobs(app, fleet.sealer)) await fleet.run(job.type, job.payload);
    }
    for (const h of [helmWarmup, helmApp]) await helmPipeline(cli, h.namespace, [h.writeConfig()]);
    // The warm-up app goes through the three kinds of deploy the phases measure, so every informer a
    // long-running worker has (release storage, live objects of each kind) is listed and watching.
    const warmups = [
      deployPayload(WARMUP, '1.0.0', 'a'.repeat(40), fleet.sealer),
      deployPayload(WARMUP, '1.0.1', 'b'.repeat(40)),
      deployPayload(WARMUP, '1.0.1', 'b'.repeat(40)),
    ];
    for (const payload of warmups) {
      await fleet.run('deploy', payload);
      await helmPipeline(cli, helmWarmup.namespace, helmWarmup.deploy(payload));
    }

    const both = async (phase: Phase, payload: (sealer?: Sealer) => ReturnType<typeof deployPayload>) => {
      await Promise.all([helmSim.settle(), longshoreSim.settle()]);
      const steps: [System, () => Promise<void>][] = [
        [
          'helm',
          async () => {
            const releases = helmApp.deploy(payload(fleet.sealer));
            await measure('helm', phase, async () => {
              helmSteps.set(phase, await helmPipeline(cli, helmApp.namespace, releases));
            });
          },
        ],
        [
          'longshore',
          async () => {
            jobs.set(
              phase,
              await fleet.run('deploy', payload(fleet.sealer), (fn) => measure('longshore', phase, fn)),
            );
          },
        ],
      ];
      if (!helmFirst) steps.reverse();
      for (const [, fn] of steps) await fn();
    };

    const v1Sha = '1'.repeat(40);
    const v2Sha = '2'.repeat(40);
    await both('first', (sealer) => deployPayload(APP, '1.0.0', v1Sha, sealer));
    await both('image', () => deployPayload(APP, '1.0.1', v2Sha));
    await both('noop', () => deployPayload(APP, '1.0.1', v2Sha));

    await longshoreSim.settle();
    identical = await compareObjects(longshoreSim, helmApp);
  } finally {
    // Close every watch before reading the logs: the simulator logs a watch when its stream ends.
    await fleet.stop();
    for (const clock of Object.values(clocks)) clock.stop();
    await sleep(200);
  }

  const figures = new Map<string, Row>();
  const breakdown = new Map<string, Map<string, number>>();
  const traces = new Map<string, string[]>();
  const timelines = new Map<string, Timeline>();
  for (const [system, sim] of [
    ['helm', helmSim],
    ['longshore', longshoreSim],
  ] as const) {
    const records = sim.requests.entries();
    const own = windows.of(system);
    for (const [key, f] of own.figures(records))
      figures.set(key, { ...f, requests: f.reads + f.writes + f.discovery });
    for (const w of own.list) {
      const counts = new Map<string, number>();
      const trace: string[] = [];
      for (const r of Windows.inWindow(records, w)) {
        counts.set(requestKey(r), (counts.get(requestKey(r)) ?? 0) + 1);
        trace.push(
          `+${String(Math.round(r.at - r.durationMs - w.start)).padStart(5)} ms ${String(Math.round(r.durationMs)).padStart(4)} ms  ` +
            `${r.verb} ${r.resource || r.path.split('?')[0]}${r.subresource ? `/${r.subresource}` : ''} ` +
            `${r.namespace ?? ''}/${r.name ?? ''} ${r.status} in ${r.bytesIn} out ${r.bytesOut}`,
        );
      }
      const key = `${w.system}/${w.phase}`;
      breakdown.set(key, counts);
      traces.set(key, trace);
      const firstApply = Windows.inWindow(records, w)
        .filter((r) => r.resource === 'apps/deployments' && isWrite(r))
        .map((r) => r.at - r.durationMs)
        .sort((a, b) => a - b)[0];
      const rolled = rolledOutAt.get(key);
      timelines.set(key, {
        ...(firstApply !== undefined ? { applied: firstApply - w.start } : {}),
        ...(rolled !== undefined ? { rolledOut: rolled - w.start } : {}),
      });
    }
  }
  await helmSim.stop();
  await longshoreSim.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(cli.dir, { recursive: true, force: true });
  return { figures, breakdown, helmSteps, jobs, identical, traces, timelines };
}

// ---------------------------------------------------------------------------------------------
// Output.

const ms = (n: number) => (n < 10 ? n.toFixed(1) : Math.round(n).toLocaleString('en-US'));

function formatRow(f: Row): string[] {
  return [
    int(f.requests),
    int(f.reads),
    int(f.writes),
    int(f.discovery),
    int(f.bytesWritten),
    int(f.bytesReceived),
    ms(f.wallMs),
  ];
}

function formatBreakdown(counts: Map<string, number> | undefined): string {
  if (!counts || counts.size === 0) return 'no requests';
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
}

export async function benchDeployPipeline(argv: string[]): Promise<void> {
  const { runs, trace } = parseArgs(argv);
  const settings = defaultControllerSettings();
  console.log(
    `deploy of one app: longshore (deploy job → worker process) vs Dokku-style Helm 4 (three helm upgrade --install), ` +
      `${runs} run(s), median per figure`,
  );
  console.log(
    `app ${APP}: web ×2, worker ×1, one domain with TLS issuer, one cron task, registry credentials, 5 env vars; ` +
      `one kube-sim per system, same settings (controllers on, podReadyDelayMs ${settings.podReadyDelayMs})`,
  );
  console.log(
    `helm: config-${APP}, pull-secret-${APP} without wait, ${APP} with --wait=watcher --timeout ${APP_TIMEOUT}; ` +
      'both start with config-{app} installed and a warm-up app deployed (longshore worker informers warm)',
  );

  const results: RunResult[] = [];
  for (let run = 0; run < runs; run++) {
    const t0 = performance.now();
    results.push(await runScenario(run % 2 === 0));
    console.log(
      `run ${run + 1}/${runs} (${run % 2 === 0 ? 'Helm' : 'longshore'} first) done in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  const med = (key: string): Row => {
    const all = results.map((r) => r.figures.get(key)).filter((f): f is Row => f !== undefined);
    const out = {} as Row;
    for (const m of METRICS) out[m] = median(all.map((f) => f[m]));
    return out;
  };
  const varied = new Set<string>();
  for (const key of results[0]!.figures.keys())
    for (const m of COUNTS)
      if (new Set(results.map((r) => r.figures.get(key)?.[m])).size > 1)
        varied.add(`${key} ${m} (${results.map((r) => r.figures.get(key)?.[m]).join('/')})`);

  const header = [
    'phase',
    'system',
    'requests',
    'reads',
    'writes',
    'discovery',
    'bytes written',
    'bytes received',
    'wall ms',
  ];
  const rows: string[][] = [];
  const summary = new Map<string, Row>();
  for (const { phase, label } of PHASES) {
    const helm = med(`helm/${phase}`);
    const ours = med(`longshore/${phase}`);
    summary.set(`helm/${phase}`, helm);
    summary.set(`longshore/${phase}`, ours);
    rows.push([label, SYSTEM_LABEL.helm, ...formatRow(helm)]);
    rows.push(['', SYSTEM_LABEL.longshore, ...formatRow(ours)]);
    rows.push(['', 'longshore / Helm', ...METRICS.map((m) => ratio(ours[m], helm[m]))]);
  }
  console.log('');
  printTable(header, rows);
  console.log('');
  console.log(
    'requests = reads + writes + discovery; reads = get/list/watch, writes = create/update/patch/delete, ' +
      'discovery = /api, /apis, /openapi, /version; bytes written = request bodies of writes; ' +
      'bytes received = response bodies except watch streams',
  );
  console.log(
    varied.size > 0
      ? `request counts that differed between runs (median shown): ${[...varied].join(', ')}`
      : 'request counts were identical in every run',
  );
  console.log(`objects Helm was given vs objects longshore deployed: ${results[0]!.identical.join('; ')}`);

  console.log('');
  console.log('where the time goes (median over runs; +ms from the start of the window):');
  const at = (phase: Phase, system: System, field: keyof Timeline): string => {
    const values = results
      .map((r) => r.timelines.get(`${system}/${phase}`)?.[field])
      .filter((v): v is number => v !== undefined);
    return values.length === results.length ? `+${ms(median(values))}` : '—';
  };
  /** Wall time minus the rollout in the simulator (first Deployment write → rolled out), median over runs. */
  const outsideRollout = (phase: Phase, system: System): number | undefined => {
    const values = results.map((r) => {
      const t = r.timelines.get(`${system}/${phase}`);
      const wall = r.figures.get(`${system}/${phase}`)?.wallMs;
      return t?.applied !== undefined && t.rolledOut !== undefined && wall !== undefined
        ? wall - (t.rolledOut - t.applied)
        : undefined;
    });
    return values.every((v) => v !== undefined) ? median(values as number[]) : undefined;
  };
  for (const { phase, label } of PHASES) {
    const steps = results.map((r) => r.helmSteps.get(phase) ?? []);
    const helmParts = (steps[0] ?? []).map(
      (s, i) => `${s.release} ${ms(median(steps.map((st) => st[i]?.ms ?? Number.NaN)))}`,
    );
    const outcomes = results.map((r) => r.jobs.get(phase)).filter((j): j is JobOutcome => j !== undefined);
    const queued = median(outcomes.map((j) => j.queuedMs));
    const run = median(outcomes.map((j) => j.runMs));
    console.log(`  ${label}`);
    console.log(
      `    Helm:      ${helmParts.join(' + ')} ms; Deployments written ${at(phase, 'helm', 'applied')}, ` +
        `rolled out (sim) ${at(phase, 'helm', 'rolledOut')}, done +${ms(summary.get(`helm/${phase}`)!.wallMs)}`,
    );
    console.log(
      `    longshore: picked up +${ms(queued)}, Deployments written ${at(phase, 'longshore', 'applied')}, ` +
        `rolled out (sim) ${at(phase, 'longshore', 'rolledOut')}, handler done +${ms(queued + run)}, ` +
        `completion seen +${ms(summary.get(`longshore/${phase}`)!.wallMs)}`,
    );
    const helmOutside = outsideRollout(phase, 'helm');
    const oursOutside = outsideRollout(phase, 'longshore');
    if (helmOutside !== undefined && oursOutside !== undefined)
      console.log(
        `    outside the rollout (wall − Deployments written → rolled out): Helm ${ms(helmOutside)} ms, ` +
          `longshore ${ms(oursOutside)} ms (${(helmOutside / oursOutside).toFixed(1)}× less)`,
      );
  }

  console.log('');
  console.log('where the requests go (run 1):');
  for (const { phase, label } of PHASES) {
    for (const system of ['helm', 'longshore'] as const)
      console.log(
        `  ${label}, ${SYSTEM_LABEL[system]}: ${formatBreakdown(results[0]!.breakdown.get(`${system}/${phase}`))}`,
      );
  }
  console.log('');
  console.log('longshore job logs (run 1):');
  for (const { phase, label } of PHASES) {
    const job = results[0]!.jobs.get(phase);
    console.log(`  ${label}: ${job?.summary ?? '?'}`);
    for (const line of job?.logs ?? []) console.log(`      ${line}`);
  }

  if (trace) {
    console.log('');
    console.log('every request, relative to the start of its window (run 1):');
    for (const { phase, label } of PHASES)
      for (const system of ['helm', 'longshore'] as const) {
        console.log(`  ${label}, ${SYSTEM_LABEL[system]}:`);
        for (const line of results[0]!.traces.get(`${system}/${phase}`) ?? []) console.log(`    ${line}`);
      }
  }

  const image = { helm: summary.get('helm/image')!, ours: summary.get('longshore/image')! };
  const requestFactor = image.helm.requests / image.ours.requests;
  const wallFactor = image.helm.wallMs / image.ours.wallMs;
  const noopWrites = Math.max(...results.map((r) => r.figures.get('longshore/noop')?.writes ?? Number.NaN));
  const targets: [string, boolean, string][] = [
    [
      '(2) image change: ≥ 5× fewer API requests than Helm',
      requestFactor >= 5,
      `${requestFactor.toFixed(1)}× (${int(image.ours.requests)} vs ${int(image.helm.requests)})`,
    ],
    [
      '(2) image change: ≥ 3× less wall time than Helm',
      wallFactor >= 3,
      `${wallFactor.toFixed(1)}× (${ms(image.ours.wallMs)} vs ${ms(image.helm.wallMs)} ms; per run ${results
        .map(
          (r) =>
            `${((r.figures.get('helm/image')?.wallMs ?? 0) / (r.figures.get('longshore/image')?.wallMs ?? 1)).toFixed(1)}×`,
        )
        .join(', ')})`,
    ],
    [
      '(3) unchanged redeploy: zero writes (longshore)',
      noopWrites === 0,
      `${noopWrites} writes (max over runs)`,
    ],
  ];
  console.log('');
  for (const [what, pass, detail] of targets) console.log(`${pass ? 'PASS' : 'FAIL'}  ${what}: ${detail}`);
}

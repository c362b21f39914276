/**
 * The fleet at scale (issue 19): N apps (web ×2 + worker ×1, a domain with TLS issuer, five env
 * vars, registry credentials: bench/fixtures/deploy-app.ts) on one kube-sim, longshore's real
 * worker processes on a private redis-server, and Dokku's Helm loop over a sample of the same apps.
 *
 *   (1) deploys: every app gets a new image (a rollout each), N deploy jobs enqueued at once, with
 *       1, 2 and 4 worker processes in turn (same Redis, same cluster, same apps): wall time from
 *       the first enqueue to the last job finished, deploys/s, enqueue → finished p50/p99, API
 *       requests per deploy (kube-sim's request log). Helm: the same image change as three
 *       `helm upgrade --install` per app, app after app, over `--helm-apps` apps on their own
 *       kube-sim with the same settings, extrapolated per app to N (stated in the output).
 *   (2) a full sync (a `sync` job: one `reconcile` per app) with nothing drifted: writes, reads
 *       (get/list: the informers' watches are not counted), wall time; then 1 % of the apps edited
 *       by hand with kubectl (web scaled, Service deleted, a variable removed from config-{app})
 *       and a second sync: its writes must equal the drifted objects.
 *   (3) memory: domain changes by two worker processes (at concurrency 16) until every app has
 *       `--revisions` app revisions, then a full sync, so both have seen every app and every
 *       revision: their RSS right after the sync and once settled (the target's figure: what
 *       stays for the caches, read until it stops falling), the benchmark process's RSS (kube-sim
 *       runs in it), Redis used_memory per 1,000 finished deploy jobs (INFO memory before and after
 *       the rounds of (1), whose jobs the queue's retention all keeps: src/jobs/client.ts). Each
 *       change is `domains set` to the app's domain plus one that replaces the previous change's:
 *       a new app revision (its Ingresses) with the same number of objects, and no rollout, which
 *       is what six more image changes of 1,000 apps would have cost the simulated cluster.
 *
 * kube-sim runs its workload controllers (a deploy waits for its rollout, so they must), with the
 * default delays (pods ready after 50 ms, 10 ms between Deployment controller steps), in this process.
 * Set-up (properties, domains, config, first deploy of every app) is not measured.
 *
 * Usage: npm run bench -- scale [--apps N] [--workers 1,2,4] [--concurrency C] [--helm-apps S]
 *                                [--revisions R] [--drift-percent P]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { defaultControllerSettings } from '../infra/kube-sim/controllers/settings.ts';
import type { RequestRecord } from '../infra/kube-sim/server/request-log.ts';
import { type Sim, type SimOptions, startSim } from '../infra/kube-sim/sim.ts';
import { loadFleetConfig } from '../src/core/env.ts';
import { Sealer } from '../src/jobs/sealing.ts';
import { SecretReleaseStore, STORE_DEFAULTS } from '../src/storage/index.ts';
import { kubeCli } from '../test/helpers/kubectl.ts';
import { deployPayload, domainOf, setupJobs } from './fixtures/deploy-app.ts';
import { int, percentile, printTable } from './fixtures/report.ts';
import { isWrite, sleep, Windows } from './fixtures/request-windows.ts';
import { type DriftedObject, driftApp } from './fixtures/scale-drift.ts';
import { type BatchJob, rssOf, ScaleFleet, settledRss } from './fixtures/scale-fleet.ts';
import { HelmLoop } from './fixtures/scale-helm.ts';

const SECRET = 'bench-passphrase-bench-passphrase-0123';
const SIM_OPTIONS: SimOptions = { controllers: true, onControllerError: () => undefined };
const MB = 1024 * 1024;
/**
 * Concurrency of the one worker that does the unmeasured set-up: at the fleet default (8) a single
 * worker is bound by its jobs' round trips, not by kube-sim; 32 keeps the simulator busy.
 */
const BULK_CONCURRENCY = 32;
/**
 * Workers of the memory phase's domain changes: one at 32 was CPU-bound itself (100 % of a core,
 * ~22 ms per change: render, digests, gzip, plan) with the simulator at ~60 %; two share the load.
 */
const CHANGE_WORKERS = 2;

export interface ScaleOptions {
  apps: number;
  workers: number[];
  concurrency: number;
  helmApps: number;
  revisions: number;
  driftPercent: number;
}

export function parseScaleArgs(argv: string[]): ScaleOptions {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const positive = (name: string, fallback: number): number => {
    const raw = value(name);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n <= 0)
      throw new Error(`--${name} must be a positive whole number, got ${raw}`);
    return n;
  };
  const workers = (value('workers') ?? '1,2,4').split(',').map(Number);
  if (workers.some((w) => !Number.isInteger(w) || w <= 0))
    throw new Error(`--workers must be a list of positive whole numbers, e.g. 1,2,4`);
  const driftPercent = Number(value('drift-percent') ?? 1);
  if (!(driftPercent > 0 && driftPercent <= 100)) throw new Error('--drift-percent must be in (0, 100]');
  const options = {
    apps: positive('apps', 1000),
    workers,
    concurrency: positive('concurrency', loadFleetConfig({}).concurrency),
    helmApps: positive('helm-apps', 10),
    revisions: positive('revisions', 10),
    driftPercent,
  };
  // Revision 1 is the set-up deploy, then one per worker count: fewer than that cannot be asked for.
  if (options.revisions < 1 + workers.length)
    throw new Error(`--revisions must be at least ${1 + workers.length} (set-up + one per worker count)`);
  return { ...options, helmApps: Math.min(options.helmApps, options.apps) };
}

const appName = (i: number) => `app-${String(i).padStart(5, '0')}`;
const versionOf = (n: number) => `1.0.${n}`;
const shaOf = (n: number) => (n % 16).toString(16).repeat(40);

/** A `domains set` that makes revision `n` of the app: its domain and `r{n}.{domain}`. */
const domainRevision = (app: string, n: number) => ({
  app,
  action: 'set',
  domains: [domainOf(app), `r${n}.${domainOf(app)}`],
});

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

interface RequestCounts {
  requests: number;
  reads: number;
  writes: number;
  watches: number;
  discovery: number;
  written: string[];
  /** `verb resource` → count, most first (where the requests go). */
  breakdown: string;
}

function breakdownOf(records: RequestRecord[]): string {
  const counts = new Map<string, number>();
  for (const r of records) {
    const key =
      r.verb === 'other' ? 'discovery' : `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return (
    [...counts]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${n} ${k}`)
      .join(', ') || 'none'
  );
}

function countRequests(records: RequestRecord[], w: { start: number; end: number }): RequestCounts {
  const inside = Windows.inWindow(records, w);
  const writes = inside.filter(isWrite);
  return {
    requests: inside.length,
    reads: inside.filter((r) => r.verb === 'get' || r.verb === 'list').length,
    writes: writes.length,
    watches: inside.filter((r) => r.verb === 'watch').length,
    discovery: inside.filter((r) => r.verb === 'other').length,
    written: writes.map((r) => `${r.verb} ${r.resource} ${r.namespace ?? ''}/${r.name ?? ''}`),
    breakdown: breakdownOf(inside),
  };
}

/** Runs `fn` in a window of the simulator's request log (cleared first) and counts what it sent. */
async function measured<T>(
  sim: Sim,
  fn: () => Promise<T>,
): Promise<{ result: T; wallMs: number; startedAt: number } & RequestCounts> {
  await sim.settle();
  sim.requests.reset();
  const windows = new Windows();
  const result = await windows.measure('x', 'x', fn);
  const w = windows.list[0]!;
  // Watches are logged when they close; those of the informers stay open and are not counted.
  await sleep(50);
  return { result, wallMs: w.wallMs, startedAt: w.start, ...countRequests(sim.requests.entries(), w) };
}

interface DeployRound {
  workers: number;
  wallMs: number;
  perSecond: number;
  p50: number;
  p99: number;
  requestsPerDeploy: number;
  writesPerDeploy: number;
}

export async function benchFleetScale(argv: string[]): Promise<void> {
  const o = parseScaleArgs(argv);
  const command = (extra: string) =>
    `npm run bench -- scale --apps ${o.apps} --workers ${o.workers.join(',')} --concurrency ${o.concurrency} ` +
    `--helm-apps ${o.helmApps} --revisions ${o.revisions} --drift-percent ${o.driftPercent}${extra}`;
  const settings = defaultControllerSettings();
  const t0 = performance.now();
  console.log(
    `fleet scale: ${o.apps} apps (web ×2 + worker ×1, a domain, 5 env vars, registry credentials); ` +
      `worker processes ${o.workers.join(', ')} at concurrency ${o.concurrency}; Helm loop over ${o.helmApps} app(s)`,
  );
  console.log(
    `kube-sim in this process, workload controllers on (pods ready after ${settings.podReadyDelayMs} ms, ` +
      `${settings.rolloutStepDelayMs} ms per Deployment step); load average at start ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} ` +
      `on this machine (shared)`,
  );
  console.log(`reproduce: ${command('')}`);

  const sealer = new Sealer(SECRET);
  const dir = mkdtempSync(join(tmpdir(), 'longshore-bench-scale-'));
  const sim = await startSim(SIM_OPTIONS);
  const cli = await kubeCli(sim);
  const fleet = await ScaleFleet.start(sim.kubeconfig(), dir);
  const apps = Array.from({ length: o.apps }, (_, i) => appName(i));
  const deploys = (n: number): BatchJob[] =>
    apps.map((app) => ({ type: 'deploy', payload: deployPayload(app, versionOf(n), shaOf(n)) }));
  const rounds: DeployRound[] = [];
  let revision = 1;
  let redisPer1000 = Number.NaN;
  let memoryBefore: number | undefined;
  let commandsBefore: number | undefined;
  let commandsPerDeploy = Number.NaN;
  let redisPerApp = Number.NaN;
  let syncClean: Awaited<ReturnType<typeof measured>> | undefined;
  let syncDrift: Awaited<ReturnType<typeof measured>> | undefined;
  const drifted: DriftedObject[] = [];
  /** Drifted apps whose reconcile said which config value is lost. */
  let lostReported = 0;
  let workerRss: number[] = [];
  let settled: Awaited<ReturnType<typeof settledRss>> = { rss: [], afterMs: 0 };
  let lastRoundBreakdown = '';
  let simRss = 0;
  const storage = new Map<string, number>();
  let clusterObjects = 0;
  let appRevisions: number[] = [];
  try {
    // Set-up, not measured: every app's properties, domain, config and first deploy.
    const emptyMemory = await fleet.usedMemory();
    // One worker process does the unmeasured set-up: kube-sim takes a whole core, and every further
    // worker's informers only add to its load (74 s with one worker against 89-96 s with four).
    await fleet.useWorkers(1, BULK_CONCURRENCY);
    // App after app. (Enqueued step by step across the apps instead, every app's first job and
    // then every app's second, set-up took 112 s against 74-99 s, and the round after it 132 s
    // against 80-107 s; not investigated further.)
    const setup: BatchJob[] = apps.flatMap((app) => [
      ...setupJobs(app, sealer),
      { type: 'deploy', payload: deployPayload(app, versionOf(1), shaOf(1), sealer) },
    ]);
    const ts = performance.now();
    await fleet.runBatch(setup);
    console.log(`set-up: ${setup.length} jobs in ${fmt((performance.now() - ts) / 1000)} s (not measured)`);
    redisPerApp = ((await fleet.usedMemory()) - emptyMemory) / o.apps;

    // (1) deploys with 1, 2, 4 worker processes.
    for (const workers of o.workers) {
      await fleet.useWorkers(workers, o.concurrency);
      // Warm-up, not measured: a reconcile per worker slot, so every worker's informers are listed.
      await fleet.runBatch(
        apps.slice(0, workers * o.concurrency).map((app) => ({ type: 'reconcile', payload: { app } })),
      );
      revision++;
      memoryBefore ??= await fleet.usedMemory();
      commandsBefore ??= await fleet.commandsProcessed();
      const m = await measured(sim, () => fleet.runBatch(deploys(revision)));
      lastRoundBreakdown = m.breakdown;
      if (process.env.BENCH_DEBUG) {
        const { logs } = await fleet.client.queue.getJobLogs(m.result[0]!, 0, -1, true);
        console.log(`    logs of ${m.result[0]}:\n      ${logs.join('\n      ')}`);
      }
      const done = await fleet.finished(m.result);
      const latencies = done.map((d) => d.finishedAt - d.enqueuedAt);
      if (process.env.BENCH_DEBUG)
        console.log(
          `    ${done.map((d) => `+${d.startedAt - m.startedAt}..+${d.finishedAt - m.startedAt}`).join(' ')}`,
        );
      rounds.push({
        workers,
        wallMs: m.wallMs,
        perSecond: o.apps / (m.wallMs / 1000),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        requestsPerDeploy: m.requests / o.apps,
        writesPerDeploy: m.writes / o.apps,
      });
      console.log(`deploys with ${workers} worker(s) done in ${fmt(m.wallMs / 1000)} s`);
    }

    // Every round's deploy jobs are still kept (retention: 10,000 completed jobs).
    redisPer1000 = ((await fleet.usedMemory()) - memoryBefore!) / ((o.apps * o.workers.length) / 1000);
    // Includes the warm-up reconciles between rounds and the benchmark's own polling (a few per second).
    commandsPerDeploy = ((await fleet.commandsProcessed()) - commandsBefore!) / (o.apps * o.workers.length);

    // (2) full sync, nothing drifted; then 1 % drifted by hand.
    const sync: BatchJob[] = [{ type: 'sync', payload: {} }];
    const tsync = performance.now();
    syncClean = await measured(sim, () => fleet.runBatch(sync, 1 + o.apps));
    const step = Math.max(1, Math.round(100 / o.driftPercent));
    const driftedApps: string[] = [];
    for (let i = 0; i < o.apps; i += step) driftedApps.push(apps[i]!);
    // The apps' edits at once (each app's three in order): kubectl's start-up is most of their time.
    for (const edits of await Promise.all(driftedApps.map((app) => driftApp(cli, app, versionOf(revision)))))
      drifted.push(...edits);
    syncDrift = await measured(sim, () => fleet.runBatch(sync, 1 + o.apps));
    for (const app of driftedApps)
      if (
        (await fleet.logsOf('reconcile', app, syncDrift.startedAt)).some((l) => l.includes('cannot restore'))
      )
        lostReported++;

    console.log(`syncs and drift edits: ${fmt((performance.now() - tsync) / 1000)} s`);

    // (3) memory: revisions up to --revisions (domain changes: see the header) by two workers, then
    // a sync, so both have every app in view.
    await fleet.useWorkers(CHANGE_WORKERS, BULK_CONCURRENCY / CHANGE_WORKERS);
    const tm = performance.now();
    const changes = o.revisions - revision;
    while (revision < o.revisions) {
      revision++;
      await fleet.runBatch(apps.map((app) => ({ type: 'domains', payload: domainRevision(app, revision) })));
    }
    console.log(
      `memory phase: ${changes * o.apps} domain changes in ${fmt((performance.now() - tm) / 1000)} s (not measured)`,
    );
    // Those workers made every app's revisions (each lists all of them); a full sync puts every
    // app's live objects in their view too.
    await fleet.runBatch(sync, 1 + o.apps);
    await sim.settle();
    workerRss = fleet.workerPids.map(rssOf);
    settled = await settledRss(fleet.workerPids);
    // Release storage in the system namespace, by kind label (docs/storage-format.md).
    for (const secret of sim.store.list('/secrets', loadFleetConfig({}).namespace)) {
      const kind = secret.metadata.labels?.['longshore.dev/kind'] ?? 'other';
      storage.set(kind, (storage.get(kind) ?? 0) + 1);
    }
    clusterObjects = sim.store.count();
    // The revisions the workers know, read back from release storage (the figure's premise).
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig());
    const history = new SecretReleaseStore({ kube: kc, tailChunks: false });
    await history.start();
    appRevisions = apps.map((app) => history.history(app).length);
    await history.stop();
    simRss = process.memoryUsage().rss;
  } finally {
    await fleet.stop();
  }
  const records = sim.requests.summary();
  await sim.stop();
  rmSync(cli.dir, { recursive: true, force: true });

  // Helm: the same image change over a sample, on its own kube-sim.
  const helmSim = await startSim(SIM_OPTIONS);
  const helmCli = await kubeCli(helmSim);
  const helm = new HelmLoop(helmCli, apps.slice(0, o.helmApps), join(dir, 'charts'));
  let helmRun: Awaited<ReturnType<typeof measured>>;
  try {
    await helm.installConfig();
    await helm.deployAll(versionOf(1), shaOf(1), sealer);
    helmRun = await measured(helmSim, () => helm.deployAll(versionOf(2), shaOf(2)));
    console.log(`Helm loop over ${o.helmApps} app(s) done in ${fmt(helmRun.wallMs / 1000)} s`);
  } finally {
    await helmSim.stop();
    rmSync(helmCli.dir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
  const helmPerApp = { requests: helmRun.requests / o.helmApps, wallMs: helmRun.wallMs / o.helmApps };
  const helmWallN = helmPerApp.wallMs * o.apps;

  // Output.
  console.log('');
  console.log(`(1) image change of ${o.apps} apps: ${o.apps} deploy jobs enqueued at once`);
  console.log(`    reproduce: ${command('')}`);
  const fastest = Math.min(...rounds.map((r) => r.wallMs));
  const fewest = Math.max(...rounds.map((r) => r.requestsPerDeploy));
  printTable(
    ['system', 'workers', 'wall s', 'deploys/s', 'p50 ms', 'p99 ms', 'requests/deploy', 'writes/deploy'],
    [
      ...rounds.map((r) => [
        'longshore',
        String(r.workers),
        fmt(r.wallMs / 1000),
        fmt(r.perSecond),
        int(r.p50),
        int(r.p99),
        fmt(r.requestsPerDeploy),
        fmt(r.writesPerDeploy),
      ]),
      [
        `Helm 4 ×3 (Dokku), ${o.helmApps} apps ×${fmt(o.apps / o.helmApps)}`,
        '1 loop',
        `${fmt(helmWallN / 1000)} (extrapolated)`,
        fmt(1000 / helmPerApp.wallMs),
        '—',
        '—',
        fmt(helmPerApp.requests),
        fmt(helmRun.writes / o.helmApps),
      ],
    ],
  );
  console.log(`    requests of one round (${rounds.at(-1)!.workers} workers): ${lastRoundBreakdown}`);
  console.log(`    requests of Helm's loop: ${helmRun.breakdown}`);
  console.log(
    `    Helm: measured over ${o.helmApps} app(s) in ${fmt(helmRun.wallMs / 1000)} s (${int(helmRun.requests)} requests), ` +
      `extrapolated per app to ${o.apps}; p50/p99 do not apply to a sequential loop`,
  );
  const requestFactor = helmPerApp.requests / fewest;
  const wallFactor = helmWallN / fastest;
  console.log(
    `${verdict(requestFactor >= 5)}  ≥ 5× fewer API requests per deploy than Helm: ${fmt(requestFactor)}× ` +
      `(longshore at most ${fmt(fewest)}, Helm ${fmt(helmPerApp.requests)})`,
  );
  console.log(
    `${verdict(wallFactor >= 5)}  ≥ 5× less wall time than Helm for ${o.apps} apps: ${fmt(wallFactor)}× ` +
      `(longshore best ${fmt(fastest / 1000)} s, Helm ${fmt(helmWallN / 1000)} s extrapolated)`,
  );

  const lastWorkers = o.workers.at(-1)!;
  console.log('');
  console.log(
    `(2) full sync of ${o.apps} apps (${lastWorkers} worker process(es)): a sync job, one reconcile per app`,
  );
  console.log(`    reproduce: ${command('')}`);
  const expected = drifted.filter((d) => d.repairable).length;
  const driftedApps = drifted.length / 3;
  printTable(
    ['sync', 'drift', 'wall s', 'writes', 'get/list', 'watches started', 'requests'],
    [
      [
        'nothing drifted',
        '0 objects',
        fmt(syncClean!.wallMs / 1000),
        String(syncClean!.writes),
        String(syncClean!.reads),
        String(syncClean!.watches),
        String(syncClean!.requests),
      ],
      [
        `${o.driftPercent} % of apps edited`,
        `${drifted.length} objects (${expected} repairable)`,
        fmt(syncDrift!.wallMs / 1000),
        String(syncDrift!.writes),
        String(syncDrift!.reads),
        String(syncDrift!.watches),
        String(syncDrift!.requests),
      ],
    ],
  );
  console.log(`    requests of the no-drift sync: ${syncClean!.breakdown}`);
  console.log(`    requests of the drift sync: ${syncDrift!.breakdown}`);
  console.log(`${verdict(syncClean!.writes === 0)}  no drift: 0 writes: ${syncClean!.writes}`);
  console.log(
    `${verdict(syncClean!.reads === 0)}  no drift: no read beyond the informers' watches: ${syncClean!.reads} get/list`,
  );
  console.log(
    `${verdict(syncDrift!.writes === expected)}  drift: writes equal the drifted objects: ${syncDrift!.writes} writes, ${expected} repairable ` +
      `drifted objects (${driftedApps} app(s) × web replicas, Service deleted)`,
  );
  console.log(
    `${verdict(lostReported === driftedApps)}  drift: LOG_LEVEL removed from config-{app} is reported as lost, not guessed: ` +
      `${lostReported} of ${driftedApps} reconcile(s) say so (release history keeps value digests only)`,
  );
  if (syncDrift!.writes !== expected || process.env.BENCH_DEBUG)
    console.log(`    writes of the drift sync: ${syncDrift!.written.join('; ')}`);

  const maxRss = Math.max(...workerRss);
  const maxSettled = Math.max(...settled.rss);
  console.log('');
  console.log(`(3) memory with ${o.apps} apps × ${o.revisions} app revisions`);
  console.log(`    reproduce: ${command('')}`);
  printTable(
    ['process', 'what', 'value'],
    [
      ...workerRss.map((rss, i) => [`worker ${i + 1}`, 'RSS right after a full sync', `${fmt(rss / MB)} MB`]),
      ...settled.rss.map((rss, i) => [
        `worker ${i + 1}`,
        `RSS settled (${fmt(settled.afterMs / 1000, 0)} s after the sync)`,
        `${fmt(rss / MB)} MB`,
      ]),
      ['kube-sim', 'RSS of the benchmark process (kube-sim in it)', `${fmt(simRss / MB)} MB`],
      ['redis-server', 'used_memory per 1,000 finished deploy jobs', `${fmt(redisPer1000 / MB, 2)} MB`],
      ['redis-server', 'used_memory per app after set-up (its 4 jobs kept)', `${fmt(redisPerApp / 1024)} KB`],
      ['redis-server', 'commands per deploy (rounds of (1), polling included)', fmt(commandsPerDeploy, 0)],
    ],
  );
  console.log(
    `    release storage: ${fmt([...storage.values()].reduce((a, b) => a + b, 0) / o.apps)} Secrets per app ` +
      `(${[...storage].map(([k, n]) => `${k} ${fmt(n / o.apps)}`).join(', ')}); ` +
      `${fmt(clusterObjects / o.apps)} objects per app in the whole cluster store (pods, ReplicaSets, events included)`,
  );
  console.log(
    `    app revisions in release storage: ${Math.min(...appRevisions)} to ${Math.max(...appRevisions)} per app ` +
      `(asked: ${o.revisions}; storage keeps at most ${STORE_DEFAULTS.historyMax})`,
  );
  console.log(
    `${verdict(maxSettled <= 200 * MB)}  worker RSS ≤ 200 MB: ${fmt(maxSettled / MB)} MB settled (largest of ` +
      `${settled.rss.length}; what a worker keeps for its caches once the sync's garbage is returned)`,
  );
  console.log(
    `    right after the sync: ${fmt(maxRss / MB)} MB (largest), the sync's garbage not yet collected; its excess ` +
      `over the settled figure is bounded by LONGSHORE_HEAP_GROWTH_PERCENT (docs/operations.md, "Worker memory")`,
  );
  console.log(
    `    Redis retention: completed jobs kept 7 days or 10,000 (src/jobs/client.ts), so the finished-job share stays ` +
      `below ${fmt((redisPer1000 * 10) / MB)} MB`,
  );
  console.log(
    `    kube-sim request log: ${int(records.total)} records kept, ${int(records.dropped)} dropped; ` +
      `whole run ${fmt((performance.now() - t0) / 1000)} s, load average at end ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
}

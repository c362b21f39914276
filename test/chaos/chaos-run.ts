/**
 * One chaos run: worker processes (3 in the full run) (`longshore worker`) and `longshore scheduler` against
 * kube-sim with faults, while the seeded driver (./plan.ts) enqueues its jobs; workers SIGKILLed
 * and restarted, Redis SIGKILLed and restarted once on its AOF. Then every check of ./checks.ts.
 * Returns what was found; the caller (a test) fails on any finding and prints the seed.
 */
import type { EnqueuedJob } from '../../src/jobs/client.ts';
import { JobClient } from '../../src/jobs/client.ts';
import { Sealer, sealContext } from '../../src/jobs/sealing.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { CLI, type Proc, startProcess } from '../helpers/processes.ts';
import { holdFor, until } from '../helpers/wait.ts';
import { type Finished, type FleetJob, runChecks, runObjectsLeft, unclear } from './checks.ts';
import { BASE_FAULTS, driverRandom, faultRandom } from './fault-stream.ts';
import {
  type ChaosSize,
  PLANNED_TYPES,
  type PlannedJob,
  planChaos,
  RUN_TTL_SECONDS,
  runCommand,
} from './plan.ts';

export interface ChaosReport {
  seed: number;
  size: ChaosSize;
  wallMs: number;
  findings: string[];
  /** Failed jobs, by reason (a reason per distinct message). */
  failedReasons: Map<string, number>;
  counts: {
    completed: number;
    superseded: number;
    failed: number;
    workerKills: number;
    redisRestarts: number;
  };
  /** The plan's jobs per type: completed, superseded, failed. */
  byType: Record<string, [number, number, number]>;
  /** Seconds each phase took: start, enqueue, drain (until every job ended), prune, checks. */
  phases: Record<string, number>;
}

function payloadOf(job: PlannedJob, sealer: Sealer): unknown {
  switch (job.type) {
    case 'deploy':
      return {
        app: job.app,
        image: job.image,
        processes: {
          web: { command: 'bin/web' },
          ...(job.withWorker ? { worker: { command: 'bin/worker' } } : {}),
        },
      };
    case 'config':
      return {
        app: job.app,
        set: Object.fromEntries(
          Object.entries(job.set).map(([k, v]) => [k, sealer.seal(v, sealContext.config(job.app, k))]),
        ),
        unset: job.unset,
      };
    case 'scale':
      return { app: job.app, processes: job.processes };
    case 'domains':
      return { app: job.app, action: job.action, domains: job.domains };
    case 'rename':
      return { app: job.app, newName: job.newName };
    case 'destroy':
      return { app: job.app, withStorage: job.withStorage };
    case 'storage-create':
      return { entry: { name: job.entry, size: job.size } };
    case 'mounts':
      return { app: job.app, action: job.action, mount: { entry: job.entry, mountPath: job.mountPath } };
    case 'run':
      return {
        app: job.app,
        command: runCommand(job),
        env: Object.fromEntries(
          Object.entries(job.env).map(([k, v]) => [k, sealer.seal(v, sealContext.runEnv(job.app, k))]),
        ),
        detach: job.detach,
        ttlSeconds: RUN_TTL_SECONDS,
      };
  }
}

/** Background chaos on the API while the run lasts: latency spikes, watch drops, compactions. */
function apiChaos(fleet: DeployFleet, random: () => number): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    let round = 0;
    while (running) {
      await holdFor(500 + Math.floor(random() * 1500), 'the interval between two API disturbances');
      if (!running) break;
      round++;
      const roll = random();
      if (roll < 0.4)
        // A spike: the next requests (whoever sends them) wait 200..1000 ms each.
        fleet.sim.faults.add({ latencyMs: 200 + Math.floor(random() * 800), limit: 20 });
      else if (roll < 0.8) fleet.sim.dropWatches();
      else {
        // Watches resuming from before now get 410 Gone and must relist.
        fleet.sim.dropWatches();
        fleet.sim.compact();
      }
      if (round % 10 === 0) {
        // Spent latency rules pile up: keep the base faults and the latest spike.
        const rules = fleet.sim.faults.list();
        fleet.sim.faults.set([...BASE_FAULTS, ...rules.slice(BASE_FAULTS.length).slice(-1)]);
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

export async function runChaos(seed: number, size: ChaosSize): Promise<ChaosReport> {
  const started = Date.now();
  const plan = planChaos(seed, size);
  const random = driverRandom(seed);
  // Seeded faults: the same seed draws the same fault decisions (./fault-stream.ts says what
  // timing still changes).
  const fleet = await startDeployFleet({ faultRandom: faultRandom(seed) });
  const report: ChaosReport = {
    seed,
    size,
    wallMs: 0,
    findings: [],
    failedReasons: new Map(),
    counts: { completed: 0, superseded: 0, failed: 0, workerKills: 0, redisRestarts: 0 },
    phases: {},
    byType: {},
  };
  let mark = Date.now();
  const phase = (name: string) => {
    report.phases[name] = (Date.now() - mark) / 1000;
    mark = Date.now();
  };
  const allWorkers: Proc[] = [];
  const producer = fleet.redis.connect();
  const jobs = new JobClient(producer, { attempts: 5, backoffMs: 200 });
  jobs.onQueueError(() => undefined);
  try {
    const workerEnv = { LONGSHORE_CONCURRENCY: String(size.concurrency) };
    // fleet.startWorker allows 30 s to start: several workers loading side by side on a loaded
    // 2-core machine took longer (seed 1, once). Stopped by fleet.stop() all the same (killAll).
    const startWorker = async (env: Record<string, string>) => {
      const worker = startProcess(CLI, ['worker'], { ...fleet.env, ...env });
      await worker.waitForLine(/worker started/, 120_000);
      return worker;
    };
    const scheduler = startProcess(CLI, ['scheduler'], {
      ...fleet.env,
      LONGSHORE_SYNC_INTERVAL_MS: '4000',
      LONGSHORE_PRUNE_INTERVAL_MS: '7000',
    });
    allWorkers.push(scheduler);
    // Started side by side: each spends seconds loading its modules.
    allWorkers.push(
      ...(await Promise.all(Array.from({ length: size.workers }, () => startWorker(workerEnv)))),
    );
    await scheduler.waitForLine(/sync scheduler started/, 60_000);
    phase('start');
    fleet.sim.faults.set(BASE_FAULTS);
    const chaos = apiChaos(fleet, random);
    const sealer = new Sealer(fleet.env.LONGSHORE_SECRET!);
    const enqueued: EnqueuedJob[] = [];
    const live = () =>
      allWorkers.filter((w) => w !== scheduler && w.child.exitCode === null && w.child.signalCode === null);

    // One kill at a time, each after the previous one's replacement has started: with one worker
    // (CHAOS_WORKERS=1) two kills at close moments would otherwise find no live worker to kill.
    let kills = Promise.resolve();
    const killOne = () => {
      kills = kills.then(async () => {
        const victims = live();
        const victim = victims[Math.floor(random() * victims.length)]!;
        victim.kill('SIGKILL');
        await victim.exited;
        report.counts.workerKills++;
        allWorkers.push(await startWorker(workerEnv));
      });
      return kills;
    };
    const restartRedis = async () => {
      await fleet.redis.kill();
      await holdFor(1_000, 'Redis down: workers, scheduler and producer ride out the outage');
      await fleet.redis.start();
      report.counts.redisRestarts++;
    };

    // A run is enqueued as a user runs one, after the app's previous job has ended (`deploy
    // --wait && run`): it has no lane, so enqueued at once it would mostly meet an app not
    // deployed yet. It waits on the side; the stream goes on.
    const ended = async (id: string) => {
      const state = await (await jobs.queueFor(id).getJob(id))?.getState();
      return state === 'completed' || state === 'failed' ? true : undefined;
    };
    const enqueueRun = async (i: number, job: PlannedJob, after: Promise<EnqueuedJob>) => {
      const previous = await after;
      await until(() => ended(previous.id), `job ${previous.id} to end before run job ${i}`, {
        timeoutMs: 300_000,
        intervalMs: 250,
      }).catch(() => undefined);
      return jobs.enqueue(job.type, payloadOf(job, sealer), `chaos:${seed}`);
    };
    const lastOf = new Map<string, Promise<EnqueuedJob>>();
    const pending: Promise<EnqueuedJob>[] = [];
    const pendingChaos: Promise<void>[] = [];
    for (const [i, job] of plan.jobs.entries()) {
      for (const at of plan.kills) if (at === i) pendingChaos.push(killOne());
      if (plan.redisRestartAt.includes(i)) await restartRedis();
      const after = lastOf.get(job.app);
      if (job.type === 'run' && after) pending.push(enqueueRun(i, job, after));
      else {
        const done = jobs.enqueue(job.type, payloadOf(job, sealer), `chaos:${seed}`);
        await done;
        pending.push(done);
        if (job.type !== 'storage-create') lastOf.set(job.type === 'rename' ? job.newName : job.app, done);
      }
      // Bursts and gaps: most jobs arrive back to back, some after a pause.
      if (random() < 0.1) await holdFor(Math.floor(random() * 400), 'a gap in the driver’s stream of jobs');
    }
    await Promise.all(pendingChaos);
    enqueued.push(...(await Promise.all(pending)));
    phase('enqueue');

    // Every job ends: completed (done or superseded) or failed after its attempts.
    let unfinished: string[] = [];
    const finished = await until(
      async () => {
        const out: Finished[] = [];
        unfinished = [];
        for (const { id } of enqueued) {
          const job = await jobs.queueFor(id).getJob(id);
          const state = job ? await job.getState() : 'missing';
          if (state === 'completed' || state === 'failed')
            out.push({ id, state, returnvalue: job!.returnvalue, failedReason: job!.failedReason });
          else unfinished.push(`${id} ${state} (attempts made ${job?.attemptsMade ?? '-'})`);
        }
        return unfinished.length === 0 ? out : undefined;
      },
      `all ${enqueued.length} jobs of seed ${seed} to end`,
      // Generous: a loaded 2-core machine runs a deploy in seconds; a stuck job is what this catches.
      { timeoutMs: 120_000 + size.apps * size.jobsPerApp * 3_000, intervalMs: 1_000 },
    ).catch((err: Error) => {
      report.findings.push(`${err.message}; not ended: ${unfinished.slice(0, 20).join(', ')}`);
      return undefined;
    });
    if (!finished) return report;
    phase('drain');
    await chaos.stop();
    fleet.sim.faults.clear();

    // No new sync or prune from here: the final prune must not queue behind the scheduler's.
    scheduler.kill('SIGTERM');
    await scheduler.exited;
    // The final prune by a worker with no orphan grace: every worker else is stopped first, so no
    // write can be in flight whose chunks it would sweep.
    for (const w of live()) w.kill('SIGTERM');
    await Promise.all(allWorkers.map((w) => w.exited));
    allWorkers.push(await startWorker({ LONGSHORE_ORPHAN_GRACE_MS: '0' }));
    const prune = await jobs.enqueue('prune', {}, `chaos:${seed}`);
    const pruned = await until(
      async () => {
        const job = await jobs.queueFor(prune.id).getJob(prune.id);
        const state = await job?.getState();
        return state === 'completed' || state === 'failed' ? { state, reason: job?.failedReason } : undefined;
      },
      'the final prune to end',
      { timeoutMs: 240_000, intervalMs: 500 },
    ).catch(async (err: Error) => ({
      state: 'unfinished',
      reason: `${err.message}; ${await fleetLane(jobs)}`,
    }));
    if (pruned.state !== 'completed')
      report.findings.push(`the final prune ${prune.id} ${pruned.state}: ${pruned.reason ?? ''}`);
    // The scheduler's syncs enqueued reconciles in the app lanes: they end too before the checks.
    const open = await until(
      async () => {
        const counts = await jobs.queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized');
        return Object.values(counts).every((n) => n === 0) || undefined;
      },
      'every queued job (reconciles and syncs included) to end',
      { timeoutMs: 240_000, intervalMs: 500 },
    ).catch(async (err: Error) => `${err.message}: ${JSON.stringify(await jobs.queue.getJobCounts())}`);
    if (open !== true) report.findings.push(String(open));
    // The jobs the fleet enqueued itself (syncs, reconciles, prunes): a failure needs a reason too.
    for (const job of await jobs.queue.getJobs(['failed'])) {
      if (PLANNED_TYPES.has(job.name)) continue;
      const reason = (job.failedReason ?? '').split('\n')[0]!.trim();
      if (unclear(reason))
        report.findings.push(`job ${job.id} (${job.name}) failed without a clear reason: ${reason}`);
      const key = `${job.name}: ${reason.replace(/\d+/g, 'N').slice(0, 200)}`;
      report.failedReasons.set(key, (report.failedReasons.get(key) ?? 0) + 1);
    }
    await fleet.sim.settle();
    // Run Jobs go RUN_TTL_SECONDS after they finish (the cluster's TTL controller): wait for that,
    // bounded; what is left then is a finding.
    const runsLeft = await until(
      () => (runObjectsLeft(fleet).length === 0 ? true : undefined),
      'every run Job and pod to be deleted after its TTL',
      { timeoutMs: 30_000 + RUN_TTL_SECONDS * 1000, intervalMs: 500 },
    ).catch(() => runObjectsLeft(fleet));
    if (runsLeft !== true)
      report.findings.push(`run Job(s) or pod(s) left after their TTL: ${runsLeft.slice(0, 20).join(', ')}`);
    // The storage-destroy jobs `destroy --with-storage` enqueued, for the storage checks (a job's
    // data is the producer's envelope, src/jobs/client.ts: the payload is under `payload`).
    const storageDestroys = new Map<string, FleetJob>();
    for (const queue of jobs.queues)
      for (const job of await queue.getJobs([
        'completed',
        'failed',
        'active',
        'waiting',
        'delayed',
        'prioritized',
      ]))
        if (job.name === 'storage-destroy')
          storageDestroys.set((job.data as { payload: { name: string } }).payload.name, {
            id: job.id ?? '',
            state: await job.getState(),
            ...(job.failedReason ? { failedReason: job.failedReason } : {}),
          });

    phase('prune');
    const result = await runChecks({
      fleet,
      plan,
      finished,
      connection: producer,
      logs: allWorkers,
      storageDestroys,
    });
    report.findings.push(...result.findings);
    for (const [reason, n] of result.failedReasons) report.failedReasons.set(reason, n);
    Object.assign(report.counts, result.counts);
    report.byType = result.byType;
    phase('checks');
  } finally {
    await jobs.close().catch(() => undefined);
    producer.disconnect();
    await fleet.stop();
    report.wallMs = Date.now() - started;
  }
  return report;
}

/** What the fleet lane holds, for a prune that does not end: job ids and their states. */
async function fleetLane(jobs: JobClient): Promise<string> {
  const waiting = await jobs.queue.getJobs([
    'active',
    'waiting',
    'delayed',
    'prioritized',
    'waiting-children',
  ]);
  const fleetJobs = waiting.filter((j) => j.name === 'prune' || j.name === 'sync');
  return `unfinished sync/prune jobs: ${fleetJobs.map((j) => `${j.id} ${j.name}`).join(', ') || 'none'}`;
}

/** The report as the test prints it: the seed first, so a failure says how to reproduce it. */
export function describeReport(r: ChaosReport): string {
  const reasons = [...r.failedReasons].map(([reason, n]) => `    ${n} × ${reason}`).join('\n');
  return [
    `chaos seed ${r.seed} (${r.size.apps} apps × ${r.size.jobsPerApp} jobs, ${r.size.workers} workers): ${r.findings.length === 0 ? 'PASS' : 'FAIL'} in ${(r.wallMs / 1000).toFixed(1)} s`,
    `  phases (s): ${Object.entries(r.phases)
      .map(([name, s]) => `${name} ${s.toFixed(1)}`)
      .join(', ')}`,
    `  completed ${r.counts.completed}, superseded ${r.counts.superseded}, failed ${r.counts.failed}; ${r.counts.workerKills} worker SIGKILLs, ${r.counts.redisRestarts} Redis restarts`,
    `  by type (completed/superseded/failed): ${Object.entries(r.byType)
      .map(([type, [c, s, f]]) => `${type} ${c}/${s}/${f}`)
      .join(', ')}`,
    ...(reasons ? ['  failed jobs by reason:', reasons] : []),
    ...r.findings.map((f) => `  FINDING: ${f}`),
    ...(r.findings.length > 0 ? [`  reproduce: CHAOS_SEED=${r.seed} npm run test:chaos`] : []),
  ].join('\n');
}

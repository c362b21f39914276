/**
 * `longshore dev` (what `npm start` runs): the whole fleet on one machine with embedded defaults.
 * Starts a private redis-server under .longshore/ when REDIS_URL is unset, the Kubernetes API
 * simulator when KUBECONFIG is unset (state kept in .longshore/cluster.json), makes up a sealing
 * passphrase when LONGSHORE_SECRET is unset (kept in .longshore/secret), runs a worker and the sync
 * scheduler, and prints how to deploy the sample app (examples/hello) and look at it, once the
 * startup log lines have settled (pretty on a terminal, JSON otherwise: src/dev/dev-log.ts).
 * State under .longshore/ survives restarts, and crashes: one `longshore dev` per directory (a
 * lock), a redis-server left behind by a killed one is stopped before a new one starts (PID file),
 * the simulated cluster journals every write before answering it, and everything in the directory
 * is owner-only. SIGTERM, SIGINT, SIGHUP and the death of the parent (npm) stop it all.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Sim, startSim } from '../../infra/kube-sim/sim.ts';
import { loadFleetConfig } from '../core/env.ts';
import { createLogger } from '../core/logger.ts';
import { SyncScheduler } from '../producers/scheduler/sync-scheduler.ts';
import { FleetWorker } from '../workers/fleet-worker.ts';
import { defaultHandlers } from '../workers/handlers/index.ts';
import { acquireDevLock } from './dev-lock.ts';
import { devLog } from './dev-log.ts';
import { freePort, type PrivateRedis, startPrivateRedis } from './private-redis.ts';
import { stopOrphanedRedis } from './redis-pid-file.ts';
import { prepareStateDir } from './state-dir.ts';
import { stopOnSignalsOrOrphaning } from './stop-triggers.ts';

/** Preferred ports of the dev Redis and simulator, so printed URLs stay the same across restarts. */
const DEV_REDIS_PORT = 6390;
const DEV_SIM_PORT = 6391;
export async function runDev(options: { stateDir?: string } = {}): Promise<void> {
  const stateDir = resolve(options.stateDir ?? '.longshore');
  prepareStateDir(stateDir);
  const lock = acquireDevLock(join(stateDir, 'dev.lock'), `${shown(stateDir)}/`);
  const env = { ...process.env };
  let redis: PrivateRedis | undefined;
  let sim: Sim | undefined;

  if (!env.REDIS_URL) {
    const dir = join(stateDir, 'redis');
    const pidFile = join(stateDir, 'redis.pid');
    // Never two redis-servers on one AOF: one an earlier `longshore dev` left behind (kill -9) is
    // stopped first, which completes its AOF, so the new one replays every job it accepted.
    await stopOrphanedRedis(dir, pidFile, {
      onStop: (pid) =>
        process.stdout.write(
          `stopping the redis-server (PID ${pid}) an earlier longshore dev left running on ${shown(dir)}\n`,
        ),
    });
    const port = (await isFree(DEV_REDIS_PORT)) ? DEV_REDIS_PORT : await freePort();
    redis = await startPrivateRedis({ dir, port, appendfsync: 'everysec', pidFile, detached: true });
    env.REDIS_URL = redis.url;
  }
  const snapshotPath = join(stateDir, 'cluster.json');
  if (!env.KUBECONFIG) {
    const port = (await isFree(DEV_SIM_PORT)) ? DEV_SIM_PORT : 0;
    sim = await startSim({ port, statePath: snapshotPath });
    env.KUBECONFIG = join(stateDir, 'kubeconfig');
    sim.writeKubeconfig(env.KUBECONFIG);
  }
  if (!env.LONGSHORE_SECRET) {
    const file = join(stateDir, 'secret');
    if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
    env.LONGSHORE_SECRET = readFileSync(file, 'utf8').trim();
  }
  env.LONGSHORE_METRICS_PORT ??= '0';
  const config = loadFleetConfig(env);
  // Held until the stack has started, so the instructions block below is printed after the
  // startup lines and never has a log line inside it.
  const log = devLog(config.logFormat);
  const logger = createLogger(config.logLevel, { component: 'dev' }, log);
  let worker: FleetWorker;
  let scheduler: SyncScheduler;
  try {
    worker = await FleetWorker.start({ config, logger, registry: defaultHandlers() });
    scheduler = SyncScheduler.fromConfig(config, logger);
    scheduler.start();
    await log.settled();
  } catch (err) {
    log.release();
    throw err;
  }

  const envFile = join(stateDir, 'env.sh');
  writeFileSync(
    envFile,
    `export REDIS_URL=${config.redisUrl}\nexport LONGSHORE_SECRET=${env.LONGSHORE_SECRET}\nexport KUBECONFIG=${env.KUBECONFIG ?? ''}\n`,
    { mode: 0o600 },
  );
  const sample = sampleAppDir();
  const lines = [
    '',
    'longshore dev is running',
    `  redis:     ${config.redisUrl}${redis ? ` (private, data in ${shown(redis.dir)})` : ' (from REDIS_URL)'}`,
    sim
      ? `  cluster:   no KUBECONFIG set: using the simulated cluster, state in ${shown(snapshotPath)} (kube-sim at ${sim.url})`
      : `  cluster:   KUBECONFIG is set: using the cluster of ${env.KUBECONFIG}`,
    `  worker:    ${worker.name}, handlers: ${defaultHandlers().types().join(', ')}; health and metrics on port ${worker.healthPort}`,
    scheduler.enabled
      ? `  scheduler: a sync job every ${formatInterval(scheduler.intervalMs)} (LONGSHORE_SYNC_INTERVAL_MS), one per interval across the fleet`
      : '  scheduler: off (LONGSHORE_SYNC_INTERVAL_MS=0)',
    '',
    `Deploy the sample app (${shown(sample)}) and look at it, from another terminal in this directory:`,
    `  . ${shown(envFile)}`,
    `  npx longshore deploy hello --image nginx:1.27 --procfile ${shown(join(sample, 'Procfile'))} --app-json ${shown(join(sample, 'app.json'))} --wait`,
    '  npx longshore apps:status hello',
    '  npm run kubectl -- get deploy,rs,pods,svc,ingress,cronjob -n default',
    '',
    `${shown(envFile)} exports REDIS_URL, LONGSHORE_SECRET and KUBECONFIG, so the CLI and kubectl use this stack.`,
    'More: npx longshore --help, npx longshore jobs:list. Stop with Ctrl-C; state is kept for the next start.',
    '',
  ];
  log.release(lines.join('\n'));

  // The scheduler and the worker first (they use Redis and the cluster), then the cluster (its last
  // compaction), then Redis (SHUTDOWN: AOF fsynced), then the lock.
  stopOnSignalsOrOrphaning(
    async (reason) => {
      logger.info({ reason }, 'stopping');
      await scheduler.stop();
      await worker.shutdown();
      await sim?.stop();
      await redis?.stop();
      lock.release();
    },
    (err) => logger.error({ err: err.message }, 'stopping longshore dev failed'),
  );
}

async function isFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once('error', () => resolvePort(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolvePort(true)));
  });
}

/** A path as the user should type it: relative to the working directory when inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/** examples/hello of the checkout (src/dev/ → ../../; compiled dist/src/dev/ → ../../../). */
function sampleAppDir(): string {
  for (const up of ['../../examples/hello', '../../../examples/hello']) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(join(dir, 'Procfile'))) return dir;
  }
  return resolve('examples/hello');
}

function formatInterval(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}

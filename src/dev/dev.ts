/**
 * `longshore dev` (what `npm start` runs): the whole fleet on one machine with embedded defaults.
 * Starts a private redis-server under .longshore/ when REDIS_URL is unset, the Kubernetes API
 * simulator when KUBECONFIG is unset (state kept in .longshore/cluster.json), makes up a sealing
 * passphrase when LONGSHORE_SECRET is unset (kept in .longshore/secret), runs a worker, and
 * prints how to point the CLI and kubectl at it. State under .longshore/ survives restarts.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Sim, startSim } from '../../infra/kube-sim/sim.ts';
import { loadFleetConfig } from '../core/env.ts';
import { createLogger } from '../core/logger.ts';
import { FleetWorker } from '../workers/fleet-worker.ts';
import { defaultHandlers } from '../workers/handlers/index.ts';
import { freePort, type PrivateRedis, startPrivateRedis } from './private-redis.ts';

/** Preferred ports of the dev Redis and simulator, so printed URLs stay the same across restarts. */
const DEV_REDIS_PORT = 6390;
const DEV_SIM_PORT = 6391;
/** How often the simulated cluster's state is saved while running. */
const SNAPSHOT_EVERY_MS = 10_000;

export async function runDev(options: { stateDir?: string } = {}): Promise<void> {
  const stateDir = resolve(options.stateDir ?? '.longshore');
  mkdirSync(stateDir, { recursive: true });
  const env = { ...process.env };
  let redis: PrivateRedis | undefined;
  let sim: Sim | undefined;

  if (!env.REDIS_URL) {
    const port = (await isFree(DEV_REDIS_PORT)) ? DEV_REDIS_PORT : await freePort();
    redis = await startPrivateRedis({ dir: join(stateDir, 'redis'), port, appendfsync: 'everysec' });
    env.REDIS_URL = redis.url;
  }
  const snapshotPath = join(stateDir, 'cluster.json');
  if (!env.KUBECONFIG) {
    const port = (await isFree(DEV_SIM_PORT)) ? DEV_SIM_PORT : 0;
    sim = await startSim({ port, snapshotPath });
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
  const logger = createLogger(config.logLevel, { component: 'dev' });
  const worker = await FleetWorker.start({ config, logger, registry: defaultHandlers() });
  const saver = sim ? setInterval(() => sim?.snapshot(snapshotPath), SNAPSHOT_EVERY_MS) : undefined;

  const envFile = join(stateDir, 'env.sh');
  writeFileSync(
    envFile,
    `export REDIS_URL=${config.redisUrl}\nexport LONGSHORE_SECRET=${env.LONGSHORE_SECRET}\nexport KUBECONFIG=${env.KUBECONFIG ?? ''}\n`,
    { mode: 0o600 },
  );
  const lines = [
    '',
    'longshore dev is running',
    `  redis:   ${config.redisUrl}${redis ? ` (private, data in ${redis.dir})` : ' (from REDIS_URL)'}`,
    sim
      ? `  cluster: simulated (kube-sim) at ${sim.url}, state in ${snapshotPath}: no KUBECONFIG was set`
      : `  cluster: from KUBECONFIG ${env.KUBECONFIG}`,
    `  worker:  ${worker.name}, handlers: ${defaultHandlers().types().join(', ')}; health and metrics on port ${worker.healthPort}`,
    '',
    'In another terminal:',
    `  . ${envFile}`,
    '  npx longshore sync --wait          # a job through the fleet, end to end',
    '  npx longshore jobs:list            # what ran',
    '  npx longshore apps:list',
    ...(sim
      ? ['  kubectl get ns                     # the simulated cluster (or: npx longshore sim --help)']
      : []),
    '',
    'Deploy handlers are being built: a deploy job fails saying so. Stop with Ctrl-C.',
    '',
  ];
  process.stdout.write(lines.join('\n'));

  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    if (saver) clearInterval(saver);
    await worker.shutdown();
    if (sim) {
      sim.snapshot(snapshotPath);
      await sim.stop();
    }
    await redis?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

async function isFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once('error', () => resolvePort(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolvePort(true)));
  });
}

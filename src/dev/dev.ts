/**
 * `longshore dev` (what `npm start` runs): the whole fleet on one machine with embedded defaults.
 * Starts a private redis-server under .longshore/ when REDIS_URL is unset, makes up a sealing
 * passphrase when LONGSHORE_SECRET is unset (kept in .longshore/secret), runs a worker, and prints
 * how to point the CLI at it. State under .longshore/ survives restarts.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadFleetConfig } from '../core/env.ts';
import { createLogger } from '../core/logger.ts';
import { FleetWorker } from '../workers/fleet-worker.ts';
import { defaultHandlers } from '../workers/handlers/index.ts';
import { freePort, type PrivateRedis, startPrivateRedis } from './private-redis.ts';

/** Preferred port of the dev Redis, so the printed REDIS_URL stays the same across restarts. */
const DEV_REDIS_PORT = 6390;

export async function runDev(options: { stateDir?: string } = {}): Promise<void> {
  const stateDir = resolve(options.stateDir ?? '.longshore');
  mkdirSync(stateDir, { recursive: true });
  const env = { ...process.env };
  let redis: PrivateRedis | undefined;

  if (!env.REDIS_URL) {
    const port = (await isFree(DEV_REDIS_PORT)) ? DEV_REDIS_PORT : await freePort();
    redis = await startPrivateRedis({ dir: join(stateDir, 'redis'), port, appendfsync: 'everysec' });
    env.REDIS_URL = redis.url;
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

  const envFile = join(stateDir, 'env.sh');
  writeFileSync(
    envFile,
    `export REDIS_URL=${config.redisUrl}\nexport LONGSHORE_SECRET=${env.LONGSHORE_SECRET}\n`,
    { mode: 0o600 },
  );
  const lines = [
    '',
    'longshore dev is running',
    `  redis:   ${config.redisUrl}${redis ? ` (private, data in ${redis.dir})` : ' (from REDIS_URL)'}`,
    `  worker:  ${worker.name}, handlers: ${defaultHandlers().types().join(', ')}; health and metrics on port ${worker.healthPort}`,
    '  cluster: none yet: the Kubernetes simulator and deploy handlers are being built (see docs/architecture.md)',
    '',
    'In another terminal:',
    `  . ${envFile}`,
    '  npx longshore sync --wait          # a job through the fleet, end to end',
    '  npx longshore jobs:list            # what ran',
    '  npx longshore apps:list',
    '',
    'Stop with Ctrl-C.',
    '',
  ];
  process.stdout.write(lines.join('\n'));

  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    await worker.shutdown();
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

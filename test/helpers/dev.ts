/** `longshore dev` (and `npm start`) as real processes on a temporary state directory. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CLI, type Proc, startProcess } from './processes.ts';

/** No REDIS_URL, KUBECONFIG or LONGSHORE_SECRET: dev makes its own; no scheduled syncs. */
export const DEV_ENV: Record<string, string> = {
  REDIS_URL: '',
  KUBECONFIG: '',
  LONGSHORE_SECRET: '',
  LONGSHORE_SYNC_INTERVAL_MS: '0',
  LONGSHORE_METRICS_PORT: '0',
  LONGSHORE_LOG_LEVEL: 'info',
};

const READY = /^longshore dev is running/;

export async function startDev(stateDir: string): Promise<Proc> {
  const dev = startProcess(CLI, ['dev', '--state-dir', stateDir], DEV_ENV);
  await dev.waitForLine(READY, 60_000);
  return dev;
}

/** `npm start -- --state-dir DIR` from the checkout, as a developer runs it. */
export async function startNpmStart(stateDir: string): Promise<Proc> {
  const npm = startProcess(npmCli(), ['start', '--', '--state-dir', stateDir], DEV_ENV);
  await npm.waitForLine(READY, 60_000);
  return npm;
}

/** The environment `.longshore/env.sh` exports, for the CLI against this dev stack. */
export function devEnv(stateDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(join(stateDir, 'env.sh'), 'utf8').split('\n')) {
    const match = /^export ([A-Z_]+)=(.*)$/.exec(line);
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}

function npmCli(): string {
  // npm's own entry point, run with this Node (no shell wrapper in between).
  const execPath = process.env.npm_execpath;
  if (execPath?.endsWith('npm-cli.js')) return execPath;
  const require = createRequire(import.meta.url);
  try {
    return require.resolve('npm/bin/npm-cli.js', { paths: [join(dirname(process.execPath), '../lib')] });
  } catch {
    return '/usr/lib/node_modules/npm/bin/npm-cli.js';
  }
}

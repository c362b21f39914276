/**
 * `longshore dev` (`npm start`) survives what a developer does to it: a second start on the same
 * directory refuses, a kill -9 leaves nothing the next start cannot handle (its redis-server is
 * stopped cleanly, no job lost, never two redis-servers on one AOF), signals stop every child, the
 * simulated cluster keeps every write Redis recorded as done, and `.longshore/` is owner-only.
 * One file, one test at a time: every dev stack prefers the same ports.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretReleaseStore } from '../../../src/storage/index.ts';
import { DEV_ENV, devEnv, startDev, startNpmStart } from '../../helpers/dev.ts';
import { descendants, isAlive, redisServersIn } from '../../helpers/process-tree.ts';
import { killAll, ROOT, runCli } from '../../helpers/processes.ts';
import { until } from '../../helpers/wait.ts';

const cleanups: (() => void)[] = [];

afterEach(async () => {
  // Whatever a test left behind (an orphaned redis-server is what some of them provoke).
  for (const clean of cleanups.splice(0)) clean();
  await killAll();
});

function stateDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'longshore-dev-')), '.longshore');
  cleanups.push(() => {
    for (const pid of redisServersIn(join(dir, 'redis'))) process.kill(pid, 'SIGKILL');
  });
  return dir;
}

/** Processes a failed test may leave running (npm's children keep its output open). */
function cleanup(pids: number[]): void {
  cleanups.push(() => {
    for (const pid of pids)
      if (isAlive(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
  });
}

async function allGone(pids: number[], what: string): Promise<void> {
  await until(() => pids.every((pid) => !isAlive(pid)) || undefined, what, { timeoutMs: 20_000 });
}

describe('longshore dev', () => {
  it('refuses a second start naming the PID; after kill -9 the next start takes over and stops the orphaned redis-server, keeping its jobs', async () => {
    const dir = stateDir();
    const redisDir = join(dir, 'redis');
    const first = await startDev(dir);
    const env = devEnv(dir);
    const refused = await runCli(['dev', '--state-dir', dir], DEV_ENV, 30_000);
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stderr).toContain(`another longshore dev (PID ${first.pid}) is using ${dir}/`);
    const [orphan, ...others] = redisServersIn(redisDir);
    expect(others).toEqual([]);
    first.kill('SIGKILL');
    await first.exited;
    // The redis-server lives on, and takes a job no worker is left to run.
    expect(isAlive(orphan!)).toBe(true);
    const enqueued = await runCli(['ps:scale', 'ghost', 'web=1', '--json'], env);
    expect(enqueued.code, enqueued.stderr).toBe(0);
    const jobId = (JSON.parse(enqueued.stdout) as { job: { id: string } }).job.id;

    const second = await startDev(dir);
    expect(second.output()).toContain(`stopping the redis-server (PID ${orphan})`);
    const servers = redisServersIn(redisDir);
    expect(servers).toHaveLength(1);
    expect(servers[0]).not.toBe(orphan);
    expect(isAlive(orphan!)).toBe(false);
    const shown = await runCli(['jobs:show', jobId, '--json'], devEnv(dir));
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(jobId);
  });

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`stops every child when npm start gets ${signal}`, async () => {
      const dir = stateDir();
      const npm = await startNpmStart(dir);
      const tree = descendants(npm.pid);
      cleanup(tree.map((p) => p.pid));
      expect(tree.map((p) => p.comm)).toContain('redis-server');
      npm.kill(signal);
      await allGone(
        [npm.pid, ...tree.map((p) => p.pid)],
        `every process of npm start to end after ${signal}`,
      );
      expect(redisServersIn(join(dir, 'redis'))).toEqual([]);
    });
  }

  it('stops its redis-server when longshore dev itself gets SIGHUP (terminal closed)', async () => {
    const dir = stateDir();
    const dev = await startDev(dir);
    const tree = descendants(dev.pid);
    cleanup(tree.map((p) => p.pid));
    expect(tree.map((p) => p.comm)).toContain('redis-server');
    dev.kill('SIGHUP');
    await allGone([dev.pid, ...tree.map((p) => p.pid)], 'longshore dev and its redis-server to end');
  });

  it('keeps the revision Redis recorded as deployed across kill -9 and a restart; .longshore/ is owner-only', async () => {
    const dir = stateDir();
    // What an older version left: a world-readable directory and passphrase.
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'secret'), 'an-older-passphrase-0123456789-abcdefghijkl');
    chmodSync(join(dir, 'secret'), 0o644);
    const first = await startDev(dir);
    const env = devEnv(dir);
    const sample = join(ROOT, 'examples/hello');
    const deploy = await runCli(
      [
        'deploy',
        'hello',
        '--image',
        'nginx:1.27',
        '--procfile',
        join(sample, 'Procfile'),
        '--app-json',
        join(sample, 'app.json'),
        '--wait',
      ],
      env,
    );
    expect(deploy.code, deploy.stdout + deploy.stderr).toBe(0);
    const recorded = await runCli(['apps:status', 'hello', '--json'], env);
    expect(recorded.code, recorded.stderr).toBe(0);
    const status = JSON.parse(recorded.stdout) as { revision?: number | string };
    expect(Number(status.revision)).toBe(1);
    first.kill('SIGKILL');
    await first.exited;

    await startDev(dir);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(devEnv(dir).KUBECONFIG!);
    const store = new SecretReleaseStore({ kube: kc });
    await store.start();
    try {
      expect(store.last('hello')).toMatchObject({ revision: 1, status: 'deployed' });
      const web = await kc
        .makeApiClient(k8s.AppsV1Api)
        .readNamespacedDeployment({ name: 'hello-web', namespace: 'default' });
      expect(web.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.27');
    } finally {
      await store.stop();
    }
    // Everything in it holds secrets (the passphrase, the cluster's Secrets, Redis's jobs).
    const modes: Record<string, string> = {};
    const walk = (path: string, name: string) => {
      const s = statSync(path);
      modes[name] = `${s.isDirectory() ? 'dir' : 'file'} ${(s.mode & 0o777).toString(8)}`;
      if (s.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry), `${name}/${entry}`);
    };
    walk(dir, '.longshore');
    expect(modes['.longshore/cluster.json']).toBe('file 600');
    expect(modes['.longshore/env.sh']).toBe('file 600');
    expect(modes['.longshore/kubeconfig']).toBe('file 600');
    expect(modes['.longshore/secret']).toBe('file 600');
    expect(modes['.longshore']).toBe('dir 700');
    expect(Object.entries(modes).filter(([, mode]) => mode !== 'file 600' && mode !== 'dir 700')).toEqual([]);
  });
});

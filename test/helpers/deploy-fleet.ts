/**
 * End-to-end rig: a private redis-server (or a Redis Cluster, see ./test-redis.ts), kube-sim (controllers on) in this process, and real
 * worker processes (`longshore worker`) pointed at the simulator through a kubeconfig file. Tests
 * drive it with the real CLI, so every job goes CLI → Redis → worker process → kube-sim over HTTP.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WRITE_VERBS } from '../../infra/kube-sim/server/request-log.ts';
import type { SimOptions } from '../../infra/kube-sim/sim.ts';
import { SecretReleaseStore } from '../../src/storage/index.ts';
import { CLI, fleetEnv, killAll, type Proc, runCli, startProcess } from './processes.ts';
import {
  AS_SERVICE_ACCOUNT,
  describeRequest,
  forbiddenRequests,
  type Manifest,
  RBAC_MANIFEST,
  rbacManifests,
  SERVICE_ACCOUNT_USER,
  serviceAccountKubeconfig,
} from './service-account.ts';
import { type SimClients, startSimWithClients } from './sim.ts';
import { startTestRedis, type TestRedis } from './test-redis.ts';
import { within } from './wait.ts';

export interface DeployFleet extends SimClients {
  redis: TestRedis;
  env: Record<string, string>;
  workers: Proc[];
  dir: string;
  startWorker(extraEnv?: Record<string, string>): Promise<Proc>;
  cli(
    args: string[],
    options?: { timeoutMs?: number; stdin?: string },
  ): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Runs the CLI and returns its stdout; a non-zero exit throws with both outputs. */
  ok(args: string[], options?: { stdin?: string }): Promise<string>;
  /** Write requests the simulator served while `fn` ran (the worker's informers only read). */
  writesDuring(fn: () => Promise<unknown>): Promise<string[]>;
  /** A release store of the test's own (another reader of the same storage), started. */
  store(): Promise<SecretReleaseStore>;
  /** Writes to `file` in the fleet's temp directory; returns its path. */
  file(name: string, content: string): string;
  /**
   * `deploy APP --image IMAGE --wait` with a Procfile, an app.json and registry credentials for
   * registry.example.com (user `ci`, password `registry-password` on stdin); returns stdout.
   */
  deployWithRegistry(app: string, image: string, procfile: string, appJson: string): Promise<string>;
  stop(): Promise<void>;
}

export interface DeployFleetOptions {
  /**
   * Act as the ServiceAccount with these RBAC manifests, whatever LONGSHORE_TEST_AS_SERVICE_ACCOUNT
   * says, and leave the 403s to the test (test/integration/rbac/rules.test.ts removes rules).
   */
  serviceAccount?: { manifests: Manifest[] };
}

export async function startDeployFleet(
  simOptions: SimOptions = {},
  options: DeployFleetOptions = {},
): Promise<DeployFleet> {
  const redis = await startTestRedis();
  const asServiceAccount = AS_SERVICE_ACCOUNT || options.serviceAccount !== undefined;
  const clients = await startSimWithClients(
    asServiceAccount ? { ...simOptions, authorization: 'rbac' } : simOptions,
  );
  const dir = mkdtempSync(join(tmpdir(), 'longshore-e2e-'));
  const kubeconfig = join(dir, 'kubeconfig');
  // longshore's processes get this kubeconfig; the test's own clients (`kc`, `core`…) stay admin.
  writeFileSync(
    kubeconfig,
    asServiceAccount
      ? await serviceAccountKubeconfig(
          clients.sim,
          clients,
          options.serviceAccount?.manifests ??
            rbacManifests(process.env.LONGSHORE_TEST_RBAC_MANIFEST || RBAC_MANIFEST),
        )
      : clients.sim.kubeconfig(),
  );
  const env = fleetEnv(redis.url, { KUBECONFIG: kubeconfig, LONGSHORE_SYNC_INTERVAL_MS: '0' });
  const workers: Proc[] = [];
  const stores: SecretReleaseStore[] = [];
  return {
    ...clients,
    redis,
    env,
    workers,
    dir,
    async startWorker(extraEnv = {}) {
      const worker = startProcess(CLI, ['worker'], { ...env, ...extraEnv });
      workers.push(worker);
      await worker.waitForLine(/worker started/);
      return worker;
    },
    cli: (args, options = {}) => runCli(args, env, options.timeoutMs ?? 90_000, options.stdin),
    async ok(args, options = {}) {
      const result = await runCli(args, env, 90_000, options.stdin);
      if (result.code !== 0)
        throw new Error(
          `longshore ${args.join(' ')} exited ${result.code}:\n${result.stdout}\n${result.stderr}`,
        );
      return result.stdout;
    },
    async writesDuring(fn) {
      const before = clients.sim.requests.entries().length;
      await fn();
      return clients.sim.requests
        .entries()
        .slice(before)
        .filter((r) => WRITE_VERBS.includes(r.verb))
        .map((r) => `${r.verb} ${r.resource} ${r.namespace ?? ''}/${r.name ?? ''}`);
    },
    async store() {
      const store = new SecretReleaseStore({ kube: clients.kc });
      await store.start();
      stores.push(store);
      return store;
    },
    file(name, content) {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    deployWithRegistry(this: DeployFleet, app: string, image: string, procfile: string, appJson: string) {
      return this.ok(
        [
          'deploy',
          app,
          '--image',
          image,
          '--procfile',
          this.file(`${app}.Procfile`, procfile),
          '--app-json',
          this.file(`${app}.app.json`, appJson),
          '--registry-server',
          'registry.example.com',
          '--registry-username',
          'ci',
          '--registry-password-stdin',
          '--wait',
        ],
        { stdin: 'registry-password' },
      );
    },
    async stop() {
      for (const store of stores) await store.stop();
      for (const w of workers) w.kill('SIGTERM');
      // Up to 15 s for a clean exit; whatever is left is SIGKILLed below.
      await within(Promise.all(workers.map((w) => w.exited)), 15_000, 'workers to exit on SIGTERM').catch(
        () => undefined,
      );
      await killAll();
      await clients.sim.stop();
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
      if (asServiceAccount && !options.serviceAccount) {
        // What the ServiceAccount asked for, one JSON line per request (LONGSHORE_TEST_RBAC_RECORD):
        // how a new feature's needs are found (docs/rbac.md "Changing the rules").
        const record = process.env.LONGSHORE_TEST_RBAC_RECORD;
        if (record) {
          const mine = clients.sim.requests.entries().filter((r) => r.user === SERVICE_ACCOUNT_USER);
          appendFileSync(record, mine.map((r) => `${JSON.stringify(describeRequest(r))}\n`).join(''));
        }
        const refused = forbiddenRequests(clients.sim);
        if (refused.length > 0)
          throw new Error(
            `kube-sim refused ${refused.length} request(s) of ${SERVICE_ACCOUNT_USER} (infra/deploy/rbac.yaml lacks a rule):\n${[...new Set(refused)].join('\n')}`,
          );
      }
    },
  };
}

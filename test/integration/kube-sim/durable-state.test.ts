/**
 * A simulator with a state file (what `longshore dev` runs) loses nothing it answered as written,
 * even when its process is killed with -9 right after: every write is journaled and fsynced before
 * the answer. The files hold Secrets and are 0600.
 */
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { killAll, ROOT, startProcess } from '../../helpers/processes.ts';

const HOST = `${ROOT}test/fixtures/kube-sim/sim-host.ts`;

async function startHost(statePath: string) {
  const proc = startProcess(HOST, [statePath], {});
  const line = await proc.waitForLine(/^kube-sim at /, 20_000);
  const kc = new k8s.KubeConfig();
  kc.loadFromClusterAndUser(
    { name: 'sim', server: line.replace('kube-sim at ', ''), skipTLSVerify: true },
    { name: 'sim' },
  );
  return { proc, core: kc.makeApiClient(k8s.CoreV1Api), apps: kc.makeApiClient(k8s.AppsV1Api) };
}

afterEach(() => killAll());

describe('kube-sim durable state', () => {
  it('keeps every answered write across kill -9 of the process hosting it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-sim-durable-'));
    const statePath = join(dir, 'cluster.json');
    const first = await startHost(statePath);
    await first.core.createNamespace({ body: { metadata: { name: 'kept' } } });
    const secret = await first.core.createNamespacedSecret({
      namespace: 'kept',
      body: { metadata: { name: 'creds' }, stringData: { password: 'hunter2' } },
    });
    const gone = await first.core.createNamespacedConfigMap({
      namespace: 'kept',
      body: { metadata: { name: 'gone' }, data: { a: '1' } },
    });
    await first.core.deleteNamespacedConfigMap({ namespace: 'kept', name: gone.metadata!.name! });
    const cm = await first.core.createNamespacedConfigMap({
      namespace: 'kept',
      body: { metadata: { name: 'cfg' }, data: { a: '1' } },
    });
    const updated = await first.core.replaceNamespacedConfigMap({
      namespace: 'kept',
      name: 'cfg',
      body: { ...cm, data: { a: '2' } },
    });
    const deployment = await first.apps.createNamespacedDeployment({
      namespace: 'kept',
      body: {
        metadata: { name: 'web' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
          },
        },
      },
    });
    // The last write was answered: kill at once, no chance to save on the way out.
    first.proc.kill('SIGKILL');
    await first.proc.exited;

    const second = await startHost(statePath);
    const restored = await second.core.readNamespacedConfigMap({ namespace: 'kept', name: 'cfg' });
    expect(restored.data).toEqual({ a: '2' });
    expect(restored.metadata?.uid).toBe(cm.metadata?.uid);
    expect(restored.metadata?.resourceVersion).toBe(updated.metadata?.resourceVersion);
    const restoredSecret = await second.core.readNamespacedSecret({ namespace: 'kept', name: 'creds' });
    expect(restoredSecret.metadata?.uid).toBe(secret.metadata?.uid);
    expect(Buffer.from(restoredSecret.data?.password ?? '', 'base64').toString()).toBe('hunter2');
    const restoredDeployment = await second.apps.readNamespacedDeployment({ namespace: 'kept', name: 'web' });
    expect(restoredDeployment.metadata?.uid).toBe(deployment.metadata?.uid);
    const names = (await second.core.listNamespacedConfigMap({ namespace: 'kept' })).items.map(
      (c) => c.metadata?.name,
    );
    expect(names).not.toContain('gone');
    // The counter goes on from where it was.
    const next = await second.core.createNamespacedConfigMap({
      namespace: 'kept',
      body: { metadata: { name: 'next' } },
    });
    expect(Number(next.metadata?.resourceVersion)).toBeGreaterThan(
      Number(restoredDeployment.metadata?.resourceVersion),
    );

    // A graceful stop compacts the journal into the state file; a third start still has it all.
    second.proc.kill('SIGTERM');
    expect((await second.proc.exited).code).toBe(0);
    const third = await startHost(statePath);
    expect(
      (await third.core.readNamespacedConfigMap({ namespace: 'kept', name: 'next' })).metadata?.uid,
    ).toBe(next.metadata?.uid);

    // The cluster's Secrets are in these files: owner-only.
    for (const file of readdirSync(dir)) expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600);
  });
});

/**
 * The real helm 4 against kube-sim: install, upgrade, rollback, history, status and uninstall of a
 * small chart (Deployment, Service, Secret, ConfigMap) with --wait, leaving the objects a cluster
 * would, with helm's own release Secrets (`sh.helm.release.v1.*`, sent as protobuf) stored and listed.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';

const CHART = fileURLToPath(new URL('../../fixtures/charts/hello', import.meta.url));

describe('real helm against kube-sim', () => {
  let c: SimClients;
  let cli: KubeCli;
  const ns = 'helm';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { podReadyDelayMs: 100 } });
    cli = await kubeCli(c.sim);
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  const releaseSecrets = async () =>
    (await c.core.listNamespacedSecret({ namespace: ns, labelSelector: 'owner=helm' })).items
      .map((s) => `${s.metadata?.name} ${s.metadata?.labels?.status}`)
      .sort();

  it('installs with --wait: rolled out, with its release Secret', async () => {
    const install = await cli.helm(['install', 'hello', CHART, '-n', ns, '--wait', '--timeout', '60s']);
    expect(install.stderr).toBe('');
    expect(install.code).toBe(0);
    expect(install.stdout).toContain('STATUS: deployed');
    const deployment = await c.apps.readNamespacedDeployment({ namespace: ns, name: 'hello' });
    expect(deployment.status?.readyReplicas).toBe(2);
    expect(deployment.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    expect((await c.core.readNamespacedConfigMap({ namespace: ns, name: 'hello-settings' })).data).toEqual({
      GREETING: 'hello',
    });
    expect(await releaseSecrets()).toEqual(['sh.helm.release.v1.hello.v1 deployed']);
  });

  it('upgrades with --wait: a new ReplicaSet, revision 2, revision 1 superseded', async () => {
    const upgrade = await cli.helm([
      'upgrade',
      'hello',
      CHART,
      '-n',
      ns,
      '--wait',
      '--timeout',
      '60s',
      '--set',
      'image=nginx:1.28',
      '--set',
      'greeting=hi',
    ]);
    expect(upgrade.stderr).toBe('');
    expect(upgrade.code).toBe(0);
    const deployment = await c.apps.readNamespacedDeployment({ namespace: ns, name: 'hello' });
    expect(deployment.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.28');
    expect(deployment.status?.updatedReplicas).toBe(2);
    expect((await c.apps.listNamespacedReplicaSet({ namespace: ns })).items).toHaveLength(2);
    expect(await releaseSecrets()).toEqual([
      'sh.helm.release.v1.hello.v1 superseded',
      'sh.helm.release.v1.hello.v2 deployed',
    ]);
  });

  it('rolls back, and lists history and status', async () => {
    const rollback = await cli.helm(['rollback', 'hello', '1', '-n', ns, '--wait', '--timeout', '60s']);
    expect(rollback.stderr).toBe('');
    expect(rollback.code).toBe(0);
    expect(
      (await c.apps.readNamespacedDeployment({ namespace: ns, name: 'hello' })).spec?.template.spec
        ?.containers[0]?.image,
    ).toBe('nginx:1.27');
    expect((await c.core.readNamespacedConfigMap({ namespace: ns, name: 'hello-settings' })).data).toEqual({
      GREETING: 'hello',
    });
    const history = await cli.helm(['history', 'hello', '-n', ns, '-o', 'json']);
    const revisions = (JSON.parse(history.stdout) as { revision: number; status: string }[]).map(
      (r) => `${r.revision} ${r.status}`,
    );
    expect(revisions).toEqual(['1 superseded', '2 superseded', '3 deployed']);
    const status = await cli.helm(['status', 'hello', '-n', ns]);
    expect(status.stdout).toContain('STATUS: deployed');
    expect(status.stdout).toContain('REVISION: 3');
    const list = await cli.helm(['list', '-n', ns, '-o', 'json']);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ name: 'hello', revision: '3', status: 'deployed' }),
    ]);
  });

  it('uninstalls: the chart objects and release Secrets go', async () => {
    const uninstall = await cli.helm(['uninstall', 'hello', '-n', ns, '--wait', '--timeout', '60s']);
    expect(uninstall.code).toBe(0);
    expect(uninstall.stdout).toContain('release "hello" uninstalled');
    await c.sim.settle();
    expect((await c.apps.listNamespacedDeployment({ namespace: ns })).items).toEqual([]);
    expect((await c.core.listNamespacedService({ namespace: ns })).items).toEqual([]);
    expect(await releaseSecrets()).toEqual([]);
    // The Deployment's ReplicaSets and Pods went with it (garbage collection).
    expect((await c.apps.listNamespacedReplicaSet({ namespace: ns })).items).toEqual([]);
  });
});

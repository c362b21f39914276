/**
 * Server-side apply and the three patch types through client-node over HTTP: ownership, removal
 * of fields a manager stops applying, conflicts and force; strategic merge by merge key (the
 * imagePullSecrets leak) against a JSON merge patch replacing the list; JSON patch with test.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';

const ssa = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const strategic = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);
const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);

function deployment(name: string, spec: Record<string, unknown>, labels?: Record<string, string>) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
      },
      ...spec,
    },
  };
}

describe('kube-sim server-side apply and patches', () => {
  let c: SimClients;
  const ns = 'applying';

  beforeAll(async () => {
    // API machinery only: no workload controller writes in the background.
    c = await startSimWithClients({ controllers: false });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  const apply = (body: object, fieldManager: string, force = false) =>
    c.apps.patchNamespacedDeployment(
      {
        namespace: ns,
        name: (body as { metadata: { name: string } }).metadata.name,
        body,
        fieldManager,
        force,
      },
      ssa,
    );

  it('creates with apply, records ownership, and a repeated apply writes nothing', async () => {
    const created = await apply(deployment('one', { replicas: 2 }, { team: 'a' }), 'longshore');
    expect(created.spec?.replicas).toBe(2);
    const entry = created.metadata?.managedFields?.find((m) => m.manager === 'longshore');
    expect(entry).toMatchObject({ operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' });
    expect(entry?.fieldsV1).toMatchObject({
      'f:metadata': { 'f:labels': { 'f:team': {} } },
      'f:spec': { 'f:replicas': {} },
    });
    const rv = c.sim.store.currentRv;
    const again = await apply(deployment('one', { replicas: 2 }, { team: 'a' }), 'longshore');
    expect(again.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(c.sim.store.currentRv).toBe(rv);
  });

  it('removes a field its manager stops applying, unless another manager owns it', async () => {
    await apply(deployment('two', { replicas: 3 }, { team: 'a', tier: 'web' }), 'longshore');
    // Another applier applies the same value: shared ownership, no conflict.
    await c.apps.patchNamespacedDeployment(
      {
        namespace: ns,
        name: 'two',
        body: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'two', labels: { tier: 'web' } },
        },
        fieldManager: 'other',
      },
      ssa,
    );
    const after = await apply(deployment('two', { replicas: 3 }), 'longshore');
    // team was only longshore's: gone. tier is also other's: kept.
    expect(after.metadata?.labels).toEqual({ tier: 'web' });
  });

  it('refuses a conflicting value with 409 FieldManagerConflict, and force takes ownership', async () => {
    await apply(deployment('three', { replicas: 1 }), 'longshore');
    await c.apps.patchNamespacedDeployment(
      { namespace: ns, name: 'three', body: { spec: { replicas: 4 } }, fieldManager: 'hpa' },
      merge,
    );
    const status = await statusOf(apply(deployment('three', { replicas: 2 }), 'longshore'));
    expect(status).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "hpa" using apps/v1: .spec.replicas',
      details: {
        causes: [
          {
            reason: 'FieldManagerConflict',
            message: 'conflict with "hpa" using apps/v1',
            field: '.spec.replicas',
          },
        ],
      },
    });
    const forced = await apply(deployment('three', { replicas: 2 }), 'longshore', true);
    expect(forced.spec?.replicas).toBe(2);
    const owners = forced.metadata?.managedFields
      ?.filter((m) => JSON.stringify(m.fieldsV1).includes('f:replicas'))
      .map((m) => m.manager);
    expect(owners).toEqual(['longshore']);
  });

  it('requires fieldManager for apply and refuses force on other patches', async () => {
    const missing = await statusOf(
      c.apps.patchNamespacedDeployment({ namespace: ns, name: 'one', body: deployment('one', {}) }, ssa),
    );
    expect(missing).toMatchObject({
      code: 422,
      message: expect.stringContaining('fieldManager: Required value: is required for apply patch'),
    });
    const force = await statusOf(
      c.apps.patchNamespacedDeployment(
        { namespace: ns, name: 'one', body: { spec: {} }, force: true },
        merge,
      ),
    );
    expect(force).toMatchObject({
      code: 422,
      message: expect.stringContaining('force: Forbidden: may not be specified for non-apply patch'),
    });
  });

  it('strategic merge adds imagePullSecrets by name (the leak); a JSON merge patch replaces the list', async () => {
    await apply(deployment('pulls', {}), 'longshore');
    const withSecret = (names: string[]) => ({
      spec: { template: { spec: { imagePullSecrets: names.map((name) => ({ name })) } } },
    });
    await c.apps.patchNamespacedDeployment(
      { namespace: ns, name: 'pulls', body: withSecret(['pull-secret-1']) },
      strategic,
    );
    const leaked = await c.apps.patchNamespacedDeployment(
      { namespace: ns, name: 'pulls', body: withSecret(['pull-secret-2']) },
      strategic,
    );
    expect(leaked.spec?.template.spec?.imagePullSecrets?.map((s) => s.name).sort()).toEqual([
      'pull-secret-1',
      'pull-secret-2',
    ]);
    const pruned = await c.apps.patchNamespacedDeployment(
      { namespace: ns, name: 'pulls', body: withSecret(['pull-secret-2']) },
      merge,
    );
    expect(pruned.spec?.template.spec?.imagePullSecrets).toEqual([{ name: 'pull-secret-2' }]);
  });

  it('strategic merge merges containers and env by name', async () => {
    const patched = await c.apps.patchNamespacedDeployment(
      {
        namespace: ns,
        name: 'pulls',
        body: {
          spec: {
            template: {
              spec: {
                containers: [
                  { name: 'web', env: [{ name: 'A', value: '1' }] },
                  { name: 'sidecar', image: 'busybox' },
                ],
              },
            },
          },
        },
      },
      strategic,
    );
    const containers = patched.spec?.template.spec?.containers ?? [];
    expect(containers.map((c) => c.name).sort()).toEqual(['sidecar', 'web']);
    expect(containers.find((c) => c.name === 'web')).toMatchObject({
      image: 'nginx:1.27',
      env: [{ name: 'A', value: '1' }],
    });
  });

  it('applies JSON patches, with a failing test op answered 422', async () => {
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'jp' }, data: { a: '1' } },
    });
    const patched = await c.core.patchNamespacedConfigMap(
      {
        namespace: ns,
        name: 'jp',
        body: [
          { op: 'test', path: '/data/a', value: '1' },
          { op: 'add', path: '/data/b', value: '2' },
          { op: 'remove', path: '/data/a' },
        ],
      },
      jsonPatch,
    );
    expect(patched.data).toEqual({ b: '2' });
    const failed = await statusOf(
      c.core.patchNamespacedConfigMap(
        { namespace: ns, name: 'jp', body: [{ op: 'test', path: '/data/b', value: 'nope' }] },
        jsonPatch,
      ),
    );
    expect(failed).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    });
  });

  it('answers a patch of a missing object with 404, except apply which creates', async () => {
    expect(
      (
        await statusOf(
          c.apps.patchNamespacedDeployment({ namespace: ns, name: 'ghost', body: { spec: {} } }, merge),
        )
      ).code,
    ).toBe(404);
    const created = await apply(deployment('ghost', {}), 'longshore');
    expect(created.metadata?.uid).toBeTruthy();
  });

  it('applies through KubernetesObjectApi the way longshore will', async () => {
    const applied = await c.objects.patch(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'config-web', namespace: ns },
        type: 'Opaque',
        stringData: { A: '1' },
      } as k8s.KubernetesObject,
      undefined,
      undefined,
      'longshore',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    expect((applied as k8s.V1Secret).data).toEqual({ A: Buffer.from('1').toString('base64') });
  });
});

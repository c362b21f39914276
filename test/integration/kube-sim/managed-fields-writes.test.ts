/**
 * managedFields written by a patch or an update (upstream's fieldmanager decodeLiveOrNew): they
 * replace the stored ones, `[{}]` resets them, an object without them keeps them. This is how
 * longshore moves the ownership of leaked imagePullSecrets to itself so that its next apply
 * removes them (docs/releases.md, "Leaked pull secrets").
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';

const ssa = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const strategic = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);

const ns = 'owning';

function deployment(name: string, image: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
    },
  };
}

describe('kube-sim: managedFields in update and patch bodies', () => {
  let c: SimClients;
  beforeAll(async () => {
    c = await startSimWithClients({ controllers: false });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  const apply = (body: ReturnType<typeof deployment>) =>
    c.apps.patchNamespacedDeployment(
      { namespace: ns, name: body.metadata.name, body, fieldManager: 'longshore', force: true },
      ssa,
    );

  it('a metadata-only patch moves ownership; the next apply removes what it no longer lists', async () => {
    await apply(deployment('web', 'nginx:1.27'));
    const leaked = await c.apps.patchNamespacedDeployment(
      {
        namespace: ns,
        name: 'web',
        fieldManager: 'kubectl-patch',
        body: { spec: { template: { spec: { imagePullSecrets: [{ name: 'leaked-1' }] } } } },
      },
      strategic,
    );
    // A plain apply keeps the entry: another manager owns it.
    const kept = await apply(deployment('web', 'nginx:1.27'));
    expect(kept.spec?.template.spec?.imagePullSecrets).toEqual([{ name: 'leaked-1' }]);

    const key = 'k:{"name":"leaked-1"}';
    type Fields = Record<string, Record<string, Record<string, Record<string, unknown>>>>;
    const managedFields = (leaked.metadata?.managedFields ?? []).map((entry) => {
      const fields = structuredClone(entry.fieldsV1) as Fields;
      if (entry.manager === 'kubectl-patch') delete fields['f:spec'];
      else
        fields['f:spec']!['f:template']!['f:spec']!['f:imagePullSecrets'] = {
          [key]: { '.': {}, 'f:name': {} },
        };
      return { ...entry, fieldsV1: fields };
    });
    const before = await c.apps.readNamespacedDeployment({ namespace: ns, name: 'web' });
    const moved = await c.apps.patchNamespacedDeployment(
      {
        namespace: ns,
        name: 'web',
        fieldManager: 'longshore',
        body: { metadata: { resourceVersion: before.metadata?.resourceVersion, managedFields } },
      },
      merge,
    );
    expect(moved.metadata?.generation).toBe(before.metadata?.generation);
    expect(moved.metadata?.managedFields?.map((m) => `${m.manager}/${m.operation}`)).toEqual([
      'longshore/Apply',
    ]);

    const cleaned = await apply(deployment('web', 'nginx:1.28'));
    expect(cleaned.spec?.template.spec?.imagePullSecrets ?? []).toEqual([]);
    expect(cleaned.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.28');
  });

  it('a patch without managedFields keeps them; [{}] resets them', async () => {
    const kept = await c.apps.patchNamespacedDeployment(
      { namespace: ns, name: 'web', fieldManager: 'labeller', body: { metadata: { labels: { a: 'b' } } } },
      merge,
    );
    expect(kept.metadata?.managedFields?.map((m) => `${m.manager}/${m.operation}`)).toEqual([
      'longshore/Apply',
      'labeller/Update',
    ]);
    const reset = await c.apps.patchNamespacedDeployment(
      { namespace: ns, name: 'web', body: { metadata: { managedFields: [{}] } } },
      merge,
    );
    expect(reset.metadata?.managedFields ?? []).toEqual([]);
  });
});

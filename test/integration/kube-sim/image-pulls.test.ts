/**
 * Image pulls as the kubelet does them (pkg/kubelet/kubelet_pods.go getPullSecretsForPod and the
 * credential keyring): a missing imagePullSecrets entry only warns with a
 * FailedToRetrieveImagePullSecret event, and the pull goes on; only an image on a registry the
 * simulation marks private (settings.privateRegistries) fails as unauthorized, until an existing
 * pull Secret holds a credential for that registry.
 */
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { stays, until } from '../../helpers/wait.ts';

const ns = 'default';

function dockerConfig(name: string, auths: Record<string, unknown>): k8s.V1Secret {
  return {
    metadata: { name },
    type: 'kubernetes.io/dockerconfigjson',
    stringData: { '.dockerconfigjson': JSON.stringify({ auths }) },
  };
}

describe('kube-sim image pulls', () => {
  let c: SimClients;
  const podWith = (name: string, image: string, secrets: string[]) =>
    c.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name },
        spec: {
          containers: [{ name: 'c', image }],
          imagePullSecrets: secrets.map((s) => ({ name: s })),
        },
      },
    });
  const state = async (name: string) =>
    (await c.core.readNamespacedPod({ namespace: ns, name })).status?.containerStatuses?.[0]?.state;
  const events = async (name: string) =>
    (await c.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items;

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { privateRegistries: ['registry.example.com'] } });
  });
  afterAll(() => c.sim.stop());

  it('pulls a public image although a pull Secret is missing, and warns about it', async () => {
    await c.core.createNamespacedSecret({
      namespace: ns,
      body: dockerConfig('present', { 'ghcr.io': { auth: Buffer.from('u:p').toString('base64') } }),
    });
    await podWith('public', 'nginx:1.27', ['gone-1', 'present', 'gone-2']);
    await until(async () => !!(await state('public'))?.running, 'the public image running');
    const warning = await until(
      async () => (await events('public')).find((e) => e.reason === 'FailedToRetrieveImagePullSecret'),
      'the FailedToRetrieveImagePullSecret event',
    );
    expect(warning.type).toBe('Warning');
    expect(warning.source?.component).toBe('kubelet');
    expect(warning.message).toBe(
      'Unable to retrieve some image pull secrets (gone-1, gone-2); attempting to pull the image may not succeed.',
    );
  });

  it('refuses a private registry image without credentials for it, then pulls once they exist', async () => {
    // A Secret for another registry does not help.
    await podWith('private', 'registry.example.com/team/app:1', ['present', 'regcred']);
    const waiting = await until(async () => {
      const w = (await state('private'))?.waiting;
      return (w?.reason === 'ErrImagePull' || w?.reason === 'ImagePullBackOff') && w;
    }, 'the pull refused');
    if (waiting.reason === 'ErrImagePull')
      expect(waiting.message).toContain(
        'pull access denied, repository does not exist or may require authorization',
      );
    await stays(async () => !(await state('private'))?.running, 300, 'the private image not running');

    await c.core.createNamespacedSecret({
      namespace: ns,
      body: dockerConfig('regcred', {
        'https://registry.example.com/v1/': { username: 'u', password: 'p' },
      }),
    });
    await until(async () => !!(await state('private'))?.running, 'the private image running');
  });

  it('needs the credential to match the registry path when its key names one', async () => {
    await c.core.createNamespacedSecret({
      namespace: ns,
      body: dockerConfig('team-only', {
        'registry.example.com/team': { auth: Buffer.from('u:p').toString('base64') },
      }),
    });
    await podWith('team', 'registry.example.com/team/api:1', ['team-only']);
    await podWith('other', 'registry.example.com/other/api:1', ['team-only']);
    await until(async () => !!(await state('team'))?.running, 'the team image running');
    await until(async () => {
      const r = (await state('other'))?.waiting?.reason;
      return r === 'ErrImagePull' || r === 'ImagePullBackOff';
    }, 'the other path refused');
  });

  it('marks registries private through the admin API', async () => {
    const res = await fetch(`${c.sim.url}/__sim/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ privateRegistries: ['registry.example.com', 'ghcr.io'] }),
    });
    expect(((await res.json()) as { privateRegistries: string[] }).privateRegistries).toEqual([
      'registry.example.com',
      'ghcr.io',
    ]);
    await podWith('ghcr', 'ghcr.io/me/tool:1', []);
    await until(async () => {
      const r = (await state('ghcr'))?.waiting?.reason;
      return r === 'ErrImagePull' || r === 'ImagePullBackOff';
    }, 'the ghcr pull refused');
    const bad = await fetch(`${c.sim.url}/__sim/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ privateRegistries: ['https://x/y'] }),
    });
    expect(bad.status).toBe(400);
  });
});

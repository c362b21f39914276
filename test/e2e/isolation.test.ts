/**
 * Isolation between apps (issue 11, case 4), end to end: CLI → Redis → worker process → kube-sim.
 * Apps whose names, process types and domains used to render the same object names each keep
 * their own objects; a domain another app routes, and an object another app or a person made,
 * are refused before any write, naming the owner.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';

let fleet: DeployFleet;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
});

afterAll(async () => {
  await fleet?.stop();
});

const ok = (args: string[]) => fleet.ok(args);

function deploy(app: string, procfile: string): string[] {
  const file = fleet.file(`${app}.Procfile`, procfile);
  return ['deploy', app, '--image', 'nginx:1.27', '--procfile', file, '--wait'];
}

const reconcile = (app: string) => [
  'jobs:enqueue',
  'reconcile',
  '--payload',
  JSON.stringify({ app }),
  '--wait',
];

/** Write requests the simulator served while `fn` ran. */
const writesDuring = (fn: () => Promise<unknown>) => fleet.writesDuring(fn);

async function objectsOf(app: string, kind: 'Deployment' | 'Ingress'): Promise<k8s.KubernetesObject[]> {
  const labelSelector = `app.kubernetes.io/part-of=${app}`;
  if (kind === 'Deployment')
    return (await fleet.apps.listNamespacedDeployment({ namespace: 'default', labelSelector })).items;
  return (await fleet.networking.listNamespacedIngress({ namespace: 'default', labelSelector })).items;
}

describe('isolation between apps', () => {
  it('keeps app ca (domain b-web-x.com) and app ca-web-b (domain x.com) apart, and a reconcile flips nothing', async () => {
    await ok(['domains:add', 'ca', 'b-web-x.com', '--wait']);
    await ok(deploy('ca', 'web: nginx\n'));
    await ok(['domains:add', 'ca-web-b', 'x.com', '--wait']);
    await ok(deploy('ca-web-b', 'web: nginx\n'));

    const hosts = async (app: string) =>
      (await objectsOf(app, 'Ingress')).map((i) => (i as k8s.V1Ingress).spec?.rules?.[0]?.host);
    expect(await hosts('ca')).toEqual(['b-web-x.com']);
    expect(await hosts('ca-web-b')).toEqual(['x.com']);

    const writes = await writesDuring(async () => {
      expect(await ok(reconcile('ca'))).toMatch(/ca: unchanged/);
      expect(await ok(reconcile('ca-web-b'))).toMatch(/ca-web-b: unchanged/);
    });
    expect(writes).toEqual([]);
  });

  it('deploys app cx (process y-web) and app cx-y (process web) side by side', async () => {
    await ok(deploy('cx', 'web: nginx\ny-web: nginx\n'));
    await ok(deploy('cx-y', 'web: nginx\n'));
    const names = async (app: string) =>
      (await objectsOf(app, 'Deployment')).map((d) => d.metadata?.name).sort();
    expect(await names('cx')).toEqual(['cx-web', 'cx-y-web-2']);
    expect(await names('cx-y')).toEqual(['cx-y-web']);
    const writes = await writesDuring(async () => {
      expect(await ok(reconcile('cx'))).toMatch(/cx: unchanged/);
      expect(await ok(reconcile('cx-y'))).toMatch(/cx-y: unchanged/);
    });
    expect(writes).toEqual([]);
  });

  it('refuses a domain another app routes, naming that app, and writes nothing', async () => {
    await ok(deploy('thief', 'web: nginx\n'));
    const writes = await writesDuring(async () => {
      const result = await fleet.cli(['domains:add', 'thief', 'b-web-x.com', '--wait']);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/domain b-web-x\.com belongs to app ca/);
    });
    expect(writes).toEqual([]);
    expect(await objectsOf('thief', 'Ingress')).toEqual([]);
    // The same domain twice in one app is one Ingress.
    await ok(['domains:add', 'thief', 'thief.example.com', 'thief.example.com', '--wait']);
    await ok(['domains:add', 'thief', 'thief.example.com', '--wait']);
    expect(await objectsOf('thief', 'Ingress')).toHaveLength(1);
  });

  it('refuses, before any write, an object a person created by hand, naming its field manager', async () => {
    await fleet.core.createNamespacedService({
      namespace: 'default',
      fieldManager: 'kubectl-create',
      body: {
        metadata: { name: 'hand-web' },
        spec: { ports: [{ port: 80 }], selector: { app: 'hand-made' } },
      },
    });
    const writes = await writesDuring(async () => {
      const result = await fleet.cli(deploy('hand', 'web: nginx\n'));
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/Service default\/hand-web .*kubectl-create/);
    });
    expect(writes).toEqual([]);
    const service = await fleet.core.readNamespacedService({ name: 'hand-web', namespace: 'default' });
    expect(service.spec?.selector).toEqual({ app: 'hand-made' });
  });

  it("refuses, before any write, an object that carries another app's part-of label", async () => {
    // An object of app `owner` that happens to have the name app `squat` renders for its ServiceAccount.
    await fleet.objects.patch(
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: {
          name: 'squat',
          namespace: 'default',
          labels: { 'app.kubernetes.io/part-of': 'owner', 'app.kubernetes.io/managed-by': 'longshore' },
        },
      },
      undefined,
      undefined,
      'longshore',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    const writes = await writesDuring(async () => {
      const result = await fleet.cli(deploy('squat', 'web: nginx\n'));
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/ServiceAccount default\/squat belongs to app owner/);
    });
    expect(writes).toEqual([]);
  });
});

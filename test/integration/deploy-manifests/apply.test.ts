/**
 * infra/deploy with the real kubectl 1.33 (kustomize built in) against kube-sim:
 * `kubectl apply --dry-run=server -k` of the base, and of an overlay adding each component
 * (components/redis, components/keda after KEDA's CRDs, components/hpa), is accepted by the API
 * server: every object is a known kind, valid against its schema, in the system namespace.
 * The overlays are written in the test's directory, as an operator's own repository would hold
 * them (a kustomization cannot include a directory above itself).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { ROOT } from '../../helpers/processes.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';

const BASE = join(ROOT, 'infra/deploy');
const CRDS = join(ROOT, 'test/fixtures/kube-sim/crds');

let c: SimClients;
let cli: KubeCli;

/** An overlay of the base with one component, in the test's directory. */
function overlay(component: string): string {
  const dir = join(cli.dir, `overlay-${component}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      `  - ${relative(dir, BASE)}`,
      'components:',
      `  - ${relative(dir, join(BASE, 'components', component))}`,
      '',
    ].join('\n'),
  );
  return dir;
}

/** `kind/name` of every object a dry run says it would create or change (the namespace exists). */
async function dryRun(dir: string): Promise<string[]> {
  const applied = await cli.kubectl(['apply', '--dry-run=server', '-k', dir]);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  return applied.stdout
    .trim()
    .split('\n')
    .map(
      (line) =>
        /^(\S+) (?:created|configured|unchanged) \(server dry run\)$/.exec(line)?.[1] ??
        `unexpected: ${line}`,
    );
}

beforeAll(async () => {
  c = await startSimWithClients({ controllers: false });
  cli = await kubeCli(c.sim);
  // A server-side dry run stores nothing, so objects in a namespace it would create are refused
  // as in a namespace that does not exist (as a real API server does): the namespace first.
  const ns = await cli.kubectl(['apply', '-f', join(BASE, 'namespace.yaml')]);
  expect(ns.code).toBe(0);
});

afterAll(() => c?.sim.stop());

describe('infra/deploy', () => {
  it('the base: every object accepted by a server-side dry run', async () => {
    const objects = await dryRun(BASE);
    expect(objects.filter((o) => o.startsWith('unexpected'))).toEqual([]);
    expect(objects).toEqual(
      expect.arrayContaining([
        'serviceaccount/longshore',
        'clusterrole.rbac.authorization.k8s.io/longshore',
        'clusterrolebinding.rbac.authorization.k8s.io/longshore',
        'configmap/longshore',
        'service/longshore-server',
        'deployment.apps/longshore-worker',
        'deployment.apps/longshore-scheduler',
        'deployment.apps/longshore-server',
        'poddisruptionbudget.policy/longshore-worker',
        'poddisruptionbudget.policy/longshore-scheduler',
        'poddisruptionbudget.policy/longshore-server',
      ]),
    );
    // The dry run stored nothing.
    expect((await c.apps.listNamespacedDeployment({ namespace: 'longshore-system' })).items).toEqual([]);
  });

  it('components/redis: the StatefulSet, its Service, config and budget', async () => {
    const objects = await dryRun(overlay('redis'));
    expect(objects).toEqual(
      expect.arrayContaining([
        'configmap/longshore-redis',
        'service/longshore-redis',
        'statefulset.apps/longshore-redis',
        'poddisruptionbudget.policy/longshore-redis',
      ]),
    );
  });

  it('components/keda: the ScaledObject and TriggerAuthentication, once KEDA CRDs are there', async () => {
    const crds = await cli.kubectl([
      'apply',
      '-f',
      join(CRDS, 'keda.sh_scaledobjects.yaml'),
      '-f',
      join(CRDS, 'keda.sh_triggerauthentications.yaml'),
    ]);
    expect(crds.code).toBe(0);
    const established = await cli.kubectl([
      'wait',
      '--for',
      'condition=Established',
      'crd/scaledobjects.keda.sh',
      'crd/triggerauthentications.keda.sh',
      '--timeout=30s',
    ]);
    expect(established.code).toBe(0);
    const objects = await dryRun(overlay('keda'));
    expect(objects).toEqual(
      expect.arrayContaining([
        'scaledobject.keda.sh/longshore-worker',
        'triggerauthentication.keda.sh/longshore-redis',
      ]),
    );
  });

  it('components/hpa: the autoscaling/v2 HPA on the queue-depth metric', async () => {
    const objects = await dryRun(overlay('hpa'));
    expect(objects).toContain('horizontalpodautoscaler.autoscaling/longshore-worker');
  });
});

import { describe, expect, it } from 'vitest';
import { quantityValue } from '../../../rules/quantities.ts';
import { findDrift, mergeKeyOf } from '../../../src/releases/drift.ts';
import type { ReleaseObject } from '../../../src/storage/types.ts';

const deployment = (image: string, extra: Record<string, unknown> = {}): ReleaseObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns', labels: { app: 'web' } },
    spec: {
      replicas: 2,
      template: {
        spec: {
          containers: [
            {
              name: 'web',
              image,
              args: ['serve', '--port=5000'],
              env: [{ name: 'PORT', value: '5000' }],
              volumeMounts: [
                { name: 'data', mountPath: '/a' },
                { name: 'data', mountPath: '/b', subPath: 'b' },
              ],
              resources: { requests: { cpu: '0.5', memory: '1Gi' } },
            },
          ],
        },
      },
      ...extra,
    },
  }) as ReleaseObject;

/** What the API server returns: defaults, status, server metadata, other managers' fields. */
function liveOf(object: ReleaseObject): Record<string, unknown> {
  const live = structuredClone(object) as unknown as {
    metadata: Record<string, unknown>;
    spec: { template: { spec: { containers: Record<string, unknown>[]; dnsPolicy?: string } } };
    status?: unknown;
  };
  live.metadata.uid = 'u-1';
  live.metadata.resourceVersion = '42';
  live.metadata.creationTimestamp = new Date('2026-01-01T00:00:00Z');
  (live.metadata.labels as Record<string, string>).injected = 'yes';
  live.spec.template.spec.dnsPolicy = 'ClusterFirst';
  const container = live.spec.template.spec.containers[0]!;
  container.imagePullPolicy = 'IfNotPresent';
  container.terminationMessagePath = '/dev/termination-log';
  container.resources = { requests: { cpu: '500m', memory: '1Gi' } };
  // Another manager added an env var and a mount: not longshore's fields, not drift.
  container.env = [{ name: 'INJECTED', value: '1' }, ...(container.env as unknown[])];
  container.volumeMounts = [
    { name: 'tmp', mountPath: '/tmp' },
    ...(container.volumeMounts as unknown[]).reverse(),
  ];
  live.status = { replicas: 2, observedGeneration: 1 };
  delete (live as { apiVersion?: string }).apiVersion; // list items carry no kind/apiVersion
  delete (live as { kind?: string }).kind;
  return live as unknown as Record<string, unknown>;
}

describe('findDrift', () => {
  it('sees no drift when only defaults, status, server metadata and other managers differ', () => {
    const desired = deployment('web:1');
    expect(findDrift(desired, liveOf(desired))).toBeUndefined();
  });

  it('names the first applied field that differs', () => {
    const desired = deployment('web:1');
    const live = liveOf(deployment('web:2'));
    expect(findDrift(desired, live)).toBe('spec.template.spec.containers[name=web].image');
  });

  it('reports a missing object and one being deleted', () => {
    const desired = deployment('web:1');
    expect(findDrift(desired, undefined)).toBe('(missing)');
    const live = liveOf(desired);
    (live.metadata as Record<string, unknown>).deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(findDrift(desired, live)).toBe('(being deleted)');
  });

  it('treats lists without a merge key as atomic (length and order)', () => {
    const desired = deployment('web:1');
    const live = liveOf(desired) as { spec: { template: { spec: { containers: { args: string[] }[] } } } };
    live.spec.template.spec.containers[0]!.args = ['serve', '--port=5000', '--extra'];
    expect(findDrift(desired, live)).toBe('spec.template.spec.containers[name=web].args');
    live.spec.template.spec.containers[0]!.args = ['--port=5000', 'serve'];
    expect(findDrift(desired, live)).toBe('spec.template.spec.containers[name=web].args[0]');
  });

  it('notices a removed keyed item and a changed label', () => {
    const desired = deployment('web:1');
    const live = liveOf(desired) as {
      metadata: { labels: Record<string, string> };
      spec: { template: { spec: { containers: { env: unknown[] }[] } } };
    };
    live.spec.template.spec.containers[0]!.env = [];
    expect(findDrift(desired, live)).toBe('spec.template.spec.containers[name=web].env[name=PORT]');
    const relabeled = liveOf(desired) as { metadata: { labels: Record<string, string> } };
    relabeled.metadata.labels.app = 'other';
    expect(findDrift(desired, relabeled)).toBe('metadata.labels.app');
  });

  it('compares a Secret’s stringData with the base64 data the server stores', () => {
    const desired = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'ns' },
      stringData: { A: 'one' },
    } as ReleaseObject;
    const live = { metadata: { name: 's', namespace: 'ns' }, type: 'Opaque', data: { A: 'b25l' } };
    expect(findDrift(desired, live)).toBeUndefined();
    expect(findDrift(desired, { ...live, data: { A: 'dHdv' } })).toBe('data.A');
  });

  it('accepts empty applied maps and lists that the server left out', () => {
    const desired = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'ns', annotations: {} },
      data: {},
      binaryData: undefined,
    } as unknown as ReleaseObject;
    expect(findDrift(desired, { metadata: { name: 'c', namespace: 'ns' } })).toBeUndefined();
  });
});

describe('merge keys and quantities', () => {
  it('keys list items the way their list-map keys do', () => {
    expect(mergeKeyOf({ name: 'data', mountPath: '/a' })).toBe('mountPath=/a');
    expect(mergeKeyOf({ containerPort: 53, protocol: 'UDP', name: 'dns' })).toBe('containerPort=53/UDP');
    expect(mergeKeyOf({ port: 80, name: 'http' })).toBe('port=80/TCP');
    expect(mergeKeyOf({ name: 'PORT', value: '1' })).toBe('name=PORT');
    expect(mergeKeyOf({ key: 'x', operator: 'Exists' })).toBeUndefined();
    expect(mergeKeyOf('plain')).toBeUndefined();
  });

  it('parses quantities', () => {
    expect(quantityValue('500m')).toBe(0.5);
    expect(quantityValue('1Gi')).toBe(2 ** 30);
    expect(quantityValue('1e3')).toBe(1000);
    expect(quantityValue('2k')).toBe(2000);
    expect(quantityValue(3)).toBe(3);
    expect(quantityValue('lots')).toBeUndefined();
  });

  it('compares a list whose items share a merge key by position (a TriggerAuthentication)', () => {
    const ref = (parameter: string) => ({ key: parameter, name: 'keda-auth-a-redis', parameter });
    const auth = (refs: unknown[]): ReleaseObject =>
      ({
        apiVersion: 'keda.sh/v1alpha1',
        kind: 'TriggerAuthentication',
        metadata: { name: 'a-redis', namespace: 'ns' },
        spec: { secretTargetRef: refs },
      }) as ReleaseObject;
    const desired = auth([ref('password'), ref('username')]);
    expect(findDrift(desired, auth([ref('password'), ref('username')]))).toBeUndefined();
    expect(findDrift(desired, auth([ref('password'), ref('user')]))).toBe('spec.secretTargetRef[1].key');
  });
});

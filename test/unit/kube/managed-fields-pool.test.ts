/** ManagedFieldsPool: equal ownership trees become one frozen copy; different ones stay apart. */
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ManagedFieldsPool } from '../../../src/kube/managed-fields-pool.ts';

const deployment = (name: string, replicasOwner: string): KubernetesObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name,
    managedFields: [
      {
        manager: 'longshore',
        operation: 'Apply',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {} } } } } },
        },
      },
      {
        manager: replicasOwner,
        operation: 'Update',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ],
  },
});

describe('ManagedFieldsPool.share', () => {
  it('gives objects with equal trees the same frozen tree, and keeps their content', () => {
    const pool = new ManagedFieldsPool();
    const a = deployment('a', 'kubectl');
    const b = deployment('b', 'kubectl');
    const expected = structuredClone(b.metadata!.managedFields);
    pool.share(a);
    pool.share(b);
    expect(b.metadata!.managedFields).toEqual(expected);
    expect(b.metadata!.managedFields![0]!.fieldsV1).toBe(a.metadata!.managedFields![0]!.fieldsV1);
    expect(b.metadata!.managedFields![1]!.fieldsV1).toBe(a.metadata!.managedFields![1]!.fieldsV1);
    expect(pool.size).toBe(2);
    const tree = a.metadata!.managedFields![0]!.fieldsV1 as Record<string, Record<string, unknown>>;
    expect(Object.isFrozen(tree['f:spec'])).toBe(true);
    // A write to a shared tree throws (ESM is strict) instead of changing every holder.
    expect(() => {
      tree['f:spec']!['f:paused'] = {};
    }).toThrow(TypeError);
    // Edits go through a copy, as the pull-secret hand-over does.
    const copy = structuredClone(a.metadata!.managedFields!);
    (copy[0]!.fieldsV1 as Record<string, unknown>)['f:metadata'] = {};
    expect(Object.keys(a.metadata!.managedFields![0]!.fieldsV1 as object)).toEqual(['f:spec']);
  });

  it('keeps different trees apart, and leaves objects without managedFields alone', () => {
    const pool = new ManagedFieldsPool();
    const a = deployment('a', 'kubectl');
    const b = deployment('b', 'kube-controller-manager');
    (b.metadata!.managedFields![1]!.fieldsV1 as Record<string, unknown>)['f:status'] = {};
    pool.share(a);
    pool.share(b);
    expect(b.metadata!.managedFields![1]!.fieldsV1).not.toBe(a.metadata!.managedFields![1]!.fieldsV1);
    expect(b.metadata!.managedFields![1]!.fieldsV1).toEqual({
      'f:spec': { 'f:replicas': {} },
      'f:status': {},
    });
    expect(pool.size).toBe(3);
    const bare: KubernetesObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } };
    pool.share(bare);
    expect(bare).toEqual({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } });
  });
});

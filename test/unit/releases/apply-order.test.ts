import { describe, expect, it } from 'vitest';
import { sortForApply, sortForDelete } from '../../../src/releases/apply-order.ts';

describe('apply order', () => {
  const kinds = [
    'Ingress',
    'Service',
    'Deployment',
    'Widget',
    'PersistentVolumeClaim',
    'Secret',
    'ServiceAccount',
    'Namespace',
    'ConfigMap',
    'CronJob',
    'PersistentVolume',
    'StorageClass',
  ];

  it('puts dependencies first and unknown kinds last', () => {
    expect(sortForApply(kinds.map((kind) => ({ kind }))).map((o) => o.kind)).toEqual([
      'Namespace',
      'ServiceAccount',
      'Secret',
      'ConfigMap',
      'StorageClass',
      'PersistentVolume',
      'PersistentVolumeClaim',
      'Deployment',
      'CronJob',
      'Service',
      'Ingress',
      'Widget',
    ]);
  });

  it('keeps the chart’s order within a kind, and deletes in reverse', () => {
    const objects = [
      { kind: 'Deployment', name: 'b' },
      { kind: 'Secret', name: 's' },
      { kind: 'Deployment', name: 'a' },
    ];
    expect(sortForApply(objects).map((o) => o.name)).toEqual(['s', 'b', 'a']);
    expect(sortForDelete(objects).map((o) => o.name)).toEqual(['a', 'b', 's']);
  });
});

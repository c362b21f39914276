/**
 * When an autoscaled Deployment's replica count is handed over (src/releases/replicas-handover.ts):
 * only a Deployment rendered without replicas whose live replicas longshore alone owns.
 */
import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { replicasHandover } from '../../../src/releases/replicas-handover.ts';
import type { ReleaseObject } from '../../../src/storage/types.ts';

const rendered = (spec: Record<string, unknown>): ReleaseObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'shop-worker', namespace: 'default' },
    spec,
  }) as never;

const live = (replicas: number | undefined, managers: string[]): k8s.KubernetesObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'shop-worker',
      namespace: 'default',
      managedFields: [
        ...managers.map((manager) => ({
          manager,
          operation: 'Apply',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:replicas': {} } },
        })),
        // status.replicas is not spec.replicas.
        {
          manager: 'deployment-controller',
          operation: 'Update',
          fieldsV1: { 'f:status': { 'f:replicas': {} } },
        },
      ],
    },
    ...(replicas !== undefined ? { spec: { replicas } } : {}),
  }) as never;

describe('replicasHandover', () => {
  it('keeps the live count under the handover apply when longshore alone owns it', () => {
    expect(replicasHandover(rendered({}), live(3, ['longshore']), 'longshore')).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'shop-worker', namespace: 'default' },
      spec: { replicas: 3 },
    });
  });

  it('does nothing for a Deployment that still renders replicas, or with no live copy', () => {
    expect(replicasHandover(rendered({ replicas: 2 }), live(3, ['longshore']), 'longshore')).toBeUndefined();
    expect(replicasHandover(rendered({}), undefined, 'longshore')).toBeUndefined();
  });

  it('does nothing once another manager owns the count (already handed over, or the autoscaler)', () => {
    expect(
      replicasHandover(rendered({}), live(3, ['horizontal-pod-autoscaler']), 'longshore'),
    ).toBeUndefined();
    expect(
      replicasHandover(rendered({}), live(3, ['longshore', 'longshore-handover']), 'longshore'),
    ).toBeUndefined();
    expect(replicasHandover(rendered({}), live(3, []), 'longshore')).toBeUndefined();
  });

  it('is for Deployments only', () => {
    const job = { ...rendered({}), kind: 'Job' } as ReleaseObject;
    expect(replicasHandover(job, live(3, ['longshore']), 'longshore')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { findPullSecretLeak, transferLeakOwnership } from '../../../src/releases/pull-secret-leaks.ts';
import type { ReleaseObject } from '../../../src/storage/types.ts';

const deployment = (names: string[]): ReleaseObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { template: { spec: { imagePullSecrets: names.map((name) => ({ name })) } } },
  }) as ReleaseObject;

const owned = (names: string[]) => ({
  'f:spec': {
    'f:template': {
      'f:spec': {
        'f:imagePullSecrets': Object.fromEntries(
          names.map((name) => [`k:{"name":"${name}"}`, { '.': {}, 'f:name': {} }]),
        ),
      },
    },
  },
});

describe('findPullSecretLeak', () => {
  it('finds names outside the applied list and repeated names; nothing when the lists agree', () => {
    expect(findPullSecretLeak(deployment(['a']), deployment(['a']))).toBeUndefined();
    expect(findPullSecretLeak(deployment([]), deployment([]))).toBeUndefined();
    expect(findPullSecretLeak(deployment(['a']), deployment(['a', 'x', 'a', 'y']))).toMatchObject({
      leaked: ['x', 'y'],
      repeated: ['a'],
    });
    const cron = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c' },
      spec: { jobTemplate: { spec: { template: { spec: { imagePullSecrets: [{ name: 'x' }] } } } } },
    } as ReleaseObject;
    expect(findPullSecretLeak({ ...cron, spec: {} } as ReleaseObject, cron)?.leaked).toEqual(['x']);
    expect(findPullSecretLeak({ ...cron, kind: 'Service' }, cron)).toBeUndefined();
  });
});

describe('transferLeakOwnership', () => {
  it("moves the leaked keys from every manager to longshore's Apply entry", () => {
    const live = {
      ...deployment(['a', 'leaked-1', 'leaked-2']),
      metadata: {
        name: 'web',
        managedFields: [
          {
            manager: 'longshore',
            operation: 'Apply',
            apiVersion: 'apps/v1',
            fieldsType: 'FieldsV1',
            fieldsV1: owned(['a']),
          },
          {
            manager: 'kubectl-patch',
            operation: 'Update',
            apiVersion: 'apps/v1',
            fieldsType: 'FieldsV1',
            fieldsV1: owned(['leaked-1', 'leaked-2']),
          },
        ],
      },
    };
    const leak = findPullSecretLeak(deployment(['a']), live)!;
    const entries = transferLeakOwnership(live, leak, 'longshore', 'apps/v1')!;
    // kubectl-patch owned nothing else: its entry goes.
    expect(entries.map((e) => e.manager)).toEqual(['longshore']);
    expect(entries[0]?.fieldsV1).toEqual(owned(['a', 'leaked-1', 'leaked-2']));
  });

  it('creates the Apply entry when longshore has none, and keeps what other managers own besides', () => {
    const live = {
      ...deployment(['leaked']),
      metadata: {
        name: 'web',
        managedFields: [
          {
            manager: 'old-dokku',
            operation: 'Update',
            fieldsType: 'FieldsV1',
            fieldsV1: { ...owned(['leaked']), 'f:metadata': { 'f:labels': { 'f:x': {} } } },
          },
        ],
      },
    };
    const entries = transferLeakOwnership(
      live,
      findPullSecretLeak(deployment([]), live)!,
      'longshore',
      'apps/v1',
    )!;
    expect(entries[0]).toMatchObject({
      manager: 'old-dokku',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:x': {} } } },
    });
    expect(entries[0]?.fieldsV1).not.toHaveProperty('f:spec');
    expect(entries[1]).toMatchObject({
      manager: 'longshore',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      fieldsV1: owned(['leaked']),
    });
  });

  it('has nothing to move when only intended names repeat', () => {
    const live = deployment(['a', 'a']);
    expect(
      transferLeakOwnership(live, findPullSecretLeak(deployment(['a']), live)!, 'longshore', 'apps/v1'),
    ).toBeUndefined();
  });
});

/** labels:set / annotations:set, ps:set profile and app.json max_parallel as spec changes. */
import { describe, expect, it } from 'vitest';
import { applyDeploy } from '../../../src/apps/mutations.ts';
import { applyMetadata, applyProcessProfile, profilesOf } from '../../../src/apps/placement-mutations.ts';
import { type AppSpec, appSpec, emptySpec } from '../../../src/apps/spec.ts';
import { InvalidInputError } from '../../../src/core/errors.ts';
import type { MetadataPayload } from '../../../src/jobs/schemas/metadata.ts';

function deployed(): AppSpec {
  return applyDeploy(emptySpec('shop'), {
    app: 'shop',
    image: 'nginx:1',
    processes: { web: { command: 'bin/web' }, worker: { command: 'bin/worker' } },
  });
}

const label = (p: Partial<MetadataPayload>): MetadataPayload => ({
  app: 'shop',
  kind: 'label',
  action: 'set',
  key: 'example.com/team',
  value: 'a',
  ...p,
});

describe('applyMetadata', () => {
  it('keeps one value per key and scope, sorted, and removes the field when empty', () => {
    let spec = applyMetadata(deployed(), label({ value: 'a' }));
    spec = applyMetadata(spec, label({ value: 'b' }));
    spec = applyMetadata(spec, label({ value: 'c', processType: 'web', resourceType: 'pod' }));
    expect(spec.metadata?.labels).toEqual([
      { key: 'example.com/team', value: 'b' },
      { key: 'example.com/team', value: 'c', processType: 'web', resourceType: 'pod' },
    ]);
    expect(appSpec.safeParse(spec).success).toBe(true);
    spec = applyMetadata(spec, label({ action: 'unset', value: undefined }));
    spec = applyMetadata(
      spec,
      label({ action: 'unset', value: undefined, processType: 'web', resourceType: 'pod' }),
    );
    expect(spec.metadata).toBeUndefined();
  });

  it('keeps the scoped annotations within what one object may carry', () => {
    let spec = deployed();
    for (const i of [1, 2, 3, 4, 5])
      spec = applyMetadata(spec, {
        app: 'shop',
        kind: 'annotation',
        action: 'set',
        key: `example.com/big-${i}`,
        value: 'x'.repeat(60 * 1024),
      });
    const parsed = appSpec.safeParse(spec);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/may total at most 262144/);
  });

  it('refuses a process type the app does not have, naming --process-type', () => {
    expect(() => applyMetadata(deployed(), label({ processType: 'nope' }))).toThrow(InvalidInputError);
    try {
      applyMetadata(deployed(), label({ processType: 'nope' }));
    } catch (err) {
      expect((err as InvalidInputError).issues[0]?.path).toBe('--process-type');
    }
  });
});

describe('applyProcessProfile and max_parallel', () => {
  it('attaches and detaches a profile, and keeps it and max_parallel across Procfile deploys', () => {
    let spec = applyProcessProfile(deployed(), {
      app: 'shop',
      action: 'set',
      process: 'worker',
      key: 'profile',
      value: 'gpu',
    });
    spec = applyDeploy(spec, { app: 'shop', image: 'nginx:2', formation: { web: { maxParallel: 3 } } });
    expect(profilesOf(spec)).toEqual(['gpu']);
    expect(spec.processes.web?.maxParallel).toBe(3);
    spec = applyDeploy(spec, {
      app: 'shop',
      image: 'nginx:3',
      processes: { web: { command: 'bin/web' }, worker: { command: 'bin/worker' } },
    });
    expect(spec.processes.worker?.profile).toBe('gpu');
    expect(spec.processes.web?.maxParallel).toBe(3);
    // A formation entry without max_parallel returns the type to the default rollout.
    spec = applyDeploy(spec, { app: 'shop', image: 'nginx:4', formation: { web: { replicas: 2 } } });
    expect(spec.processes.web?.maxParallel).toBeUndefined();
    spec = applyProcessProfile(spec, {
      app: 'shop',
      action: 'set',
      process: 'worker',
      key: 'profile',
      value: null,
    });
    expect(profilesOf(spec)).toEqual([]);
  });

  it('refuses a process type the app does not have', () => {
    expect(() =>
      applyProcessProfile(deployed(), {
        app: 'shop',
        action: 'set',
        process: 'nope',
        key: 'profile',
        value: 'gpu',
      }),
    ).toThrow(/unknown process type "nope"/);
  });
});

import { describe, expect, it } from 'vitest';
import { ApplyFailedError, RolloutFailedError, RolloutTimeoutError } from '../../../src/releases/errors.ts';
import { classifyError } from '../../../src/workers/failure.ts';

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'web', name: 'web-web' };

describe('release errors', () => {
  it('carry the reason and say what the rollback did', () => {
    const err = new RolloutFailedError('web', 3, ref, 'deployment "web-web" exceeded its progress deadline');
    expect(err.name).toBe('RolloutFailedError');
    expect(err.code).toBe('ROLLOUT_FAILED');
    expect(err.message).toBe(
      'release web revision 3 failed: deployment "web-web" exceeded its progress deadline',
    );
    err.withRollback({ state: 'rolled-back', revision: 4, toRevision: 2 });
    expect(err.message).toContain('rolled back to revision 2 (as revision 4)');
    const timeout = new RolloutTimeoutError('web', 3, 1500, ['waiting for a']).withRollback({
      state: 'nothing-to-roll-back-to',
    });
    expect(timeout.message).toBe(
      'release web revision 3 failed: timed out after 1.5 s waiting for: waiting for a; no earlier deployed revision to roll back to',
    );
  });

  it('are permanent for the job', () => {
    const err = new ApplyFailedError(
      'web',
      1,
      ref,
      'apply',
      'Deployment.apps "web-web" is invalid: spec.replicas: Invalid value: -1',
    );
    expect(classifyError(err).transient).toBe(false);
    expect(err.object).toEqual(ref);
  });
});

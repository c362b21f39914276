import { describe, expect, it } from 'vitest';
import { claimReadiness, deploymentCounts, deploymentReadiness } from '../../../src/releases/rollout.ts';

const deployment = (status: Record<string, unknown>, generation = 2, replicas = 3) => ({
  metadata: { name: 'web', generation },
  spec: { replicas },
  status,
});

describe('deploymentReadiness (kubectl rollout status)', () => {
  it('waits until the controller observed the current generation', () => {
    const r = deploymentReadiness(
      deployment({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3 }),
    );
    expect(r.state).toBe('waiting');
    expect(r.message).toContain('spec update to be observed');
  });

  it('fails on ProgressDeadlineExceeded', () => {
    const r = deploymentReadiness(
      deployment({
        observedGeneration: 2,
        conditions: [
          {
            type: 'Progressing',
            status: 'False',
            reason: 'ProgressDeadlineExceeded',
            message: 'ReplicaSet "web-x" has timed out progressing.',
          },
        ],
      }),
    );
    expect(r).toEqual({
      state: 'failed',
      message:
        'deployment "web" exceeded its progress deadline (ReplicaSet "web-x" has timed out progressing.)',
    });
  });

  it('waits for updated replicas, then old ones to go, then availability', () => {
    expect(
      deploymentReadiness(deployment({ observedGeneration: 2, replicas: 3, updatedReplicas: 1 })).message,
    ).toBe('Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...');
    expect(
      deploymentReadiness(
        deployment({ observedGeneration: 2, replicas: 4, updatedReplicas: 3, availableReplicas: 3 }),
      ).message,
    ).toBe('Waiting for deployment "web" rollout to finish: 1 old replicas are pending termination...');
    expect(
      deploymentReadiness(
        deployment({ observedGeneration: 2, replicas: 3, updatedReplicas: 3, availableReplicas: 2 }),
      ).message,
    ).toBe('Waiting for deployment "web" rollout to finish: 2 of 3 updated replicas are available...');
  });

  it('is ready when every replica is updated and available', () => {
    const r = deploymentReadiness(
      deployment({ observedGeneration: 2, replicas: 3, updatedReplicas: 3, availableReplicas: 3 }),
    );
    expect(r).toEqual({ state: 'ready', message: 'deployment "web" successfully rolled out' });
    expect(deploymentReadiness(deployment({ observedGeneration: 1 }, 1, 0)).state).toBe('ready');
  });
});

describe('claimReadiness', () => {
  it('is ready when Bound, failed when Lost, waiting otherwise', () => {
    expect(claimReadiness({ metadata: { name: 'd' }, status: { phase: 'Bound' } }).state).toBe('ready');
    expect(claimReadiness({ metadata: { name: 'd' }, status: { phase: 'Lost' } }).state).toBe('failed');
    expect(claimReadiness({ metadata: { name: 'd' } }).state).toBe('waiting');
  });
});

describe('deploymentCounts (the rollout line of a job stream)', () => {
  it('reads desired from the spec and the rest from the status, 0 when the controller wrote none', () => {
    expect(
      deploymentCounts(
        deployment({ replicas: 4, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1 }, 2, 3),
      ),
    ).toEqual({ desired: 3, updated: 2, ready: 1, available: 1 });
    expect(deploymentCounts({ metadata: { name: 'web' } })).toEqual({
      desired: 1,
      updated: 0,
      ready: 0,
      available: 0,
    });
  });
});

/**
 * The Job controller's pure parts: matching a failed pod against podFailurePolicy rules
 * (pod_failure_policy.go) and the retry back-off record and delay (backoff_utils.go).
 */
import { describe, expect, it } from 'vitest';
import {
  nextBackoffRecord,
  podFinishedTime,
  remainingBackoffMs,
} from '../../../infra/kube-sim/controllers/job-backoff.ts';
import { matchPodFailurePolicy } from '../../../infra/kube-sim/controllers/job-failure-policy.ts';
import type { KubeObject } from '../../../infra/kube-sim/types.ts';

function pod(
  name: string,
  status: Record<string, unknown>,
  meta: Partial<KubeObject['metadata']> = {},
): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', ...meta }, status };
}
const terminated = (name: string, exitCode: number, finishedAt = '2026-01-01T00:00:10Z') => ({
  name,
  state: { terminated: { exitCode, finishedAt } },
});

describe('matchPodFailurePolicy', () => {
  it('counts every failure when there is no policy or no rule matches', () => {
    const failed = pod('p', { phase: 'Failed', containerStatuses: [terminated('main', 1)] });
    expect(matchPodFailurePolicy(undefined, failed)).toEqual({ countFailed: true });
    const rules = [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [2] } }];
    expect(matchPodFailurePolicy({ rules }, failed)).toEqual({ countFailed: true });
  });

  it('never matches exit code 0 with NotIn, and looks at init containers after the others', () => {
    const rules = [{ action: 'FailJob', onExitCodes: { operator: 'NotIn', values: [1] } }];
    const succeededMain = pod('p', {
      containerStatuses: [terminated('main', 0)],
      initContainerStatuses: [terminated('setup', 7)],
    });
    expect(matchPodFailurePolicy({ rules }, succeededMain)).toMatchObject({
      action: 'FailJob',
      failJobMessage: 'Container setup for pod ns/p failed with exit code 7 matching FailJob rule at index 0',
    });
    expect(
      matchPodFailurePolicy({ rules }, pod('q', { containerStatuses: [terminated('main', 0)] })),
    ).toEqual({
      countFailed: true,
    });
  });

  it('restricts onExitCodes to containerName and skips containers still running', () => {
    const rules = [{ action: 'Ignore', onExitCodes: { containerName: 'side', operator: 'In', values: [3] } }];
    const p = pod('p', {
      containerStatuses: [terminated('main', 3), { name: 'side', state: { running: {} } }],
    });
    expect(matchPodFailurePolicy({ rules }, p)).toEqual({ countFailed: true });
  });

  it('matches onPodConditions by type and status, first matching rule wins', () => {
    const rules = [
      { action: 'Count', onPodConditions: [{ type: 'DisruptionTarget', status: 'False' }] },
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
    ];
    const disrupted = pod('p', { conditions: [{ type: 'DisruptionTarget', status: 'True' }] });
    expect(matchPodFailurePolicy({ rules }, disrupted)).toEqual({ countFailed: false, action: 'Ignore' });
    expect(matchPodFailurePolicy({ rules: rules.slice(2) }, disrupted)).toMatchObject({
      failJobMessage: 'Pod ns/p has condition DisruptionTarget matching FailJob rule at index 0',
    });
  });
});

describe('Job retry back-off', () => {
  const t = (s: number) => Date.parse('2026-01-01T00:00:00Z') + s * 1000;
  const failedAt = (name: string, s: number) =>
    pod(name, { phase: 'Failed', containerStatuses: [terminated('main', 1, new Date(t(s)).toISOString())] });

  it('uses the latest container finishedAt, else Ready=False, else deletion, else creation', () => {
    expect(podFinishedTime(failedAt('a', 5))).toBe(t(5));
    const readyFalse = pod('b', {
      containerStatuses: [{ name: 'main', state: { running: {} } }],
      conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: new Date(t(7)).toISOString() }],
    });
    expect(podFinishedTime(readyFalse)).toBe(t(7));
    const deleted = pod(
      'c',
      {},
      { deletionTimestamp: new Date(t(40)).toISOString(), deletionGracePeriodSeconds: 30 },
    );
    expect(podFinishedTime(deleted)).toBe(t(10));
    expect(podFinishedTime(pod('d', {}, { creationTimestamp: new Date(t(2)).toISOString() }))).toBe(t(2));
  });

  it('adds failures since the last success and resets on a success', () => {
    let record = nextBackoffRecord(undefined, [], [failedAt('a', 3), failedAt('b', 1)]);
    expect(record).toEqual({ failuresAfterLastSuccess: 2, lastFailureTime: t(3) });
    record = nextBackoffRecord(record, [], [failedAt('c', 9)]);
    expect(record).toEqual({ failuresAfterLastSuccess: 3, lastFailureTime: t(9) });
    const succeeded = pod('s', {
      phase: 'Succeeded',
      containerStatuses: [terminated('main', 0, new Date(t(10)).toISOString())],
    });
    expect(nextBackoffRecord(record, [succeeded], [])).toEqual({ failuresAfterLastSuccess: 0 });
    expect(nextBackoffRecord(record, [succeeded], [failedAt('e', 12), failedAt('f', 8)])).toEqual({
      failuresAfterLastSuccess: 1,
      lastFailureTime: t(12),
    });
  });

  it('doubles the base per failure up to the cap, minus the time since the last failure', () => {
    const record = (failures: number) => ({ failuresAfterLastSuccess: failures, lastFailureTime: t(0) });
    expect(remainingBackoffMs(record(0), 10_000, 600_000, t(0))).toBe(0);
    expect(remainingBackoffMs(record(1), 10_000, 600_000, t(0))).toBe(10_000);
    expect(remainingBackoffMs(record(3), 10_000, 600_000, t(5))).toBe(35_000);
    expect(remainingBackoffMs(record(20), 10_000, 600_000, t(0))).toBe(600_000);
    expect(remainingBackoffMs(record(1), 10_000, 600_000, t(11))).toBe(0);
  });
});

/** Placement profile words and scoped label/annotation rules (rules/placement.ts, rules/object-metadata.ts). */
import { describe, expect, it } from 'vitest';
import { metadataFor, metadataKeyProblem, scopeProblems } from '../../../rules/object-metadata.ts';
import { parseNodeSelectorWord, parseTolerationWord } from '../../../rules/placement.ts';

describe('toleration words', () => {
  it('reads key=value:Effect as Equal and key:Effect as Exists', () => {
    expect(parseTolerationWord('dedicated=ml:NoExecute')).toEqual({
      key: 'dedicated',
      operator: 'Equal',
      value: 'ml',
      effect: 'NoExecute',
    });
    expect(parseTolerationWord('example.com/gpu:PreferNoSchedule')).toEqual({
      key: 'example.com/gpu',
      operator: 'Exists',
      effect: 'PreferNoSchedule',
    });
  });

  it('refuses an unknown or missing effect, a bad key and a bad value', () => {
    expect(parseTolerationWord('gpu:Sometimes')).toEqual({
      problem: '"gpu:Sometimes": unknown effect "Sometimes" (one of NoSchedule, PreferNoSchedule, NoExecute)',
    });
    expect(parseTolerationWord('gpu')).toHaveProperty('problem');
    expect(parseTolerationWord('bad key:NoSchedule')).toHaveProperty('problem');
    expect(parseTolerationWord('gpu=not ok:NoSchedule')).toHaveProperty('problem');
  });

  it('reads node selector words', () => {
    expect(parseNodeSelectorWord('example.com/pool=gpu')).toEqual({ key: 'example.com/pool', value: 'gpu' });
    expect(parseNodeSelectorWord('pool')).toHaveProperty('problem');
    expect(parseNodeSelectorWord('pool=a b')).toHaveProperty('problem');
  });
});

describe('scoped metadata', () => {
  it('refuses keys longshore owns and names the flag of a bad scope', () => {
    expect(metadataKeyProblem('app.kubernetes.io/instance')).toMatch(/set by longshore/);
    expect(metadataKeyProblem('longshore.dev/config-digest')).toMatch(/set by longshore/);
    expect(metadataKeyProblem('kubectl.kubernetes.io/restartedAt')).toMatch(/set by longshore/);
    expect(metadataKeyProblem('example.com/team')).toBeUndefined();
    expect(scopeProblems('web', 'cronjob')).toEqual([
      '--process-type: CronJobs belong to no process type (cron tasks are not processes)',
    ]);
    expect(scopeProblems('worker', 'service')).toEqual(['--process-type: only web has a Service']);
    expect(scopeProblems('web', 'ingress')).toEqual([]);
  });

  it('lets the narrower entry win for one key', () => {
    const list = [
      { key: 'k', value: 'any' },
      { key: 'k', value: 'pods', resourceType: 'pod' as const },
      { key: 'k', value: 'web', processType: 'web' },
      { key: 'k', value: 'web pods', processType: 'web', resourceType: 'pod' as const },
    ];
    expect(metadataFor(list, 'pod', 'web')).toEqual({ k: 'web pods' });
    expect(metadataFor(list, 'deployment', 'web')).toEqual({ k: 'web' });
    expect(metadataFor(list, 'pod', 'worker')).toEqual({ k: 'pods' });
    expect(metadataFor(list, 'cronjob', undefined)).toEqual({ k: 'any' });
  });
});

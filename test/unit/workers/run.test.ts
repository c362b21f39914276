/**
 * The pure parts of the `run` handler: where a run stands from its Job and pod (run-state.ts), and
 * the relay cursor that lets a resumed attempt repeat no line (log-cursor.ts).
 */
import type { V1ContainerState, V1Job, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  LineFilter,
  type RelayCursor,
  sinceTimeOf,
  sortableTime,
  splitTimestamp,
  startCursor,
} from '../../../src/workers/run/log-cursor.ts';
import { runState } from '../../../src/workers/run/run-state.ts';

const job = (over: Partial<V1Job> = {}): V1Job => ({
  metadata: { name: 'shop-run-1' },
  spec: { template: {} },
  ...over,
});

function pod(state: V1ContainerState | undefined, over: Partial<V1Pod> = {}): V1Pod {
  return {
    metadata: {
      name: 'shop-run-1-abcde',
      uid: 'pod-uid',
      creationTimestamp: new Date('2026-01-01T00:00:00Z'),
    },
    status: {
      phase: 'Pending',
      containerStatuses: [{ name: 'run', image: 'x', imageID: '', ready: false, restartCount: 0, state }],
    },
    ...over,
  };
}

describe('runState', () => {
  it('starting: no pod yet, suspended, or the container being created', () => {
    expect(runState(job(), [])).toEqual({
      kind: 'starting',
      detail: 'waiting for the Job to create its pod',
    });
    expect(runState(job({ spec: { suspend: true, template: {} } }), [])).toMatchObject({ kind: 'starting' });
    expect(runState(job(), [pod({ waiting: { reason: 'ContainerCreating' } })])).toEqual({
      kind: 'starting',
      detail: 'pod shop-run-1-abcde: ContainerCreating',
    });
  });

  it('running and exited carry the pod; any exit code is an exit', () => {
    expect(runState(job(), [pod({ running: { startedAt: new Date() } })])).toEqual({
      kind: 'running',
      pod: 'shop-run-1-abcde',
      podUid: 'pod-uid',
    });
    const failedJob = job({
      status: { conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] },
    });
    expect(runState(failedJob, [pod({ terminated: { exitCode: 3, reason: 'Error' } })])).toEqual({
      kind: 'exited',
      pod: 'shop-run-1-abcde',
      podUid: 'pod-uid',
      exitCode: 3,
      reason: 'Error',
    });
    const complete = job({ status: { conditions: [{ type: 'Complete', status: 'True' }] } });
    expect(runState(complete, [])).toEqual({ kind: 'exited', exitCode: 0 });
  });

  it('cannot start: a pull failure (the back-off read as ErrImagePull) or a configuration error', () => {
    expect(
      runState(job(), [pod({ waiting: { reason: 'ErrImagePull', message: 'pull access denied for x' } })]),
    ).toEqual({
      kind: 'failed',
      reason: 'ErrImagePull',
      message: 'pull access denied for x',
      cannotStart: true,
    });
    expect(
      runState(job(), [
        pod({ waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' } }),
      ]),
    ).toEqual({
      kind: 'failed',
      reason: 'ErrImagePull',
      message: 'Back-off pulling image "x" (ImagePullBackOff)',
      cannotStart: true,
    });
    expect(
      runState(job(), [
        pod({ waiting: { reason: 'CreateContainerConfigError', message: 'secret "s" not found' } }),
      ]),
    ).toMatchObject({ reason: 'CreateContainerConfigError', cannotStart: true });
  });

  it('failed without an exit code: the deadline wins over the killed container; an evicted pod', () => {
    const deadline = job({
      status: {
        conditions: [
          {
            type: 'Failed',
            status: 'True',
            reason: 'DeadlineExceeded',
            message: 'Job was active longer than specified deadline',
          },
        ],
      },
    });
    expect(runState(deadline, [pod({ terminated: { exitCode: 137 } })])).toEqual({
      kind: 'failed',
      reason: 'DeadlineExceeded',
      message: 'Job was active longer than specified deadline',
      cannotStart: false,
    });
    expect(runState(deadline, [])).toMatchObject({ reason: 'DeadlineExceeded' });
    const evicted = pod(undefined, {});
    evicted.status = { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' };
    expect(runState(job(), [evicted])).toEqual({
      kind: 'failed',
      reason: 'Evicted',
      message: 'The node was low on resource: memory.',
      cannotStart: false,
    });
  });

  it('reads the newest pod when there are several', () => {
    const old = pod({ terminated: { exitCode: 1 } });
    const newer = pod({ running: {} }, {});
    newer.metadata = {
      name: 'shop-run-1-fghij',
      uid: 'newer',
      creationTimestamp: new Date('2026-01-01T00:01:00Z'),
    };
    expect(runState(job(), [newer, old])).toMatchObject({ kind: 'running', podUid: 'newer' });
  });
});

describe('relay cursor', () => {
  it('timestamps sort as time does, whatever their precision or zone', () => {
    expect(sortableTime('2026-01-01T00:00:05.1Z')).toBe('2026-01-01T00:00:05.100000000Z');
    expect(sortableTime('2026-01-01T00:00:05Z')).toBe('2026-01-01T00:00:05.000000000Z');
    expect(sortableTime('2026-01-01T01:00:05.5+01:00')).toBe('2026-01-01T00:00:05.500000000Z');
    expect(sortableTime('2026-01-01T00:00:05.1Z')! > sortableTime('2026-01-01T00:00:05.09Z')!).toBe(true);
    expect(sortableTime('not a time')).toBeUndefined();
    expect(splitTimestamp('2026-01-01T00:00:05.1Z hello world')).toEqual({
      at: '2026-01-01T00:00:05.100000000Z',
      text: 'hello world',
    });
    expect(splitTimestamp('2026-01-01T00:00:05.1Z ')).toMatchObject({ text: '' });
    expect(splitTimestamp('no timestamp here')).toEqual({ text: 'no timestamp here' });
  });

  it('a resumed read drops what was relayed, lines sharing the cursor time included, and goes on', () => {
    const log = [
      '2026-01-01T00:00:01.5Z one',
      '2026-01-01T00:00:02.25Z two',
      '2026-01-01T00:00:02.25Z three',
      '2026-01-01T00:00:02.25Z four',
      '2026-01-01T00:00:03Z five',
    ];
    const first = new LineFilter(startCursor('p'));
    expect(log.slice(0, 3).map((l) => first.accept(l))).toEqual(['one', 'two', 'three']);
    const cursor: RelayCursor = first.position;
    expect(cursor).toEqual({ pod: 'p', at: '2026-01-01T00:00:02.250000000Z', n: 2, lines: 3 });
    // The resumed read asks from the cursor's second and gets that second's lines again.
    expect(sinceTimeOf(cursor)).toBe('2026-01-01T00:00:02Z');
    const resumed = new LineFilter(cursor);
    expect(log.slice(1).map((l) => resumed.accept(l))).toEqual([undefined, undefined, 'four', 'five']);
    expect(resumed.position).toEqual({ pod: 'p', at: '2026-01-01T00:00:03.000000000Z', n: 1, lines: 5 });
    // Read again from the start (a cursor on an older second): nothing is repeated.
    const again = new LineFilter(resumed.position);
    expect(log.map((l) => again.accept(l))).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(sinceTimeOf(startCursor('p'))).toBeUndefined();
  });
});

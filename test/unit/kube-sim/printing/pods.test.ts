/** printPod's READY, STATUS and RESTARTS rules (kubernetes/kubernetes pkg/printers/internalversion/printers.go). */
import { describe, expect, it } from 'vitest';
import { podPrinter } from '../../../../infra/kube-sim/printing/pods.ts';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const created = '2026-01-01T00:00:00Z';

function pod(spec: object, status: object, metadata: object = {}) {
  return { metadata: { name: 'p', creationTimestamp: created, ...metadata }, spec, status };
}
const running = (name: string, ready = true, restartCount = 0, extra: object = {}) => ({
  name,
  ready,
  restartCount,
  state: { running: { startedAt: created } },
  ...extra,
});
const cells = (p: object) => podPrinter.cells(p, NOW);

describe('pod printer', () => {
  it('has upstream columns, four of them wide', () => {
    expect(podPrinter.columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Ready', 0],
      ['Status', 0],
      ['Restarts', 0],
      ['Age', 0],
      ['IP', 1],
      ['Node', 1],
      ['Nominated Node', 1],
      ['Readiness Gates', 1],
    ]);
  });

  it('a running ready pod: 1/1 Running 0, with IP and node', () => {
    const p = pod(
      { containers: [{ name: 'a' }], nodeName: 'node-1' },
      {
        phase: 'Running',
        podIP: '10.0.0.5',
        podIPs: [{ ip: '10.0.0.5' }],
        containerStatuses: [running('a')],
      },
    );
    expect(cells(p)).toEqual(['p', '1/1', 'Running', '0', '60m', '10.0.0.5', 'node-1', '<none>', '<none>']);
  });

  it('counts restarts and says when the last one was', () => {
    const p = pod(
      { containers: [{ name: 'a' }, { name: 'b' }] },
      {
        phase: 'Running',
        containerStatuses: [
          running('a', true, 3, {
            lastState: { terminated: { exitCode: 1, finishedAt: '2026-01-01T00:55:00Z' } },
          }),
          running('b', false, 2, {
            lastState: { terminated: { exitCode: 1, finishedAt: '2026-01-01T00:50:00Z' } },
          }),
        ],
      },
    );
    expect(cells(p).slice(1, 4)).toEqual(['1/2', 'Running', '5 (5m ago)']);
  });

  it('a waiting container names its reason: CrashLoopBackOff, ImagePullBackOff', () => {
    for (const reason of ['CrashLoopBackOff', 'ImagePullBackOff', 'ErrImagePull']) {
      const p = pod(
        { containers: [{ name: 'a' }] },
        {
          phase: 'Pending',
          containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { waiting: { reason } } }],
        },
      );
      expect(cells(p)[2]).toBe(reason);
    }
  });

  it('terminated containers: their reason, or the exit code or signal', () => {
    const term = (terminated: object) =>
      cells(
        pod(
          { containers: [{ name: 'a' }] },
          { phase: 'Failed', containerStatuses: [{ name: 'a', state: { terminated } }] },
        ),
      )[2];
    expect(term({ reason: 'Completed', exitCode: 0 })).toBe('Completed');
    expect(term({ reason: 'Error', exitCode: 2 })).toBe('Error');
    expect(term({ exitCode: 3 })).toBe('ExitCode:3');
    expect(term({ exitCode: 137, signal: 9 })).toBe('Signal:9');
  });

  it('a Completed container beside a running one: Running when the pod is Ready, else NotReady', () => {
    const status = (ready: string) => ({
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready }],
      containerStatuses: [
        running('a'),
        { name: 'b', state: { terminated: { reason: 'Completed', exitCode: 0 } } },
      ],
    });
    const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
    expect(cells(pod(spec, status('True')))[2]).toBe('Running');
    expect(cells(pod(spec, status('False')))[2]).toBe('NotReady');
  });

  it('init containers: Init:i/n, Init:<waiting reason>, Init:ExitCode', () => {
    const spec = { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] };
    const waitingMain = [{ name: 'a', state: { waiting: { reason: 'PodInitializing' } } }];
    expect(
      cells(
        pod(spec, {
          phase: 'Pending',
          initContainerStatuses: [
            { name: 'i1', state: { running: {} } },
            { name: 'i2', state: { waiting: { reason: 'PodInitializing' } } },
          ],
          containerStatuses: waitingMain,
        }),
      )[2],
    ).toBe('Init:0/2');
    expect(
      cells(
        pod(spec, {
          phase: 'Pending',
          initContainerStatuses: [
            { name: 'i1', state: { terminated: { exitCode: 0 } } },
            { name: 'i2', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } },
          ],
          containerStatuses: waitingMain,
        }),
      )[2],
    ).toBe('Init:CrashLoopBackOff');
    expect(
      cells(
        pod(spec, {
          phase: 'Pending',
          initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 7 } } }],
          containerStatuses: waitingMain,
        }),
      )[2],
    ).toBe('Init:ExitCode:7');
  });

  it('restartable init containers (sidecars) count in READY once started', () => {
    const p = pod(
      { initContainers: [{ name: 'side', restartPolicy: 'Always' }], containers: [{ name: 'a' }] },
      {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [
          { name: 'side', started: true, ready: true, restartCount: 1, state: { running: {} } },
        ],
        containerStatuses: [running('a')],
      },
    );
    expect(cells(p).slice(1, 4)).toEqual(['2/2', 'Running', '1']);
  });

  it('a pod being deleted is Terminating, unless finished; a lost node makes it Unknown', () => {
    const spec = { containers: [{ name: 'a' }] };
    const deleting = { deletionTimestamp: '2026-01-01T00:59:00Z' };
    expect(cells(pod(spec, { phase: 'Running', containerStatuses: [running('a')] }, deleting))[2]).toBe(
      'Terminating',
    );
    expect(cells(pod(spec, { phase: 'Succeeded' }, deleting))[2]).toBe('Succeeded');
    expect(cells(pod(spec, { phase: 'Running', reason: 'NodeLost' }, deleting))[2]).toBe('Unknown');
  });

  it('the pod reason wins over the phase; SchedulingGated from the PodScheduled condition', () => {
    const spec = { containers: [{ name: 'a' }] };
    expect(cells(pod(spec, { phase: 'Failed', reason: 'Evicted' }))[2]).toBe('Evicted');
    expect(
      cells(
        pod(spec, {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }],
        }),
      )[2],
    ).toBe('SchedulingGated');
  });

  it('readiness gates as true/total; nominated node', () => {
    const p = pod(
      { containers: [{ name: 'a' }], readinessGates: [{ conditionType: 'x/ok' }, { conditionType: 'y/ok' }] },
      { phase: 'Pending', nominatedNodeName: 'n2', conditions: [{ type: 'x/ok', status: 'True' }] },
    );
    expect(cells(p).slice(7)).toEqual(['n2', '1/2']);
  });

  it('finished pods carry a Completed row condition', () => {
    expect(podPrinter.conditions?.(pod({}, { phase: 'Succeeded' }))?.[0]).toMatchObject({
      type: 'Completed',
      status: 'True',
    });
    expect(podPrinter.conditions?.(pod({}, { phase: 'Running' }))).toBeUndefined();
  });
});

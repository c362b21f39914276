import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podProblemsOf } from '../../../src/releases/pod-diagnosis.ts';

const pod = (name: string, status: k8s.V1PodStatus): k8s.V1Pod => ({ metadata: { name }, status });

describe('podProblemsOf', () => {
  it('reports waiting reasons other than normal creation, once per distinct problem', () => {
    const pull = { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x:2"' } };
    const problems = podProblemsOf([
      pod('web-a', {
        containerStatuses: [
          { name: 'web', image: 'x:2', imageID: '', ready: false, restartCount: 0, state: pull },
        ],
      }),
      pod('web-b', {
        containerStatuses: [
          { name: 'web', image: 'x:2', imageID: '', ready: false, restartCount: 0, state: pull },
        ],
      }),
      pod('web-c', {
        containerStatuses: [
          {
            name: 'web',
            image: 'x:2',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ContainerCreating' } },
          },
        ],
      }),
    ]);
    expect(problems).toEqual(['pod web-a container web: ImagePullBackOff: Back-off pulling image "x:2"']);
  });

  it('reports non-zero exits and unschedulable pods, and nothing for healthy ones', () => {
    expect(
      podProblemsOf([
        pod('a', {
          containerStatuses: [
            {
              name: 'app',
              image: 'x',
              imageID: '',
              ready: false,
              restartCount: 3,
              state: { waiting: { reason: 'CrashLoopBackOff' } },
              lastState: { terminated: { exitCode: 1, reason: 'Error' } },
            },
          ],
        }),
        pod('b', {
          conditions: [
            { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes' },
          ],
        }),
        pod('c', {
          containerStatuses: [
            { name: 'app', image: 'x', imageID: '', ready: true, restartCount: 0, state: { running: {} } },
          ],
        }),
      ]),
    ).toEqual(['pod a container app: CrashLoopBackOff', 'pod b: Unschedulable: 0/3 nodes']);
  });
});

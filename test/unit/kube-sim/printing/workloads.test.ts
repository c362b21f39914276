/** Workload printers (kubernetes/kubernetes pkg/printers/internalversion/printers.go). */
import { describe, expect, it } from 'vitest';
import {
  cronJobPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  hpaPrinter,
  jobPrinter,
  pdbPrinter,
  replicaSetPrinter,
  statefulSetPrinter,
} from '../../../../infra/kube-sim/printing/workloads.ts';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const metadata = { name: 'w', creationTimestamp: '2026-01-01T00:58:00Z' };
const template = {
  spec: {
    containers: [
      { name: 'app', image: 'nginx:1' },
      { name: 'side', image: 'envoy:2' },
    ],
    nodeSelector: { disk: 'ssd', zone: 'a' },
  },
};
const names = (p: { columns: { name: string; priority: number }[] }) =>
  p.columns.map((c) => (c.priority === 1 ? `${c.name}*` : c.name));

describe('workload printers', () => {
  it('deployment: READY ready/desired, wide containers, images and selector', () => {
    expect(names(deploymentPrinter)).toEqual([
      'Name',
      'Ready',
      'Up-to-date',
      'Available',
      'Age',
      'Containers*',
      'Images*',
      'Selector*',
    ]);
    const d = {
      metadata,
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }],
        },
        template,
      },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    expect(deploymentPrinter.cells(d, NOW)).toEqual([
      'w',
      '2/3',
      3,
      2,
      '2m',
      'app,side',
      'nginx:1,envoy:2',
      'app=web,tier in (a,b)',
    ]);
  });

  it('replicaset and statefulset', () => {
    expect(names(replicaSetPrinter)).toEqual([
      'Name',
      'Desired',
      'Current',
      'Ready',
      'Age',
      'Containers*',
      'Images*',
      'Selector*',
    ]);
    expect(
      replicaSetPrinter.cells({ metadata, spec: { replicas: 2, template }, status: { replicas: 2 } }, NOW),
    ).toEqual(['w', 2, 2, 0, '2m', 'app,side', 'nginx:1,envoy:2', '<none>']);
    expect(names(statefulSetPrinter)).toEqual(['Name', 'Ready', 'Age', 'Containers*', 'Images*']);
    expect(
      statefulSetPrinter
        .cells({ metadata, spec: { template }, status: { readyReplicas: 1 } }, NOW)
        .slice(0, 3),
    ).toEqual(['w', '1/1', '2m']);
  });

  it('daemonset: the node selector as labels', () => {
    expect(names(daemonSetPrinter)).toEqual([
      'Name',
      'Desired',
      'Current',
      'Ready',
      'Up-to-date',
      'Available',
      'Node Selector',
      'Age',
      'Containers*',
      'Images*',
      'Selector*',
    ]);
    const ds = {
      metadata,
      spec: { selector: { matchLabels: { app: 'agent' } }, template },
      status: {
        desiredNumberScheduled: 1,
        currentNumberScheduled: 1,
        numberReady: 1,
        updatedNumberScheduled: 1,
        numberAvailable: 1,
      },
    };
    expect(daemonSetPrinter.cells(ds, NOW).slice(0, 8)).toEqual([
      'w',
      1,
      1,
      1,
      1,
      1,
      'disk=ssd,zone=a',
      '2m',
    ]);
    expect(daemonSetPrinter.cells(ds, NOW)[10]).toBe('app=agent');
  });

  it('job: STATUS from conditions, COMPLETIONS, DURATION', () => {
    expect(names(jobPrinter)).toEqual([
      'Name',
      'Status',
      'Completions',
      'Duration',
      'Age',
      'Containers*',
      'Images*',
      'Selector*',
    ]);
    const job = (spec: object, status: object, meta: object = {}) =>
      jobPrinter.cells({ metadata: { ...metadata, ...meta }, spec: { template, ...spec }, status }, NOW);
    const done = {
      succeeded: 1,
      startTime: '2026-01-01T00:58:00Z',
      completionTime: '2026-01-01T00:58:07Z',
      conditions: [{ type: 'Complete', status: 'True' }],
    };
    expect(job({ completions: 1 }, done).slice(0, 4)).toEqual(['w', 'Complete', '1/1', '7s']);
    expect(job({ completions: 3 }, { succeeded: 1, startTime: '2026-01-01T00:59:00Z' }).slice(1, 4)).toEqual([
      'Running',
      '1/3',
      '60s',
    ]);
    expect(job({ parallelism: 2 }, {}).slice(1, 4)).toEqual(['Running', '0/1 of 2', '']);
    expect(job({}, { conditions: [{ type: 'Failed', status: 'True' }] })[1]).toBe('Failed');
    expect(job({}, { conditions: [{ type: 'Suspended', status: 'True' }] })[1]).toBe('Suspended');
    expect(job({}, { conditions: [{ type: 'FailureTarget', status: 'True' }] })[1]).toBe('FailureTarget');
    expect(job({}, { conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }] })[1]).toBe(
      'SuccessCriteriaMet',
    );
    expect(job({}, {}, { deletionTimestamp: '2026-01-01T00:59:00Z' })[1]).toBe('Terminating');
    expect(job({}, { conditions: [{ type: 'Complete', status: 'False' }] })[1]).toBe('Running');
  });

  it('cronjob: schedule, timezone, suspend, active, last schedule', () => {
    expect(names(cronJobPrinter)).toEqual([
      'Name',
      'Schedule',
      'Timezone',
      'Suspend',
      'Active',
      'Last Schedule',
      'Age',
      'Containers*',
      'Images*',
      'Selector*',
    ]);
    const cj = {
      metadata,
      spec: { schedule: '*/5 * * * *', suspend: false, jobTemplate: { spec: { template } } },
      status: {},
    };
    expect(cronJobPrinter.cells(cj, NOW)).toEqual([
      'w',
      '*/5 * * * *',
      '<none>',
      'False',
      0,
      '<none>',
      '2m',
      'app,side',
      'nginx:1,envoy:2',
      '<none>',
    ]);
    const later = {
      ...cj,
      spec: { ...cj.spec, timeZone: 'Etc/UTC', suspend: undefined },
      status: { active: [{ name: 'j' }], lastScheduleTime: '2026-01-01T00:59:30Z' },
    };
    expect(cronJobPrinter.cells(later, NOW).slice(2, 6)).toEqual(['Etc/UTC', '<unset>', 1, '30s']);
  });

  it('horizontal pod autoscaler v2: reference, targets, min and max pods', () => {
    expect(names(hpaPrinter)).toEqual([
      'Name',
      'Reference',
      'Targets',
      'MinPods',
      'MaxPods',
      'Replicas',
      'Age',
    ]);
    const hpa = {
      metadata,
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
          },
          {
            type: 'Resource',
            resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } },
          },
        ],
      },
      status: {
        currentReplicas: 3,
        currentMetrics: [
          { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40 } } },
        ],
      },
    };
    expect(hpaPrinter.cells(hpa, NOW)).toEqual([
      'w',
      'Deployment/web',
      'cpu: 40%/80%, memory: <unknown>/512Mi',
      '2',
      10,
      3,
      '2m',
    ]);
    expect(
      hpaPrinter
        .cells({ metadata, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 1 } }, NOW)
        .slice(2, 4),
    ).toEqual(['<none>', '<unset>']);
  });

  it('pod disruption budget: N/A for the bound not set', () => {
    expect(names(pdbPrinter)).toEqual([
      'Name',
      'Min Available',
      'Max Unavailable',
      'Allowed Disruptions',
      'Age',
    ]);
    expect(
      pdbPrinter.cells({ metadata, spec: { minAvailable: '50%' }, status: { disruptionsAllowed: 1 } }, NOW),
    ).toEqual(['w', '50%', 'N/A', 1, '2m']);
  });
});

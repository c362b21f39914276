/**
 * The app chart's autoscaling: a KEDA ScaledObject with KEDA on the cluster, an `autoscaling/v2`
 * HPA for cpu/memory triggers without it (any other trigger refused), and no `replicas` on the
 * autoscaled process's Deployment either way, so longshore's applied configuration never holds it.
 */
import { describe, expect, it } from 'vitest';
import {
  type AppChartValues,
  appChart,
  ChartValuesError,
  type RenderedObject,
} from '../../../charts/index.ts';
import type { Autoscaling } from '../../../rules/autoscaling.ts';
import { fullApp } from './cases.ts';
import { validateObject } from './kubernetes-schema.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read deep into rendered JSON
type Loose = RenderedObject & { spec: any };

const render = (values: AppChartValues): Loose[] => appChart.render(values) as Loose[];
const byName = (objects: Loose[], kind: string, name: string): Loose | undefined =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);

const CPU: Autoscaling = {
  minReplicas: 2,
  maxReplicas: 8,
  pollingIntervalSeconds: 15,
  cooldownSeconds: 300,
  triggers: [
    { type: 'cpu', metadata: { value: '60' } },
    { type: 'memory', metadata: { value: '500Mi', type: 'AverageValue' } },
  ],
};
const REDIS: Autoscaling = {
  minReplicas: 0,
  maxReplicas: 10,
  triggers: [{ type: 'redis', metadata: { listName: 'jobs', address: 'redis:6379', listLength: '5' } }],
};

const withWorker = (autoscaling: Autoscaling, keda: boolean | undefined): AppChartValues => ({
  ...fullApp,
  processes: { ...fullApp.processes, worker: { ...fullApp.processes.worker!, autoscaling } },
  ...(keda !== undefined ? { keda } : {}),
});

describe('autoscaling with KEDA', () => {
  it('renders a ScaledObject targeting the Deployment, with every setting and sorted metadata', () => {
    const objects = render(withWorker(REDIS, true));
    const scaled = byName(objects, 'ScaledObject', 'shop-worker');
    expect(scaled?.apiVersion).toBe('keda.sh/v1alpha1');
    expect(scaled?.metadata.labels?.['app.kubernetes.io/name']).toBe('worker');
    expect(scaled?.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop-worker' },
      minReplicaCount: 0,
      maxReplicaCount: 10,
      triggers: [{ type: 'redis', metadata: { address: 'redis:6379', listLength: '5', listName: 'jobs' } }],
    });
    expect(Object.keys(scaled!.spec.triggers[0].metadata)).toEqual(['address', 'listLength', 'listName']);
    expect(objects.some((o) => o.kind === 'HorizontalPodAutoscaler')).toBe(false);
  });

  it('carries pollingInterval and cooldownPeriod when given', () => {
    const scaled = byName(render(withWorker(CPU, true)), 'ScaledObject', 'shop-worker');
    expect(scaled?.spec).toMatchObject({
      minReplicaCount: 2,
      maxReplicaCount: 8,
      pollingInterval: 15,
      cooldownPeriod: 300,
    });
  });

  it('says a cpu or memory trigger’s metric type in metricType, not in the metadata KEDA 2.18 refuses', () => {
    const scaled = byName(render(withWorker(CPU, true)), 'ScaledObject', 'shop-worker');
    expect(scaled?.spec.triggers).toEqual([
      { type: 'cpu', metricType: 'Utilization', metadata: { value: '60' } },
      { type: 'memory', metricType: 'AverageValue', metadata: { value: '500Mi' } },
    ]);
  });

  it('leaves replicas out of the autoscaled Deployment only', () => {
    const objects = render(withWorker(REDIS, true));
    expect(byName(objects, 'Deployment', 'shop-worker')?.spec).not.toHaveProperty('replicas');
    expect(byName(objects, 'Deployment', 'shop-web')?.spec.replicas).toBe(fullApp.processes.web!.replicas);
  });
});

describe('autoscaling without KEDA', () => {
  it('renders cpu and memory triggers as an autoscaling/v2 HPA', () => {
    const objects = render(withWorker(CPU, false));
    expect(objects.some((o) => o.kind === 'ScaledObject')).toBe(false);
    const hpa = byName(objects, 'HorizontalPodAutoscaler', 'shop-worker');
    expect(hpa?.apiVersion).toBe('autoscaling/v2');
    expect(hpa?.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop-worker' },
      minReplicas: 2,
      maxReplicas: 8,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
        },
        {
          type: 'Resource',
          resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } },
        },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 300 } },
    });
    expect(byName(objects, 'Deployment', 'shop-worker')?.spec).not.toHaveProperty('replicas');
    // Both valid against the upstream schemas (types, required fields, no unknown fields).
    validateObject(hpa!);
    validateObject(byName(objects, 'Deployment', 'shop-worker')!);
  });

  it('treats absent cluster knowledge as no KEDA', () => {
    expect(
      byName(render(withWorker(CPU, undefined)), 'HorizontalPodAutoscaler', 'shop-worker'),
    ).toBeDefined();
  });

  it('refuses any other trigger, naming it', () => {
    expect(() => render(withWorker(REDIS, false))).toThrow(
      /processes\.worker\.autoscaling: KEDA is not installed on this cluster \(no ScaledObject CRD\): trigger redis needs it/,
    );
  });

  it('refuses a minimum of 0 (an HPA does not scale to 0)', () => {
    expect(() => render(withWorker({ ...CPU, minReplicas: 0 }, false))).toThrow(
      /minReplicas: must be 1 or more without KEDA/,
    );
  });
});

describe('autoscaling values', () => {
  it.each([
    ['min above max', { ...CPU, minReplicas: 9 }],
    ['max below 1', { ...CPU, minReplicas: 0, maxReplicas: 0 }],
    ['no triggers', { ...CPU, triggers: [] }],
    ['an unknown trigger type', { ...CPU, triggers: [{ type: 'nope', metadata: {} }] }],
    [
      'a cpu trigger without a whole-number value',
      { ...CPU, triggers: [{ type: 'cpu', metadata: { value: 'high' } }] },
    ],
    ['a polling interval of 0', { ...CPU, pollingIntervalSeconds: 0 }],
  ])('refuses %s', (_what, autoscaling) => {
    expect(() => render(withWorker(autoscaling as Autoscaling, true))).toThrow(ChartValuesError);
  });
});

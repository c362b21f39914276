/**
 * The app chart's rollout and placement: max_parallel as the rolling update, labels and
 * annotations scoped by process type and resource type on exactly their objects, and a placement
 * profile as the pods' nodeSelector and tolerations of its process only.
 */
import { describe, expect, it } from 'vitest';
import {
  type AppChartValues,
  appChart,
  ChartValuesError,
  type RenderedObject,
  runJob,
} from '../../../charts/index.ts';
import { fullApp } from './cases.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read deep into rendered JSON
type Loose = RenderedObject & { spec: any };

const render = (values: AppChartValues): Loose[] => appChart.render(values) as Loose[];
const byName = (objects: Loose[], kind: string, name: string): Loose => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};

/** Every metadata block of the release, by where it is, with the value of `key` there (if any). */
function whereKey(objects: Loose[], field: 'labels' | 'annotations', key: string): string[] {
  const out: string[] = [];
  for (const o of objects) {
    const at = (where: string, meta: Record<string, Record<string, string> | undefined> | undefined) => {
      const value = meta?.[field]?.[key];
      if (value !== undefined) out.push(`${o.kind}/${o.metadata.name}${where}=${value}`);
    };
    at('', o.metadata as never);
    if (o.kind === 'Deployment') at(' pod', o.spec.template.metadata);
    if (o.kind === 'CronJob') {
      at(' job', o.spec.jobTemplate.metadata);
      at(' pod', o.spec.jobTemplate.spec.template.metadata);
    }
  }
  return out.sort();
}

describe('rollout parallelism', () => {
  it('renders max_parallel as maxSurge N, maxUnavailable 0, and nothing without it', () => {
    const values: AppChartValues = {
      ...fullApp,
      processes: { ...fullApp.processes, web: { ...fullApp.processes.web!, maxParallel: 2 } },
    };
    const objects = render(values);
    expect(byName(objects, 'Deployment', 'shop-web').spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 2, maxUnavailable: 0 },
    });
    expect(byName(objects, 'Deployment', 'shop-worker').spec.strategy).toBeUndefined();
  });

  it('refuses a max_parallel below 1', () => {
    const values = {
      ...fullApp,
      processes: { ...fullApp.processes, web: { ...fullApp.processes.web!, maxParallel: 0 } },
    };
    expect(() => appChart.render(values)).toThrow(ChartValuesError);
  });
});

describe('scoped labels and annotations', () => {
  const values: AppChartValues = {
    ...fullApp,
    metadata: {
      labels: [
        { key: 'example.com/all', value: 'yes' },
        { key: 'example.com/deploy', value: 'd', resourceType: 'deployment' },
        { key: 'example.com/pods-of-worker', value: 'w', resourceType: 'pod', processType: 'worker' },
        { key: 'example.com/svc', value: 's', resourceType: 'service' },
        { key: 'example.com/cron', value: 'c', resourceType: 'cronjob' },
        { key: 'example.com/job', value: 'j', resourceType: 'job' },
        // A broader entry and a narrower one for the same key: the narrower wins where it applies.
        { key: 'example.com/tier', value: 'any' },
        { key: 'example.com/tier', value: 'front', processType: 'web' },
      ],
      annotations: [{ key: 'example.com/ingress-note', value: 'hello world', resourceType: 'ingress' }],
    },
  };
  const objects = render(values);

  it('puts a resource-typed label on that kind of object only', () => {
    expect(whereKey(objects, 'labels', 'example.com/deploy')).toEqual([
      'Deployment/shop-web=d',
      'Deployment/shop-worker=d',
    ]);
    expect(whereKey(objects, 'labels', 'example.com/pods-of-worker')).toEqual([
      'Deployment/shop-worker pod=w',
    ]);
    expect(whereKey(objects, 'labels', 'example.com/svc')).toEqual(['Service/shop-web=s']);
    expect(whereKey(objects, 'labels', 'example.com/cron')).toEqual([
      'CronJob/shop-cron-0f9e8d7c6b=c',
      'CronJob/shop-cron-a1b2c3d4e5=c',
    ]);
    expect(whereKey(objects, 'labels', 'example.com/job')).toEqual([
      'CronJob/shop-cron-0f9e8d7c6b job=j',
      'CronJob/shop-cron-a1b2c3d4e5 job=j',
    ]);
    const ingresses = objects.filter((o) => o.kind === 'Ingress');
    expect(whereKey(objects, 'annotations', 'example.com/ingress-note')).toEqual(
      ingresses.map((i) => `Ingress/${i.metadata.name}=hello world`).sort(),
    );
  });

  it('puts an unscoped label on every object, and a process-scoped one only on its process', () => {
    // Every object of the release but the ServiceAccount (which belongs to no resource type).
    const all = whereKey(objects, 'labels', 'example.com/all');
    expect(all).toHaveLength(objects.length - 1 + 2 /* pod templates */ + 4 /* cron job and pod templates */);
    const tier = whereKey(objects, 'labels', 'example.com/tier');
    expect(tier.filter((t) => t.endsWith('=front')).sort()).toEqual(
      [
        'Deployment/shop-web=front',
        'Deployment/shop-web pod=front',
        'Service/shop-web=front',
        ...objects.filter((o) => o.kind === 'Ingress').map((i) => `Ingress/${i.metadata.name}=front`),
      ].sort(),
    );
    expect(tier).toContain('Deployment/shop-worker=any');
  });

  it('keeps the selectors and the chart’s own labels whatever the user sets', () => {
    const web = byName(objects, 'Deployment', 'shop-web');
    expect(web.spec.selector.matchLabels).toEqual({
      'app.kubernetes.io/instance': 'shop-web',
      'app.kubernetes.io/part-of': 'shop',
    });
    expect(byName(objects, 'Service', 'shop-web').spec.selector).toEqual(web.spec.selector.matchLabels);
  });

  it('labels a run Job and its pod by the run’s process', () => {
    const job = runJob(values, {
      name: 'shop-run-1',
      process: 'worker',
      command: ['rake', 'db:migrate'],
      jobId: 'app.shop.1',
      activeDeadlineSeconds: 60,
      ttlSecondsAfterFinished: 60,
      withEnv: false,
      tty: false,
    }) as Loose;
    expect(job.metadata.labels?.['example.com/job']).toBe('j');
    expect(job.metadata.labels?.['example.com/pods-of-worker']).toBeUndefined();
    expect(job.spec.template.metadata.labels['example.com/pods-of-worker']).toBe('w');
    expect(job.spec.template.metadata.labels['example.com/job']).toBeUndefined();
  });

  it('refuses keys longshore owns and label values that are not label values', () => {
    const bad = (entry: { key: string; value: string }) => () =>
      appChart.render({ ...fullApp, metadata: { labels: [entry], annotations: [] } });
    expect(bad({ key: 'app.kubernetes.io/name', value: 'x' })).toThrow(/set by longshore/);
    expect(bad({ key: 'longshore.dev/app', value: 'x' })).toThrow(/set by longshore/);
    expect(bad({ key: 'not a key', value: 'x' })).toThrow(ChartValuesError);
    expect(bad({ key: 'example.com/ok', value: 'not a value' })).toThrow(ChartValuesError);
  });
});

describe('placement profiles', () => {
  const placement = {
    nodeSelector: { 'example.com/pool': 'gpu' },
    tolerations: [
      { key: 'gpu', operator: 'Exists' as const, effect: 'NoSchedule' as const },
      { key: 'dedicated', operator: 'Equal' as const, value: 'ml', effect: 'NoExecute' as const },
    ],
  };
  const values: AppChartValues = {
    ...fullApp,
    processes: { ...fullApp.processes, worker: { ...fullApp.processes.worker!, placement } },
  };
  const objects = render(values);

  it('renders the profile as nodeSelector and tolerations of that process’s pods only', () => {
    const pod = byName(objects, 'Deployment', 'shop-worker').spec.template.spec;
    expect(pod.nodeSelector).toEqual({ 'example.com/pool': 'gpu' });
    expect(pod.tolerations).toEqual([
      { key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoExecute' },
      { key: 'gpu', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    const web = byName(objects, 'Deployment', 'shop-web').spec.template.spec;
    expect(web.nodeSelector).toBeUndefined();
    expect(web.tolerations).toBeUndefined();
    for (const cron of objects.filter((o) => o.kind === 'CronJob'))
      expect(cron.spec.jobTemplate.spec.template.spec.nodeSelector).toBeUndefined();
  });

  it('places a run Job of that process like its pods', () => {
    const job = runJob(values, {
      name: 'shop-run-2',
      process: 'worker',
      command: ['true'],
      jobId: 'app.shop.2',
      activeDeadlineSeconds: 60,
      ttlSecondsAfterFinished: 60,
      withEnv: false,
      tty: false,
    }) as Loose;
    expect(job.spec.template.spec.nodeSelector).toEqual({ 'example.com/pool': 'gpu' });
  });

  it('refuses an unknown toleration effect and a value with Exists', () => {
    const withTolerations = (tolerations: unknown[]) => () =>
      appChart.render({
        ...fullApp,
        processes: {
          ...fullApp.processes,
          worker: { ...fullApp.processes.worker!, placement: { nodeSelector: {}, tolerations } },
        },
      } as AppChartValues);
    expect(withTolerations([{ key: 'gpu', operator: 'Exists', effect: 'Sometimes' }])).toThrow(
      ChartValuesError,
    );
    expect(withTolerations([{ key: 'gpu', operator: 'Exists', value: 'x', effect: 'NoSchedule' }])).toThrow(
      /must be empty/,
    );
  });
});

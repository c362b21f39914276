/** Behaviour of the app chart beyond the goldens: defaults, derived names, labels, annotations. */
import { describe, expect, it } from 'vitest';
import {
  type AppChartValues,
  appChart,
  CONFIG_DIGEST_ANNOTATION,
  cronIdLabel,
  RESTARTED_AT_ANNOTATION,
  type RenderedObject,
} from '../../../charts/index.ts';
import { fullApp, minimalApp, traefikApp } from './cases.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read deep into rendered JSON
type Loose = RenderedObject & { spec: any };

const render = (values: AppChartValues): Loose[] => appChart.render(values) as Loose[];
const find = (objects: Loose[], kind: string, name?: string): Loose | undefined =>
  objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));

describe('app chart', () => {
  it("mounts a process-scoped entry into that process's Deployment only, and shared ones everywhere", () => {
    const values: AppChartValues = {
      ...fullApp,
      mounts: [
        { entry: 'uploads', claimName: 'storage-uploads', mountPath: '/uploads', readOnly: false },
        {
          entry: 'scratch',
          claimName: 'storage-scratch',
          mountPath: '/tmp/x',
          readOnly: false,
          process: 'worker',
        },
        // The same path in another process's container does not meet the first.
        { entry: 'cache', claimName: 'storage-cache', mountPath: '/tmp/x', readOnly: true, process: 'web' },
      ],
    };
    const objects = render(values);
    const volumesOf = (o: Loose | undefined) => {
      const pod = o?.kind === 'CronJob' ? o.spec.jobTemplate.spec.template.spec : o?.spec.template.spec;
      return [
        pod.volumes.map((v: { name: string }) => v.name),
        pod.containers[0].volumeMounts.map((m: { name: string }) => m.name),
      ];
    };
    expect(volumesOf(find(objects, 'Deployment', 'shop-worker'))).toEqual([
      ['scratch', 'uploads'],
      ['scratch', 'uploads'],
    ]);
    expect(volumesOf(find(objects, 'Deployment', 'shop-web'))).toEqual([
      ['cache', 'uploads'],
      ['cache', 'uploads'],
    ]);
    expect(volumesOf(find(objects, 'CronJob'))).toEqual([['uploads'], ['uploads']]);
    expect(() =>
      render({
        ...values,
        mounts: [
          ...values.mounts,
          {
            entry: 'logs',
            claimName: 'storage-logs',
            mountPath: '/uploads',
            readOnly: false,
            process: 'web',
          },
        ],
      }),
    ).toThrow(/mounts\.3\.mountPath: \/uploads is already mount 0's path/);
  });

  it('puts every object in the namespace with part-of and managed-by', () => {
    for (const o of render(fullApp)) {
      expect(o.metadata.namespace).toBe('shop-prod');
      expect(o.metadata.labels).toMatchObject({
        'app.kubernetes.io/part-of': 'shop',
        'app.kubernetes.io/managed-by': 'longshore',
        team: 'storefront',
      });
      expect(o.metadata.annotations).toMatchObject({ 'example.com/owner': 'storefront@example.com' });
    }
  });

  it('never lets user labels or annotations replace the chart’s own', () => {
    const objects = render({
      ...fullApp,
      labels: { 'app.kubernetes.io/part-of': 'evil', 'app.kubernetes.io/instance': 'evil' },
      annotations: { [CONFIG_DIGEST_ANNOTATION]: 'evil', 'cert-manager.io/cluster-issuer': 'evil' },
    });
    const web = find(objects, 'Deployment', 'shop-web')!;
    expect(web.metadata.labels?.['app.kubernetes.io/part-of']).toBe('shop');
    expect(web.spec.template.metadata.labels['app.kubernetes.io/instance']).toBe('shop-web');
    expect(web.spec.template.metadata.annotations[CONFIG_DIGEST_ANNOTATION]).toBe(fullApp.configDigest);
    expect(find(objects, 'Ingress')!.metadata.annotations?.['cert-manager.io/cluster-issuer']).toBe(
      'letsencrypt-prod',
    );
  });

  it('puts the restart time of a restarted process on its pod template only', () => {
    const at = '2026-01-02T03:04:05.000Z';
    const before = render(fullApp);
    const after = render({
      ...fullApp,
      processes: { ...fullApp.processes, web: { ...fullApp.processes.web!, restartedAt: at } },
    });
    for (const [i, o] of after.entries()) {
      if (o.kind === 'Deployment' && o.metadata.name === 'shop-web') {
        expect(o.spec.template.metadata.annotations[RESTARTED_AT_ANNOTATION]).toBe(at);
        expect({ ...o, spec: { ...o.spec, template: { ...o.spec.template, metadata: {} } } }).toEqual({
          ...before[i],
          spec: { ...before[i]!.spec, template: { ...before[i]!.spec.template, metadata: {} } },
        });
      } else expect(o).toEqual(before[i]);
    }
  });

  it('rolls pods when the config digest changes, and only their templates change', () => {
    const before = render(fullApp);
    const after = render({ ...fullApp, configDigest: 'sha256:other' });
    for (const [i, o] of after.entries()) {
      if (o.kind === 'Deployment') {
        expect(o.spec.template.metadata.annotations[CONFIG_DIGEST_ANNOTATION]).toBe('sha256:other');
      } else if (o.kind === 'CronJob') {
        expect(o.spec.jobTemplate.spec.template.metadata.annotations[CONFIG_DIGEST_ANNOTATION]).toBe(
          'sha256:other',
        );
      } else {
        expect(o).toEqual(before[i]);
      }
    }
  });

  it('applies default requests, and lowers a default request to a smaller limit', () => {
    const objects = render({
      ...minimalApp,
      processes: { web: { replicas: 1, resources: { cpuLimit: '50m', memoryLimit: '1Gi' } } },
    });
    expect(find(objects, 'Deployment')!.spec.template.spec.containers[0].resources).toEqual({
      requests: { cpu: '50m', memory: '128Mi' },
      limits: { cpu: '50m', memory: '1Gi' },
    });
  });

  it('points probes without a port at the app’s PORT', () => {
    const objects = render({
      ...minimalApp,
      ports: ['http:80:8080'],
      processes: {
        web: {
          replicas: 1,
          healthchecks: { readiness: { type: 'http' }, liveness: { type: 'tcp', port: 9090 } },
        },
      },
    });
    const container = find(objects, 'Deployment')!.spec.template.spec.containers[0];
    expect(container.readinessProbe).toEqual({ httpGet: { path: '/', port: 8080 } });
    expect(container.livenessProbe).toEqual({ tcpSocket: { port: 9090 } });
  });

  it('gives container ports to web only, and the same PORT to every process', () => {
    const objects = render(traefikApp);
    const web = find(objects, 'Deployment', 'game-web')!.spec.template.spec.containers[0];
    const matchmaker = find(objects, 'Deployment', 'game-matchmaker')!.spec.template.spec.containers[0];
    expect(web.ports).toHaveLength(4);
    expect(matchmaker.ports).toBeUndefined();
    expect(matchmaker.env).toEqual([{ name: 'PORT', value: '3000' }]);
  });

  it('leaves args out when a process has no command, so the image default runs', () => {
    const container = find(render(minimalApp), 'Deployment')!.spec.template.spec.containers[0];
    expect(container).not.toHaveProperty('args');
  });

  it('renders no Service or Ingress without a web process', () => {
    const objects = render({ ...fullApp, processes: { worker: fullApp.processes.worker! } });
    expect(objects.map((o) => o.kind)).toEqual(['ServiceAccount', 'Deployment', 'CronJob', 'CronJob']);
  });

  it('renders Ingresses without TLS when tls is null', () => {
    const ingress = find(render({ ...fullApp, tls: null }), 'Ingress')!;
    expect(ingress.spec.tls).toBeUndefined();
    expect(ingress.metadata.annotations).toEqual({ 'example.com/owner': 'storefront@example.com' });
  });

  it('tells nginx when the primary backend speaks gRPC', () => {
    const ingress = find(
      render({ ...minimalApp, ports: ['grpc:50051:50051'], domains: ['api.example.com'] }),
      'Ingress',
    )!;
    expect(ingress.metadata.annotations).toEqual({ 'nginx.ingress.kubernetes.io/backend-protocol': 'GRPC' });
    expect(ingress.spec.rules[0].http.paths[0].backend.service.port.number).toBe(50051);
  });

  it('keeps Ingress names distinct when two domains share a slug: every name ends in a hash of app and domain', () => {
    const names = render({
      ...minimalApp,
      domains: [
        'a-b.example.com',
        'a.b.example.com',
        'wildcard.example.com',
        '*.example.com',
        'c.example.com',
      ],
    })
      .filter((o) => o.kind === 'Ingress')
      .map((o) => o.metadata.name);
    expect(new Set(names).size).toBe(5);
    expect(names.filter((n) => /^hello-web-c-example-com-[0-9a-f]{8}$/.test(n))).toHaveLength(1);
    expect(names.filter((n) => /^hello-web-a-b-example-com-[0-9a-f]{8}$/.test(n))).toHaveLength(2);
    expect(names.filter((n) => /^hello-web-wildcard-example-com-[0-9a-f]{8}$/.test(n))).toHaveLength(2);
  });

  it('drops duplicate domains and port maps', () => {
    const objects = render({
      ...minimalApp,
      ports: ['http:80:8080', 'http:80:8080'],
      domains: ['x.example.com', 'x.example.com'],
    });
    expect(objects.filter((o) => o.kind === 'Ingress')).toHaveLength(1);
    expect(find(objects, 'Service')!.spec.ports).toHaveLength(1);
  });

  it('labels CronJobs, their Jobs and pods with a hash of the task id, never a process selector', () => {
    const objects = render({ ...fullApp, processes: { ...fullApp.processes, cron: { replicas: 1 } } });
    const cron = find(objects, 'CronJob', 'shop-cron-a1b2c3d4e5')!;
    const id = cronIdLabel(fullApp.cron[0]!.id);
    expect(id).toMatch(/^[0-9a-f]{63}$/);
    expect(cron.metadata.labels?.['longshore.dev/cron-id']).toBe(id);
    expect(cron.spec.jobTemplate.metadata.labels['longshore.dev/cron-id']).toBe(id);
    const podLabels = cron.spec.jobTemplate.spec.template.metadata.labels;
    expect(podLabels['longshore.dev/cron-id']).toBe(id);
    expect(podLabels).not.toHaveProperty('app.kubernetes.io/instance');
    expect(cron.metadata.annotations?.['longshore.dev/cron-command']).toBe('bundle exec rake orders:expire');
  });
});

import { describe, expect, it } from 'vitest';
import {
  applyDefaults,
  type DefaultingContext,
  defaultJobSelector,
} from '../../../infra/kube-sim/defaulting/index.ts';
import { imageTag } from '../../../infra/kube-sim/defaulting/podspec.ts';
import { findByKind } from '../../../infra/kube-sim/resources.ts';
import type { KubeObject } from '../../../infra/kube-sim/types.ts';

function context(extra: Partial<DefaultingContext> = {}): DefaultingContext {
  let ip = 10;
  let port = 30000;
  return {
    allocateClusterIP: () => `10.96.0.${ip++}`,
    allocateNodePort: () => port++,
    now: () => new Date('2025-05-01T10:00:00.123Z'),
    ...extra,
  };
}

function defaulted(object: KubeObject, ctx: DefaultingContext = context()): KubeObject {
  const type = findByKind(object.apiVersion, object.kind);
  if (!type) throw new Error(`no type for ${object.kind}`);
  const copy = structuredClone(object);
  applyDefaults(type, copy, ctx);
  return copy;
}

const meta = (name: string) => ({ name, namespace: 'default' });
const defaultedContainer = {
  name: 'app',
  image: 'nginx:1.27',
  imagePullPolicy: 'IfNotPresent',
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
};
const defaultedPodSpec = {
  containers: [defaultedContainer],
  dnsPolicy: 'ClusterFirst',
  restartPolicy: 'Always',
  securityContext: {},
  terminationGracePeriodSeconds: 30,
  schedulerName: 'default-scheduler',
};

describe('Service defaults', () => {
  const service = (spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta('web'),
    spec,
  });

  it('makes a single-stack ClusterIP service with an allocated address', () => {
    expect(
      defaulted(service({ selector: { app: 'web' }, ports: [{ port: 80, name: 'http' }] })).spec,
    ).toEqual({
      selector: { app: 'web' },
      ports: [{ port: 80, name: 'http', protocol: 'TCP', targetPort: 80 }],
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
    });
  });

  it('keeps a requested clusterIP and mirrors it into clusterIPs', () => {
    const spec = defaulted(
      service({ clusterIP: '10.96.7.7', ports: [{ port: 53, protocol: 'UDP', targetPort: 'dns' }] }),
    ).spec;
    expect(spec).toMatchObject({
      clusterIP: '10.96.7.7',
      clusterIPs: ['10.96.7.7'],
      ports: [{ targetPort: 'dns', protocol: 'UDP' }],
    });
  });

  it('allocates nothing for headless services; selectorless ones require dual stack', () => {
    expect(defaulted(service({ clusterIP: 'None', selector: { app: 'db' } })).spec).toMatchObject({
      clusterIP: 'None',
      clusterIPs: ['None'],
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
    });
    expect(defaulted(service({ clusterIP: 'None' })).spec).toMatchObject({
      clusterIPs: ['None'],
      ipFamilyPolicy: 'RequireDualStack',
      ipFamilies: ['IPv4', 'IPv6'],
    });
  });

  it('gives ExternalName services no IP fields', () => {
    expect(defaulted(service({ type: 'ExternalName', externalName: 'db.example.com' })).spec).toEqual({
      type: 'ExternalName',
      externalName: 'db.example.com',
      sessionAffinity: 'None',
    });
  });

  it('defaults load balancers and allocates node ports when it can', () => {
    const spec = defaulted(service({ type: 'LoadBalancer', ports: [{ port: 443 }] })).spec;
    expect(spec).toMatchObject({
      externalTrafficPolicy: 'Cluster',
      allocateLoadBalancerNodePorts: true,
      internalTrafficPolicy: 'Cluster',
      ports: [{ port: 443, protocol: 'TCP', targetPort: 443, nodePort: 30000 }],
    });
    const withoutAllocator = defaulted(service({ type: 'NodePort', ports: [{ port: 80 }] }), {
      allocateClusterIP: () => '10.96.0.50',
    }).spec as { ports: Record<string, unknown>[] };
    expect(withoutAllocator.ports[0]?.nodePort).toBeUndefined();
  });

  it('defaults the ClientIP affinity timeout', () => {
    expect(defaulted(service({ sessionAffinity: 'ClientIP', ports: [{ port: 80 }] })).spec).toMatchObject({
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    });
  });

  it('keeps allocated values on updates that omit them', () => {
    const old = defaulted(service({ type: 'NodePort', ports: [{ port: 80, name: 'http' }] }));
    const next = defaulted(
      service({ type: 'NodePort', ports: [{ port: 80, name: 'http' }] }),
      context({ old, allocateClusterIP: () => '10.96.9.9' }),
    );
    expect(next.spec).toMatchObject({
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      ports: [{ nodePort: 30000 }],
      ipFamilyPolicy: 'SingleStack',
    });
  });

  it('drops the old clusterIP when switching to ExternalName', () => {
    const old = defaulted(service({ ports: [{ port: 80 }] }));
    const next = structuredClone(old);
    Object.assign(next.spec as object, { type: 'ExternalName', externalName: 'x.example.com' });
    const type = findByKind('v1', 'Service')!;
    applyDefaults(type, next, context({ old }));
    expect(next.spec).not.toHaveProperty('clusterIP');
    expect(next.spec).not.toHaveProperty('ipFamilies');
  });
});

describe('pod template defaults', () => {
  it('derives imagePullPolicy from the tag', () => {
    expect(imageTag('nginx')).toBe('latest');
    expect(imageTag('nginx:latest')).toBe('latest');
    expect(imageTag('nginx:1.27')).toBe('1.27');
    expect(imageTag('localhost:5000/app')).toBe('latest');
    expect(imageTag('registry.example.com:5000/team/app:v2')).toBe('v2');
    expect(imageTag(`nginx@sha256:${'a'.repeat(64)}`)).toBe('');
    expect(imageTag('Nginx')).toBe('');
    const pod = defaulted({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta('p'),
      spec: {
        containers: [
          { name: 'a', image: 'nginx' },
          { name: 'b', image: 'nginx:1.27' },
          { name: 'c', image: 'nginx', imagePullPolicy: 'Never' },
        ],
      },
    });
    const policies = (pod.spec as { containers: { imagePullPolicy: string }[] }).containers.map(
      (c) => c.imagePullPolicy,
    );
    expect(policies).toEqual(['Always', 'IfNotPresent', 'Never']);
  });

  it('fills ports, env references, probes and lifecycle hooks', () => {
    const pod = defaulted({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta('p'),
      spec: {
        containers: [
          {
            name: 'app',
            image: 'nginx:1.27',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            livenessProbe: { httpGet: { port: 80 } },
            readinessProbe: { grpc: { port: 9090 }, periodSeconds: 5 },
            lifecycle: { preStop: { httpGet: { port: 80, path: '/quit' } } },
          },
        ],
      },
    });
    const c = (pod.spec as { containers: Record<string, unknown>[] }).containers[0];
    expect(c).toMatchObject({
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      env: [{ valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
      livenessProbe: {
        httpGet: { port: 80, path: '/', scheme: 'HTTP' },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
      readinessProbe: { grpc: { port: 9090, service: '' }, periodSeconds: 5, timeoutSeconds: 1 },
      lifecycle: { preStop: { httpGet: { port: 80, path: '/quit', scheme: 'HTTP' } } },
    });
  });

  it('fills volume sources', () => {
    const pod = defaulted({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta('p'),
      spec: {
        containers: [{ name: 'app', image: 'nginx:1.27' }],
        volumes: [
          { name: 'scratch' },
          { name: 'cfg', configMap: { name: 'cfg' } },
          { name: 'tls', secret: { secretName: 'tls', defaultMode: 0o400 } },
          { name: 'host', hostPath: { path: '/var/log' } },
          { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
        ],
      },
    });
    expect((pod.spec as { volumes: unknown[] }).volumes).toEqual([
      { name: 'scratch', emptyDir: {} },
      { name: 'cfg', configMap: { name: 'cfg', defaultMode: 420 } },
      { name: 'tls', secret: { secretName: 'tls', defaultMode: 256 } },
      { name: 'host', hostPath: { path: '/var/log', type: '' } },
      {
        name: 'token',
        projected: {
          sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }],
          defaultMode: 420,
        },
      },
    ]);
  });

  it('adds pod-only defaults to Pods', () => {
    const pod = defaulted({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta('p'),
      spec: {
        hostNetwork: true,
        containers: [
          {
            name: 'app',
            image: 'nginx:1.27',
            ports: [{ containerPort: 8080 }],
            resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } },
          },
        ],
      },
    });
    expect(pod.spec).toMatchObject({
      enableServiceLinks: true,
      containers: [
        {
          ports: [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }],
          resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } },
        },
      ],
    });
  });
});

describe('workload defaults', () => {
  it('defaults Deployments', () => {
    const deployment = defaulted({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta('web'),
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
        },
      },
    });
    expect(deployment.spec).toEqual({
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: defaultedPodSpec },
      replicas: 1,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    });
  });

  it('leaves Recreate deployments without rollingUpdate and keeps replicas 0', () => {
    const deployment = defaulted({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta('web'),
      spec: { replicas: 0, strategy: { type: 'Recreate' }, template: { spec: { containers: [] } } },
    });
    expect(deployment.spec).toMatchObject({ replicas: 0, strategy: { type: 'Recreate' } });
    expect((deployment.spec as { strategy: object }).strategy).not.toHaveProperty('rollingUpdate');
  });

  it('defaults ReplicaSets', () => {
    const rs = defaulted({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: meta('web-1'),
      spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
    });
    expect(rs.spec).toEqual({ template: { spec: defaultedPodSpec }, replicas: 1 });
  });

  it('defaults Jobs, then generates their selector from the uid', () => {
    const job = defaulted({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { ...meta('migrate'), uid: 'abc-123' },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'nginx:1.27' }] } },
      },
    });
    expect(job.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      manualSelector: false,
    });
    // Pod templates of Jobs are defaulted like any other; only validation insists on Never/OnFailure.
    expect((job.spec as { template: { spec: object } }).template.spec).toEqual({
      ...defaultedPodSpec,
      restartPolicy: 'Never',
    });
    defaultJobSelector(job);
    const labels = {
      'batch.kubernetes.io/controller-uid': 'abc-123',
      'batch.kubernetes.io/job-name': 'migrate',
      'controller-uid': 'abc-123',
      'job-name': 'migrate',
    };
    expect(job.spec).toMatchObject({
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'abc-123' } },
      template: { metadata: { labels } },
    });
    expect(job.metadata.labels).toEqual(labels);
  });

  it('keeps user labels and manual selectors', () => {
    const job: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { ...meta('j'), uid: 'u' },
      spec: {
        manualSelector: true,
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } } },
      },
    };
    defaultJobSelector(job);
    expect(job.spec).toEqual({
      manualSelector: true,
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } } },
    });
    const labelled = defaulted({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { ...meta('j'), uid: 'u' },
      spec: { template: { metadata: { labels: { app: 'x' } }, spec: { containers: [] } } },
    });
    expect(labelled.metadata.labels).toEqual({ app: 'x' });
    defaultJobSelector(labelled);
    expect(labelled.metadata.labels).toEqual({ app: 'x' });
  });

  it('sizes backoffLimit for per-index limits and picks Failed replacement with a failure policy', () => {
    const job = defaulted({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: meta('j'),
      spec: {
        completions: 3,
        completionMode: 'Indexed',
        backoffLimitPerIndex: 1,
        podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
        template: { spec: { containers: [] } },
      },
    });
    expect(job.spec).toMatchObject({
      parallelism: 1,
      backoffLimit: 2147483647,
      podReplacementPolicy: 'Failed',
      podFailurePolicy: { rules: [{ onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] },
    });
    expect(job.spec).not.toHaveProperty('completions', 1);
  });

  it('defaults CronJobs and the pod template of their job template only', () => {
    const cronJob = defaulted({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: meta('nightly'),
      spec: {
        schedule: '@daily',
        jobTemplate: {
          spec: {
            template: {
              spec: { restartPolicy: 'OnFailure', containers: [{ name: 'app', image: 'nginx:1.27' }] },
            },
          },
        },
      },
    });
    expect(cronJob.spec).toEqual({
      schedule: '@daily',
      jobTemplate: { spec: { template: { spec: { ...defaultedPodSpec, restartPolicy: 'OnFailure' } } } },
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
  });
});

describe('storage, namespace and secret defaults', () => {
  it('defaults claims and volumes', () => {
    const pvc = defaulted({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: meta('data'),
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    expect(pvc.spec).toMatchObject({ volumeMode: 'Filesystem' });
    expect(pvc.status).toEqual({ phase: 'Pending' });
    const pv = defaulted({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
    });
    expect(pv.spec).toMatchObject({
      persistentVolumeReclaimPolicy: 'Retain',
      volumeMode: 'Filesystem',
      hostPath: { path: '/data', type: '' },
    });
    expect(pv.status).toEqual({ phase: 'Pending', lastPhaseTransitionTime: '2025-05-01T10:00:00Z' });
  });

  it('defaults StorageClasses', () => {
    const sc = defaulted({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast' },
      provisioner: 'x.io/y',
    });
    expect(sc).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    const kept = defaulted({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'keep' },
      provisioner: 'x.io/y',
      reclaimPolicy: 'Retain',
      volumeBindingMode: 'WaitForFirstConsumer',
    });
    expect(kept).toMatchObject({ reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' });
  });

  it('labels namespaces with their name and adds the kubernetes finalizer', () => {
    const ns = defaulted({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'x' } },
    });
    expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-a' });
    expect(ns.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(ns.status).toEqual({ phase: 'Active' });
    const extra = defaulted({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'b' },
      spec: { finalizers: ['example.com/x'] },
    });
    expect(extra.spec).toEqual({ finalizers: ['example.com/x', 'kubernetes'] });
  });

  it('keeps namespace finalizers and status on update', () => {
    const old: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n' },
      spec: { finalizers: [] },
      status: { phase: 'Terminating' },
    };
    const next = defaulted(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', labels: { a: 'b' } } },
      context({ old }),
    );
    expect(next.spec).toEqual({ finalizers: [] });
    expect(next.status).toEqual({ phase: 'Terminating' });
    expect(next.metadata.labels).toEqual({ a: 'b', 'kubernetes.io/metadata.name': 'n' });
  });

  it('makes Secrets Opaque and leaves ConfigMaps, Ingresses and Leases alone', () => {
    expect(defaulted({ apiVersion: 'v1', kind: 'Secret', metadata: meta('s') })).toMatchObject({
      type: 'Opaque',
    });
    expect(
      defaulted({ apiVersion: 'v1', kind: 'Secret', metadata: meta('s'), type: 'kubernetes.io/tls' }),
    ).toMatchObject({
      type: 'kubernetes.io/tls',
    });
    for (const object of [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('c'), data: { a: 'b' } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: meta('i'), spec: { rules: [] } },
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta('l'), spec: {} },
    ]) {
      expect(defaulted(object)).toEqual(object);
    }
  });
});

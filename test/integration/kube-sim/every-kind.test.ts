/**
 * Create, get, list, update, patch, dry-run and delete for every resource type kube-sim serves,
 * through client-node's generic KubernetesObjectApi (which finds each type by discovery, as
 * longshore's release engine will).
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCE_TYPES, type ResourceType } from '../../../infra/kube-sim/resources.ts';
import { typeLabel } from '../../helpers/kind-fixtures.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';

const ns = 'every';
const podSpec = { containers: [{ name: 'c', image: 'busybox:1.36' }] };

/** A minimal valid object of each kind (by `group/Kind` for a kind two groups serve). */
const SAMPLES: Record<string, Record<string, unknown>> = {
  ConfigMap: { data: { a: '1' } },
  Event: {
    involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
    reason: 'R',
    message: 'm',
    type: 'Normal',
  },
  'events.k8s.io/Event': {
    eventTime: '2026-01-02T03:04:05.000000Z',
    reportingController: 'example.com/sample',
    reportingInstance: 'sample-0',
    action: 'Sample',
    reason: 'R',
    regarding: { kind: 'Pod', name: 'p', namespace: ns },
    note: 'm',
    type: 'Normal',
  },
  Namespace: {},
  PersistentVolumeClaim: {
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  },
  PersistentVolume: {
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } },
  },
  Pod: { spec: podSpec },
  Secret: { data: { a: 'YQ==' } },
  ServiceAccount: {},
  Service: { spec: { ports: [{ port: 80 }] } },
  Deployment: {
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: podSpec },
    },
  },
  ReplicaSet: {
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: podSpec },
    },
  },
  CronJob: {
    spec: {
      schedule: '0 0 1 1 *',
      jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } },
    },
  },
  Job: { spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } },
  Lease: { spec: { holderIdentity: 'x' } },
  Ingress: { spec: { rules: [{ host: 'a.example.com' }] } },
  StorageClass: { provisioner: 'example.com/p' },
  CustomResourceDefinition: {
    spec: {
      group: 'every.example.com',
      names: { plural: 'samples', kind: 'Sample' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } },
        },
      ],
    },
  },

  Node: { spec: { podCIDR: '10.244.9.0/24' } },
  Endpoints: { subsets: [{ addresses: [{ ip: '10.244.0.9' }], ports: [{ port: 80 }] }] },
  StatefulSet: {
    spec: {
      serviceName: 's',
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: podSpec },
    },
  },
  DaemonSet: {
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: podSpec },
    },
  },
  ControllerRevision: { revision: 1, data: { spec: { template: { $patch: 'replace' } } } },
  EndpointSlice: { addressType: 'IPv4', endpoints: [{ addresses: ['10.244.0.9'] }], ports: [{ port: 80 }] },
  HorizontalPodAutoscaler: {
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' }, maxReplicas: 2 },
  },
  PodDisruptionBudget: { spec: { minAvailable: 1 } },
  IngressClass: { spec: { controller: 'example.com/ingress' } },
  Role: { rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] },
  ClusterRole: { rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] },
  RoleBinding: {
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'sample-role' },
    subjects: [{ kind: 'ServiceAccount', name: 'default' }],
  },
  ClusterRoleBinding: {
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'readers' }],
  },
};

/** Kinds whose names are fixed by their content (a CRD is named `<plural>.<group>`). */
const NAMES: Record<string, string> = { CustomResourceDefinition: 'samples.every.example.com' };
/** The stored kinds; the review kinds (SelfSubjectAccessReview, …) are create-only (rbac.test.ts). */
const STORED_TYPES = RESOURCE_TYPES.filter((t) => t.verbs.includes('get'));
const sampleKey = (t: ResourceType) => (`${t.group}/${t.kind}` in SAMPLES ? `${t.group}/${t.kind}` : t.kind);

describe('every resource type through KubernetesObjectApi', () => {
  let c: SimClients;

  beforeAll(async () => {
    // API machinery only: no workload controller writes in the background.
    c = await startSimWithClients({ controllers: false });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  it('has a sample for every served type', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(STORED_TYPES.map(sampleKey).sort());
  });

  it.each(STORED_TYPES.map((t) => [sampleKey(t), t] as const))(
    '%s: create, read, list, replace, patch, dry-run, delete',
    async (key, type) => {
      const kind = type.kind;
      const label = typeLabel(type);
      const apiVersion = type.group ? `${type.group}/${type.version}` : type.version;
      const name = NAMES[kind] ?? `sample-${label}`;
      const metadata = {
        name,
        ...(type.namespaced ? { namespace: ns } : {}),
        labels: { kind: label },
      };
      const spec = { apiVersion, kind, metadata, ...SAMPLES[key] } as k8s.KubernetesObject;

      const created = await c.objects.create(spec);
      expect(created.metadata?.uid).toBeTruthy();
      await c.sim.settle();
      const read = await c.objects.read({
        apiVersion,
        kind,
        metadata: { name, ...(type.namespaced ? { namespace: ns } : {}) },
      });
      // A CRD's controllers write its status (NamesAccepted, Established) right after create.
      if (kind === 'CustomResourceDefinition') expect(read.metadata?.uid).toBe(created.metadata?.uid);
      else expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
      const listed = await c.objects.list(
        apiVersion,
        kind,
        type.namespaced ? ns : undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        `kind=${label}`,
      );
      expect(listed.items.map((i) => i.metadata?.name)).toEqual([name]);

      const replaced = await c.objects.replace({
        ...read,
        metadata: { ...read.metadata, annotations: { step: 'replace' } },
      });
      expect(replaced.metadata?.annotations).toEqual({ step: 'replace' });
      const patched = await c.objects.patch(
        {
          apiVersion,
          kind,
          metadata: { name, ...(type.namespaced ? { namespace: ns } : {}), annotations: { step: 'patch' } },
        },
        undefined,
        undefined,
        undefined,
        undefined,
        k8s.PatchStrategy.MergePatch,
      );
      expect(patched.metadata?.annotations).toEqual({ step: 'patch' });

      const rv = c.sim.store.currentRv;
      await c.objects.patch(
        {
          apiVersion,
          kind,
          metadata: { name, ...(type.namespaced ? { namespace: ns } : {}), annotations: { step: 'dry' } },
        },
        undefined,
        'All',
        undefined,
        undefined,
        k8s.PatchStrategy.MergePatch,
      );
      expect(c.sim.store.currentRv).toBe(rv);

      await c.objects.delete({
        apiVersion,
        kind,
        metadata: { name, ...(type.namespaced ? { namespace: ns } : {}) },
      });
      await c.sim.settle();
      const after = await c.objects.list(
        apiVersion,
        kind,
        type.namespaced ? ns : undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        `kind=${label}`,
      );
      expect(after.items).toEqual([]);
    },
  );
});

/**
 * One valid object of every kind kube-sim serves, and the edge cases the API accepts (replicas 0,
 * the largest int32s, optional fields left out, empty maps): the settle and fuzz tests run over
 * RESOURCE_TYPES with these, so a kind added to resources.ts needs an entry here.
 * Bodies leave out apiVersion, kind and metadata.name/namespace: objectFor adds them.
 */
import { customVersionOf } from '../../infra/kube-sim/crd/serving.ts';
import { groupVersion, RESOURCE_TYPES, type ResourceType } from '../../infra/kube-sim/resources.ts';

export type Body = Record<string, unknown>;

export interface KindFixture {
  /** A typical object: the fuzz test mistypes its leaves. */
  valid: Body;
  /** Accepted objects at the edges of what the API takes. */
  edges: Body[];
}

const INT32_MAX = 2147483647;
const podSpec = () => ({ containers: [{ name: 'c', image: 'busybox:1.36' }] });
const template = (labels: Record<string, string>, spec: Body = podSpec()) => ({ metadata: { labels }, spec });

/**
 * By kind, or by `group/Kind` for a kind two groups serve (events.k8s.io/v1 Event beside core/v1
 * Event); a function of the namespace the objects go in (an Event names its object's).
 */
export const KIND_FIXTURES: Record<string, (namespace: string) => KindFixture> = {
  ConfigMap: () => ({
    valid: { data: { a: '1', 'b.txt': 'text' }, binaryData: { bin: 'AAEC' } },
    edges: [{}, { data: {} }, { data: { empty: '' } }, { immutable: true, data: { a: 'b' } }],
  }),
  Event: (namespace) => ({
    valid: {
      involvedObject: { kind: 'Pod', name: 'p', namespace, apiVersion: 'v1' },
      reason: 'Started',
      message: 'started',
      type: 'Normal',
      count: 1,
    },
    edges: [{ involvedObject: { kind: 'Pod', name: 'p', namespace }, count: INT32_MAX, type: 'Warning' }],
  }),
  // The strict events.k8s.io/v1 create rules (pkg/apis/core/validation/events.go): eventTime,
  // reportingController, reportingInstance, action and reason set; the deprecated fields unset.
  'events.k8s.io/Event': (namespace) => ({
    valid: {
      eventTime: '2026-01-02T03:04:05.000001Z',
      reportingController: 'example.com/operator',
      reportingInstance: 'operator-0',
      action: 'Reconcile',
      reason: 'Synced',
      regarding: { kind: 'Pod', name: 'p', namespace, apiVersion: 'v1' },
      note: 'synced',
      type: 'Normal',
    },
    edges: [
      {
        eventTime: '2026-01-02T03:04:05.000000Z',
        series: { count: INT32_MAX, lastObservedTime: '2026-01-02T03:09:05.000000Z' },
        reportingController: 'kubelet',
        reportingInstance: 'i'.repeat(128),
        action: 'a'.repeat(128),
        reason: 'r'.repeat(128),
        regarding: { kind: 'Pod', name: 'p', namespace },
        related: { kind: 'Node', name: 'n' },
        note: 'n'.repeat(1024),
        type: 'Warning',
      },
    ],
  }),
  Namespace: () => ({
    valid: { metadata: { labels: { team: 'a' } } },
    edges: [{}, { spec: { finalizers: [] } }],
  }),
  PersistentVolumeClaim: () => ({
    valid: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    edges: [
      // No class: nothing provisions it and it waits for a matching volume.
      {
        spec: {
          accessModes: ['ReadWriteMany'],
          storageClassName: '',
          resources: { requests: { storage: '1Ei' } },
        },
      },
      {
        spec: {
          accessModes: ['ReadOnlyMany'],
          volumeMode: 'Block',
          resources: { requests: { storage: '1n' } },
        },
      },
      // A class that does not exist: it stays Pending.
      {
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'missing',
          resources: { requests: { storage: '1Gi' } },
        },
      },
      {
        spec: {
          accessModes: ['ReadWriteOnce'],
          selector: { matchLabels: { none: 'none' } },
          resources: { requests: { storage: '1Gi' } },
        },
      },
    ],
  }),
  PersistentVolume: () => ({
    valid: {
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } },
    },
    edges: [
      {
        spec: {
          capacity: { storage: '8Ei' },
          accessModes: ['ReadWriteMany'],
          persistentVolumeReclaimPolicy: 'Delete',
          hostPath: { path: '/tmp/huge' },
        },
      },
    ],
  }),
  Pod: () => ({
    valid: {
      metadata: { labels: { app: 'p' } },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'busybox:1.36',
            ports: [{ containerPort: 8080 }],
            env: [{ name: 'A', value: '1' }],
            resources: { requests: { cpu: '100m', memory: '64Mi' } },
          },
        ],
        terminationGracePeriodSeconds: 30,
      },
    },
    edges: [
      { spec: { ...podSpec(), terminationGracePeriodSeconds: 0, activeDeadlineSeconds: INT32_MAX } },
      { spec: { ...podSpec(), restartPolicy: 'Never', enableServiceLinks: false } },
      // Pods that cannot start: a missing claim, a missing ConfigMap key, another node, a gate.
      {
        spec: {
          ...podSpec(),
          volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'missing' } }],
        },
      },
      {
        spec: {
          containers: [
            {
              name: 'c',
              image: 'busybox:1.36',
              env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'missing', key: 'k' } } }],
            },
          ],
        },
      },
      { spec: { ...podSpec(), nodeName: 'elsewhere' } },
      { spec: { ...podSpec(), schedulingGates: [{ name: 'example.com/gate' }] } },
    ],
  }),
  Secret: () => ({
    valid: { type: 'Opaque', data: { password: 'cGFzcw==' }, stringData: { user: 'admin' } },
    edges: [{}, { data: {} }, { immutable: true, data: { a: '' } }],
  }),
  ServiceAccount: () => ({
    valid: { automountServiceAccountToken: true },
    edges: [{}, { automountServiceAccountToken: false, secrets: [] }],
  }),
  Service: () => ({
    valid: { spec: { selector: { app: 'p' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
    edges: [
      { spec: { ports: [{ port: 65535, targetPort: 1 }] } },
      { spec: { clusterIP: 'None', selector: { app: 'none' }, ports: [{ port: 80 }] } },
      { spec: { type: 'NodePort', ports: [{ port: 80 }] } },
      { spec: { type: 'ExternalName', externalName: 'example.com' } },
    ],
  }),
  Deployment: () => ({
    valid: {
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'd' } },
        template: template({ app: 'd' }),
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
      },
    },
    edges: [
      {
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'zero' } },
          template: template({ app: 'zero' }),
        },
      },
      {
        spec: {
          replicas: 1,
          paused: true,
          minReadySeconds: INT32_MAX - 1,
          progressDeadlineSeconds: INT32_MAX,
          revisionHistoryLimit: 0,
          selector: { matchLabels: { app: 'edge' } },
          template: template({ app: 'edge' }),
          strategy: { type: 'Recreate' },
        },
      },
      {
        spec: {
          selector: { matchLabels: { app: 'surge' } },
          template: template({ app: 'surge' }),
          strategy: { rollingUpdate: { maxSurge: '100%', maxUnavailable: 0 } },
        },
      },
      // Two Deployments over the same Pods: owner references keep them from fighting.
      {
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'same' } },
          template: template({ app: 'same' }),
        },
      },
      {
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'same' } },
          template: template({ app: 'same' }),
        },
      },
    ],
  }),
  ReplicaSet: () => ({
    valid: {
      spec: { replicas: 1, selector: { matchLabels: { app: 'rs' } }, template: template({ app: 'rs' }) },
    },
    edges: [
      {
        spec: { replicas: 0, selector: { matchLabels: { app: 'rs0' } }, template: template({ app: 'rs0' }) },
      },
      {
        spec: {
          minReadySeconds: INT32_MAX,
          selector: { matchLabels: { app: 'rsmin' } },
          template: template({ app: 'rsmin' }),
        },
      },
    ],
  }),
  CronJob: () => ({
    valid: {
      spec: {
        // Once a year: a run firing mid-test would move the resourceVersion the settle test watches.
        schedule: '0 0 1 1 *',
        jobTemplate: { spec: { template: { spec: { ...podSpec(), restartPolicy: 'Never' } } } },
      },
    },
    edges: [
      {
        spec: {
          // February 30th: a schedule that never comes.
          schedule: '0 0 30 2 *',
          suspend: true,
          startingDeadlineSeconds: 0,
          successfulJobsHistoryLimit: 0,
          failedJobsHistoryLimit: 0,
          jobTemplate: { spec: { template: { spec: { ...podSpec(), restartPolicy: 'OnFailure' } } } },
        },
      },
    ],
  }),
  Job: () => ({
    valid: { spec: { template: { spec: { ...podSpec(), restartPolicy: 'Never' } } } },
    edges: [
      { spec: { parallelism: 0, template: { spec: { ...podSpec(), restartPolicy: 'Never' } } } },
      { spec: { suspend: true, template: { spec: { ...podSpec(), restartPolicy: 'Never' } } } },
      {
        spec: {
          backoffLimit: 0,
          activeDeadlineSeconds: INT32_MAX,
          completions: 3,
          parallelism: 3,
          template: { spec: { ...podSpec(), restartPolicy: 'OnFailure' } },
        },
      },
    ],
  }),
  Lease: () => ({
    valid: { spec: { holderIdentity: 'x', leaseDurationSeconds: 15 } },
    edges: [{}, { spec: { leaseDurationSeconds: INT32_MAX, leaseTransitions: INT32_MAX } }],
  }),
  Ingress: () => ({
    valid: {
      spec: {
        rules: [
          {
            host: 'a.example.com',
            http: {
              paths: [
                { path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } },
              ],
            },
          },
        ],
      },
    },
    edges: [
      { spec: { defaultBackend: { service: { name: 's', port: { name: 'http' } } } } },
      { spec: { rules: [{}] } },
    ],
  }),
  StorageClass: () => ({
    valid: { provisioner: 'example.com/p', reclaimPolicy: 'Delete' },
    edges: [
      { provisioner: 'example.com/p', volumeBindingMode: 'WaitForFirstConsumer', reclaimPolicy: 'Retain' },
    ],
  }),
  // Kinds of kube-sim part 3 (issue 16).
  CustomResourceDefinition: () => ({
    valid: {
      spec: {
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget', listKind: 'WidgetList', singular: 'widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      size: { type: 'integer', minimum: 0, default: 1 },
                      tier: { type: 'string' },
                    },
                  },
                  status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
            subresources: { status: {} },
            additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
          },
        ],
      },
    },
    edges: [
      {
        spec: {
          scope: 'Cluster',
          names: { plural: 'widgets', kind: 'Widget' },
          versions: [
            {
              name: 'v1alpha1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      },
    ],
  }),
  Node: () => ({
    valid: {
      metadata: { labels: { 'kubernetes.io/hostname': 'fixture' } },
      spec: { podCIDR: '10.244.9.0/24' },
    },
    // Unschedulable and tainted: the scheduler and DaemonSets must leave it alone without looping.
    edges: [{}, { spec: { unschedulable: true, taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] } }],
  }),
  Endpoints: () => ({
    valid: { subsets: [{ addresses: [{ ip: '10.244.0.9' }], ports: [{ name: 'http', port: 80 }] }] },
    edges: [
      {},
      { subsets: [] },
      { subsets: [{ notReadyAddresses: [{ ip: '10.244.0.10' }], ports: [{ port: 65535 }] }] },
    ],
  }),
  StatefulSet: () => ({
    valid: {
      spec: {
        replicas: 2,
        serviceName: 's',
        selector: { matchLabels: { sts: 'a' } },
        template: template({ sts: 'a' }),
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    },
    edges: [
      {
        spec: {
          replicas: 0,
          serviceName: '',
          selector: { matchLabels: { sts: 'b' } },
          template: template({ sts: 'b' }),
        },
      },
      {
        spec: {
          replicas: 3,
          podManagementPolicy: 'Parallel',
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: INT32_MAX } },
          selector: { matchLabels: { sts: 'c' } },
          // An image that never pulls: the set must wait, not loop.
          template: template({ sts: 'c' }, { containers: [{ name: 'c', image: 'fail.invalid/never:1' }] }),
        },
      },
    ],
  }),
  DaemonSet: () => ({
    valid: { spec: { selector: { matchLabels: { ds: 'a' } }, template: template({ ds: 'a' }) } },
    edges: [
      {
        spec: {
          selector: { matchLabels: { ds: 'b' } },
          // Matches no Node: desired 0.
          template: template({ ds: 'b' }, { ...podSpec(), nodeSelector: { nowhere: 'true' } }),
          updateStrategy: { type: 'OnDelete' },
        },
      },
    ],
  }),
  ControllerRevision: () => ({
    valid: { revision: 1, data: { spec: { template: { $patch: 'replace' } } } },
    edges: [{ revision: 0 }, { revision: Number.MAX_SAFE_INTEGER }],
  }),
  EndpointSlice: () => ({
    valid: {
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.244.0.9'] }],
      ports: [{ name: 'http', port: 80 }],
    },
    edges: [
      { addressType: 'IPv6', endpoints: [] },
      { addressType: 'FQDN', endpoints: [{ addresses: ['a.example.com'] }] },
    ],
  }),
  HorizontalPodAutoscaler: () => ({
    valid: {
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'missing' },
        minReplicas: 1,
        maxReplicas: 3,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
          },
        ],
      },
    },
    edges: [
      { spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: INT32_MAX } },
      {
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'y' },
          minReplicas: 5,
          maxReplicas: 5,
        },
      },
    ],
  }),
  PodDisruptionBudget: () => ({
    valid: { spec: { minAvailable: 1, selector: { matchLabels: { app: 'a' } } } },
    edges: [{ spec: { maxUnavailable: '100%' } }, { spec: { minAvailable: '0%', selector: {} } }],
  }),
  IngressClass: () => ({
    valid: { spec: { controller: 'example.com/ingress' } },
    edges: [
      {
        spec: {
          controller: 'example.com/other',
          parameters: { kind: 'Params', name: 'p', scope: 'Cluster' },
        },
      },
    ],
  }),
  Role: () => ({
    valid: {
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'], resourceNames: ['a'] }],
    },
    edges: [{}, { rules: [] }, { rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }],
  }),
  ClusterRole: () => ({
    valid: { rules: [{ nonResourceURLs: ['/healthz', '/metrics'], verbs: ['get'] }] },
    edges: [
      {},
      // Aggregated: stored and validated; nothing computes the rules, so nothing loops on them.
      { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate': 'true' } }] } },
    ],
  }),
  RoleBinding: (namespace) => ({
    valid: {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'missing' },
      subjects: [{ kind: 'ServiceAccount', name: 'default', namespace }],
    },
    edges: [
      { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } },
      {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' }],
      },
    ],
  }),
  ClusterRoleBinding: () => ({
    valid: {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'readers' }],
    },
    edges: [{ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'missing' } }],
  }),
  // The review kinds are answered, never stored (create only).
  SelfSubjectReview: () => ({ valid: {}, edges: [{ spec: {} }] }),
  SelfSubjectAccessReview: (namespace) => ({
    valid: { spec: { resourceAttributes: { namespace, verb: 'get', resource: 'pods' } } },
    edges: [{ spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } } }],
  }),
  LocalSubjectAccessReview: (namespace) => ({
    valid: { spec: { user: 'jane', resourceAttributes: { namespace, verb: 'list', resource: 'secrets' } } },
    edges: [
      { spec: { groups: ['readers'], resourceAttributes: { namespace, verb: 'get', resource: 'pods' } } },
    ],
  }),
  SelfSubjectRulesReview: (namespace) => ({ valid: { spec: { namespace } }, edges: [] }),
  SubjectAccessReview: () => ({
    valid: { spec: { user: 'jane', resourceAttributes: { verb: 'list', resource: 'secrets' } } },
    edges: [{ spec: { user: 'system:anonymous', nonResourceAttributes: { path: '/version', verb: 'get' } } }],
  }),
};

/** The fixture of a kind, or an error telling whoever added the kind to add one. */
/** The KIND_FIXTURES key of a type: `group/Kind` where the kind is shared, else the kind. */
export function fixtureKey(type: { group: string; kind: string }): string {
  const qualified = `${type.group}/${type.kind}`;
  return qualified in KIND_FIXTURES ? qualified : type.kind;
}

/**
 * A lower-case name part for objects of `type`, told apart from another group's kind of the same
 * name (`event`, `event-events-k8s-io`): such types may share storage, so names must not collide.
 */
export function typeLabel(type: { group: string; kind: string }): string {
  return fixtureKey(type)
    .toLowerCase()
    .replace(/^(.*)\/(.*)$/, '$2-$1')
    .replace(/[^a-z0-9-]/g, '-');
}

export function fixtureFor(type: { group: string; kind: string }, namespace: string): KindFixture {
  const key = fixtureKey(type);
  const fixture = KIND_FIXTURES[key]?.(namespace);
  if (!fixture) {
    throw new Error(
      `no fixture for kind ${key}: add a valid object and its edge cases to KIND_FIXTURES in test/helpers/kind-fixtures.ts`,
    );
  }
  return fixture;
}

/**
 * Kinds whose name is made of their spec: a CustomResourceDefinition is named `<plural>.<group>`,
 * so each object gets a group of its own (`<name>.example.com`) and the name that goes with it.
 */
const NAMED_BY_SPEC: Record<string, (object: Body, name: string) => void> = {
  CustomResourceDefinition: (object, name) => {
    const spec = (object.spec ?? {}) as Body;
    const names = (spec.names ?? {}) as Body;
    spec.group = `${name}.example.com`;
    (object.metadata as Body).name =
      `${typeof names.plural === 'string' ? names.plural : 'widgets'}.${name}.example.com`;
    object.spec = spec;
  },
};

/** A fixture body as a whole object of `type` named `name` (in `namespace` if the kind is namespaced). */
export function objectFor(type: ResourceType, name: string, namespace: string, body: Body): Body {
  const metadata: Body = { ...((body.metadata as Body | undefined) ?? {}), name };
  if (type.namespaced) metadata.namespace = namespace;
  const object = { ...structuredClone(body), apiVersion: groupVersion(type), kind: type.kind, metadata };
  NAMED_BY_SPEC[type.kind]?.(object, name);
  return object;
}

/**
 * The built-in kinds: RESOURCE_TYPES also holds the types of CustomResourceDefinitions a test
 * established (their objects are the CRD tests' subject), and grows while a test runs.
 */
export function builtInTypes(): ResourceType[] {
  return RESOURCE_TYPES.filter((t) => !customVersionOf(t));
}

/** The collection URL path of `type` (in `namespace` if namespaced). */
export function collectionPath(type: ResourceType, namespace: string): string {
  const prefix = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  return type.namespaced ? `${prefix}/namespaces/${namespace}/${type.plural}` : `${prefix}/${type.plural}`;
}

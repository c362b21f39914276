/**
 * The resource types kube-sim serves, as discovery describes them. Everything else (routing,
 * discovery documents, OpenAPI, validation) looks types up here.
 */
import { eventFromEventsV1, eventToEventsV1 } from './store/events-v1-view.ts';
import type { KubeObject } from './types.ts';

export interface SubresourceType {
  name: 'status' | 'scale' | 'log' | 'finalize' | 'exec' | 'attach' | 'token';
  /** Kind of the subresource's body, when it is not the parent's own kind (scale → autoscaling/v1 Scale). */
  kind?: string;
  group?: string;
  version?: string;
  verbs: string[];
  /** A connect subresource (exec, attach): a stream, not an object; OpenAPI's `connect` action. */
  connect?: boolean;
}

/**
 * A type served as a view of another type's objects: one storage, two API shapes, as upstream's
 * cohabitating resources (events in core and events.k8s.io share one etcd prefix and one
 * resourceVersion sequence). The store keeps the objects in the stored type's shape and converts
 * at its boundary (store/object-store.ts), so everything above it works in the view's shape.
 */
export interface ResourceView {
  /** The stored type (its version and kind are the storage version's, as discovery hashes it). */
  of: { group: string; version: string; kind: string; plural: string };
  /** The stored object as the view shows it (apiVersion and kind the view's). */
  toView(stored: KubeObject): KubeObject;
  /** An object of the view as it is stored. */
  fromView(view: KubeObject): KubeObject;
}

export interface ResourceType {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: SubresourceType[];
  /** Set when the type's objects are another type's, converted (see ResourceView). */
  view?: ResourceView;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS: SubresourceType = { name: 'status', verbs: ['get', 'patch', 'update'] };
const SCALE: SubresourceType = {
  name: 'scale',
  kind: 'Scale',
  group: 'autoscaling',
  version: 'v1',
  verbs: ['get', 'patch', 'update'],
};

function type(
  group: string,
  version: string,
  kind: string,
  plural: string,
  options: {
    namespaced?: boolean;
    shortNames?: string[];
    categories?: string[];
    verbs?: string[];
    subresources?: SubresourceType[];
    view?: ResourceView;
  } = {},
): ResourceType {
  return {
    group,
    version,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced: options.namespaced ?? true,
    shortNames: options.shortNames ?? [],
    categories: options.categories ?? [],
    verbs: options.verbs ?? ALL_VERBS,
    subresources: options.subresources ?? [],
    ...(options.view ? { view: options.view } : {}),
  };
}

export const RESOURCE_TYPES: ResourceType[] = [
  type('', 'v1', 'ConfigMap', 'configmaps', { shortNames: ['cm'] }),
  type('', 'v1', 'Event', 'events', { shortNames: ['ev'] }),
  // The same objects as core/v1 events (pkg/registry/events/rest: upstream serves them with the
  // core event REST storage, pkg/registry/core/event/storage, so short names and verbs match).
  type('events.k8s.io', 'v1', 'Event', 'events', {
    shortNames: ['ev'],
    view: {
      of: { group: '', version: 'v1', kind: 'Event', plural: 'events' },
      toView: eventToEventsV1,
      fromView: eventFromEventsV1,
    },
  }),
  type('', 'v1', 'Namespace', 'namespaces', {
    namespaced: false,
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [STATUS, { name: 'finalize', verbs: ['update'] }],
  }),
  type('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', {
    shortNames: ['pvc'],
    subresources: [STATUS],
  }),
  type('', 'v1', 'PersistentVolume', 'persistentvolumes', {
    namespaced: false,
    shortNames: ['pv'],
    subresources: [STATUS],
  }),
  type('', 'v1', 'Pod', 'pods', {
    shortNames: ['po'],
    categories: ['all'],
    // exec and attach as upstream's discovery lists them (ExecREST/AttachREST: GET and POST,
    // authorized as create and get); served by server/pod-stream.ts.
    subresources: [
      STATUS,
      { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'], connect: true },
      { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'], connect: true },
      { name: 'log', kind: 'Pod', verbs: ['get'] },
    ],
  }),
  type('', 'v1', 'Secret', 'secrets'),
  type('', 'v1', 'ServiceAccount', 'serviceaccounts', {
    shortNames: ['sa'],
    // TokenRequest (auth/reviews.ts), as upstream's discovery lists it.
    subresources: [
      {
        name: 'token',
        kind: 'TokenRequest',
        group: 'authentication.k8s.io',
        version: 'v1',
        verbs: ['create'],
      },
    ],
  }),
  type('', 'v1', 'Service', 'services', {
    shortNames: ['svc'],
    categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [STATUS],
  }),
  type('apps', 'v1', 'Deployment', 'deployments', {
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: [STATUS, SCALE],
  }),
  type('apps', 'v1', 'ReplicaSet', 'replicasets', {
    shortNames: ['rs'],
    categories: ['all'],
    subresources: [STATUS, SCALE],
  }),
  type('batch', 'v1', 'CronJob', 'cronjobs', {
    shortNames: ['cj'],
    categories: ['all'],
    subresources: [STATUS],
  }),
  type('batch', 'v1', 'Job', 'jobs', { categories: ['all'], subresources: [STATUS] }),
  type('coordination.k8s.io', 'v1', 'Lease', 'leases'),
  type('networking.k8s.io', 'v1', 'Ingress', 'ingresses', { shortNames: ['ing'], subresources: [STATUS] }),
  type('storage.k8s.io', 'v1', 'StorageClass', 'storageclasses', { namespaced: false, shortNames: ['sc'] }),
  type('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', {
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: [STATUS],
  }),

  // Workload kinds of issue 16 (pkg/registry/{core/node,core/endpoint,apps/statefulset,
  // apps/daemonset,apps/controllerrevision,discovery/endpointslice}/storage: short names,
  // categories and subresources as kube-apiserver 1.33's discovery lists them).
  type('', 'v1', 'Node', 'nodes', { namespaced: false, shortNames: ['no'], subresources: [STATUS] }),
  type('', 'v1', 'Endpoints', 'endpoints', { shortNames: ['ep'] }),
  type('apps', 'v1', 'StatefulSet', 'statefulsets', {
    shortNames: ['sts'],
    categories: ['all'],
    subresources: [STATUS, SCALE],
  }),
  type('apps', 'v1', 'DaemonSet', 'daemonsets', {
    shortNames: ['ds'],
    categories: ['all'],
    subresources: [STATUS],
  }),
  type('apps', 'v1', 'ControllerRevision', 'controllerrevisions'),
  type('discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices'),
  // As upstream's discovery lists them (pkg/registry/autoscaling, policy, networking storage):
  // autoscaling is served at v2 only (its preferred version; no v1 HPA conversion here).
  type('autoscaling', 'v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', {
    shortNames: ['hpa'],
    categories: ['all'],
    subresources: [STATUS],
  }),
  type('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', {
    shortNames: ['pdb'],
    subresources: [STATUS],
  }),
  type('networking.k8s.io', 'v1', 'IngressClass', 'ingressclasses', { namespaced: false }),
  // RBAC and the review kinds (auth/): the reviews are create-only and never stored.
  type('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', { namespaced: false }),
  type('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', { namespaced: false }),
  type('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings'),
  type('rbac.authorization.k8s.io', 'v1', 'Role', 'roles'),
  type('authentication.k8s.io', 'v1', 'SelfSubjectReview', 'selfsubjectreviews', {
    namespaced: false,
    verbs: ['create'],
  }),
  type('authorization.k8s.io', 'v1', 'LocalSubjectAccessReview', 'localsubjectaccessreviews', {
    verbs: ['create'],
  }),
  type('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', {
    namespaced: false,
    verbs: ['create'],
  }),
  type('authorization.k8s.io', 'v1', 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', {
    namespaced: false,
    verbs: ['create'],
  }),
  type('authorization.k8s.io', 'v1', 'SubjectAccessReview', 'subjectaccessreviews', {
    namespaced: false,
    verbs: ['create'],
  }),
];

export function groupVersion(type: { group: string; version: string }): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** `deployments.apps`, or bare `secrets` for the core group: how upstream names resources in messages. */
export function qualifiedResource(type: ResourceType): string {
  return type.group ? `${type.plural}.${type.group}` : type.plural;
}

export function findByPlural(group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => t.group === group && t.version === version && t.plural === plural);
}

export function findByKind(apiVersion: string, kind: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => groupVersion(t) === apiVersion && t.kind === kind);
}

/** The API group versions served, core first, then groups in name order. */
export function servedGroupVersions(): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const t of RESOURCE_TYPES) seen.set(groupVersion(t), { group: t.group, version: t.version });
  return [...seen.values()].sort((a, b) =>
    a.group === '' ? -1 : b.group === '' ? 1 : a.group.localeCompare(b.group),
  );
}

/** Types added while the server runs (custom resources of CRDs), by the name of what serves them. */
const registered = new Map<string, ResourceType[]>();

/**
 * Serves `types` from now on (crd/serving.ts, for each established CustomResourceDefinition):
 * RESOURCE_TYPES grows in place, so every lookup, discovery and OpenAPI see them.
 */
export function registerResourceTypes(owner: string, types: ResourceType[]): void {
  unregisterResourceTypes(owner);
  registered.set(owner, types);
  RESOURCE_TYPES.push(...types);
}

/** Stops serving what `owner` registered. */
export function unregisterResourceTypes(owner: string): void {
  for (const type of registered.get(owner) ?? []) {
    const i = RESOURCE_TYPES.indexOf(type);
    if (i >= 0) RESOURCE_TYPES.splice(i, 1);
  }
  registered.delete(owner);
}

/**
 * Converts an object of `type` to another served shape of the same storage (a view's stored
 * type, or a view of `type`): what server-side apply needs to compare managers' fields in their
 * own versions. Undefined for an apiVersion no shape of this storage is served in.
 */
export function versionConverter(type: ResourceType): (object: unknown, apiVersion: string) => unknown {
  const storage = type.view?.of ?? type;
  return (object, apiVersion) => {
    if (apiVersion === groupVersion(type)) return object;
    if (!object || typeof object !== 'object' || Array.isArray(object)) return undefined;
    const stored = type.view ? type.view.fromView(object as KubeObject) : (object as KubeObject);
    if (apiVersion === groupVersion(storage)) return stored;
    const view = RESOURCE_TYPES.find(
      (t) =>
        t.view?.of.group === storage.group &&
        t.view.of.plural === storage.plural &&
        groupVersion(t) === apiVersion,
    );
    return view?.view?.toView(stored);
  };
}

/**
 * Component schemas for the OpenAPI v3 documents: enough for `kubectl explain` to find each kind
 * (by `x-kubernetes-group-version-kind`, a list on schemas) and show its top-level fields, with
 * ObjectMeta spelled out. Nested specs are plain objects: kube-sim validates on the server
 * (clients send fieldValidation=Strict once the documents declare it), so clients need no more.
 */

import type { Json } from '../types.ts';
import type { GroupVersionKind } from './discovery-common.ts';

export type JsonObject = { [key: string]: Json };

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const SCHEMA = {
  objectMeta: `${META}.ObjectMeta`,
  listMeta: `${META}.ListMeta`,
  status: `${META}.Status`,
  deleteOptions: `${META}.DeleteOptions`,
  patch: `${META}.Patch`,
  apiResourceList: `${META}.APIResourceList`,
  apiGroupList: `${META}.APIGroupList`,
  apiGroup: `${META}.APIGroup`,
  apiVersions: `${META}.APIVersions`,
} as const;

/** Upstream's component name: `io.k8s.api.<package>.<version>.<Kind>`, core for the '' group. */
export function schemaName({ group, version, kind }: GroupVersionKind): string {
  const pkg = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  return `io.k8s.api.${pkg}.${version}.${kind}`;
}

export function ref(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}

const string = (description: string): JsonObject => ({ type: 'string', description });
const boolean = (description: string): JsonObject => ({ type: 'boolean', description });
const int = (description: string, format = 'int32'): JsonObject => ({ type: 'integer', format, description });
const object = (description: string): JsonObject => ({ type: 'object', description });
const stringMap = (description: string): JsonObject => ({
  type: 'object',
  additionalProperties: { type: 'string', default: '' },
  description,
});
const list = (description: string): JsonObject => ({ type: 'array', items: { type: 'object' }, description });
const strings = (description: string): JsonObject => ({
  type: 'array',
  items: { type: 'string', default: '' },
  description,
});
const embedded = (name: string, description: string): JsonObject => ({
  allOf: [ref(name)],
  default: {},
  description,
});

const TYPE_FIELDS: Record<string, JsonObject> = {
  apiVersion: string('APIVersion defines the versioned schema of this representation of an object.'),
  kind: string('Kind is a string value representing the REST resource this object represents.'),
};

const SPEC_STATUS: Record<string, JsonObject> = {
  spec: object('Spec defines the desired state of the object.'),
  status: object('Status is the most recently observed state of the object. Read-only.'),
};

/**
 * Top-level fields besides apiVersion, kind and metadata, by kind, or by `group/Kind` where two
 * groups share a kind name; kinds not listed have spec and status.
 */
const KIND_FIELDS: Record<string, Record<string, JsonObject>> = {
  ConfigMap: {
    data: stringMap('Data contains the configuration data.'),
    binaryData: {
      type: 'object',
      additionalProperties: { type: 'string', format: 'byte' },
      description: 'BinaryData contains the binary data, base64-encoded.',
    },
    immutable: boolean(
      'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated.',
    ),
  },
  Secret: {
    data: {
      type: 'object',
      additionalProperties: { type: 'string', format: 'byte' },
      description: 'Data contains the secret data, base64-encoded.',
    },
    stringData: stringMap('stringData allows specifying non-binary secret data in string form (write-only).'),
    type: string('Used to facilitate programmatic handling of secret data.'),
    immutable: boolean(
      'Immutable, if set to true, ensures that data stored in the Secret cannot be updated.',
    ),
  },
  Event: {
    involvedObject: object('The object that this event is about.'),
    reason: string(
      'This should be a short, machine understandable string that gives the reason for the transition.',
    ),
    message: string('A human-readable description of the status of this operation.'),
    type: string('Type of this event (Normal, Warning).'),
    count: int('The number of times this event has occurred.'),
    firstTimestamp: string('The time at which the event was first recorded.'),
    lastTimestamp: string('The time at which the most recent occurrence of this event was recorded.'),
    eventTime: string('Time when this Event was first observed.'),
    source: object('The component reporting this event.'),
    reportingComponent: string('Name of the controller that emitted this Event.'),
    reportingInstance: string('ID of the controller instance.'),
    action: string('What action was taken/failed regarding to the Regarding object.'),
    related: object('Optional secondary object for more complex actions.'),
    series: object('Data about the Event series this event represents.'),
  },
  // events.k8s.io/v1 Event (k8s.io/api/events/v1 types.go): the core/v1 Event's fields renamed.
  'events.k8s.io/Event': {
    eventTime: string('eventTime is the time when this Event was first observed. It is required.'),
    series: object(
      "series is data about the Event series this event represents or nil if it's a singleton Event.",
    ),
    reportingController: string(
      'reportingController is the name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`. This field cannot be empty for new Events.',
    ),
    reportingInstance: string(
      'reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`. This field cannot be empty for new Events and it can have at most 128 characters.',
    ),
    action: string(
      'action is what action was taken/failed regarding to the regarding object. It is machine-readable. This field cannot be empty for new Events and it can have at most 128 characters.',
    ),
    reason: string(
      'reason is why the action was taken. It is human-readable. This field cannot be empty for new Events and it can have at most 128 characters.',
    ),
    regarding: object('regarding contains the object this Event is about.'),
    related: object('related is the optional secondary object for more complex actions.'),
    note: string(
      'note is a human-readable description of the status of this operation. Maximal length of the note is 1kB, but libraries should be prepared to handle values up to 64kB.',
    ),
    type: string('type is the type of this event (Normal, Warning), new types could be added in the future.'),
    deprecatedSource: object(
      'deprecatedSource is the deprecated field assuring backward compatibility with core.v1 Event type.',
    ),
    deprecatedFirstTimestamp: string(
      'deprecatedFirstTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
    ),
    deprecatedLastTimestamp: string(
      'deprecatedLastTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
    ),
    deprecatedCount: int(
      'deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event type.',
    ),
  },
  ServiceAccount: {
    secrets: list('Secrets is a list of the secrets in the same namespace that pods may use.'),
    imagePullSecrets: list('ImagePullSecrets is a list of references to secrets for pulling images.'),
    automountServiceAccountToken: boolean(
      'Whether pods running as this service account mount its API token.',
    ),
  },
  Lease: { spec: object('spec contains the specification of the Lease.') },
  StorageClass: {
    provisioner: string('provisioner indicates the type of the provisioner.'),
    parameters: stringMap('parameters holds the parameters for the provisioner that should create volumes.'),
    reclaimPolicy: string('reclaimPolicy controls the reclaimPolicy for dynamically provisioned volumes.'),
    mountOptions: strings('mountOptions controls the mountOptions for dynamically provisioned volumes.'),
    allowVolumeExpansion: boolean(
      'allowVolumeExpansion shows whether the storage class allows volume expand.',
    ),
    volumeBindingMode: string(
      'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.',
    ),
    allowedTopologies: list(
      'allowedTopologies restrict the node topologies where volumes can be provisioned.',
    ),
  },
  Scale: {
    spec: {
      type: 'object',
      description: 'spec defines the behavior of the scale.',
      properties: { replicas: int('replicas is the desired number of instances for the scaled object.') },
    },
    status: {
      type: 'object',
      description: 'status is the current status of the scale. Read-only.',
      properties: {
        replicas: int('replicas is the actual number of observed instances of the scaled object.'),
        selector: string('selector is the label query over pods that should match the replicas count.'),
      },
    },
  },
};

const REQUIRED: Record<string, string[]> = {
  Event: ['metadata', 'involvedObject'],
  'events.k8s.io/Event': ['eventTime'],
  StorageClass: ['provisioner'],
};

/** A kind's schema and its list's, keyed by component name. */
export function kindSchemas(
  { group, version, kind }: GroupVersionKind,
  withList: boolean,
): Record<string, JsonObject> {
  // Rebuilt from its three fields: callers may pass a wider object (a ResourceType).
  const gvk = { group, version, kind };
  const name = schemaName(gvk);
  const qualified = `${group}/${kind}`;
  const required = REQUIRED[qualified] ?? REQUIRED[kind];
  const schemas: Record<string, JsonObject> = {
    [name]: {
      description: `${gvk.kind} as kube-sim serves it: nested fields are checked by the server, not described here.`,
      type: 'object',
      properties: {
        ...TYPE_FIELDS,
        metadata: embedded(SCHEMA.objectMeta, "Standard object's metadata."),
        ...(KIND_FIELDS[qualified] ?? KIND_FIELDS[gvk.kind] ?? SPEC_STATUS),
      },
      ...(required ? { required } : {}),
      'x-kubernetes-group-version-kind': [gvk],
    },
  };
  if (withList) {
    const listKind = { ...gvk, kind: `${gvk.kind}List` };
    schemas[schemaName(listKind)] = {
      description: `${listKind.kind} is a list of ${gvk.kind} objects.`,
      type: 'object',
      properties: {
        ...TYPE_FIELDS,
        items: {
          type: 'array',
          items: embedded(name, `A ${gvk.kind}.`),
          description: `List of ${gvk.kind}.`,
        },
        metadata: embedded(SCHEMA.listMeta, 'Standard list metadata.'),
      },
      required: ['items'],
      'x-kubernetes-group-version-kind': [listKind],
    };
  }
  return schemas;
}

/** The apimachinery schemas every document refers to. */
export function metaSchemas(): Record<string, JsonObject> {
  const metav1 = (kind: string): JsonObject[] => [{ group: '', kind, version: 'v1' }];
  return {
    [SCHEMA.objectMeta]: {
      description: 'ObjectMeta is metadata that all persisted resources must have.',
      type: 'object',
      properties: {
        name: string('Name must be unique within a namespace.'),
        generateName: string('An optional prefix used by the server to generate a unique name.'),
        namespace: string('Namespace defines the space within which each name must be unique.'),
        uid: string('UID is the unique in time and space value for this object. Read-only.'),
        resourceVersion: string(
          'An opaque value that represents the internal version of this object. Read-only.',
        ),
        generation: int(
          'A sequence number representing a specific generation of the desired state.',
          'int64',
        ),
        creationTimestamp: { type: 'string', format: 'date-time', description: 'Creation time. Read-only.' },
        deletionTimestamp: {
          type: 'string',
          format: 'date-time',
          description: 'Time at which this resource will be deleted. Read-only.',
        },
        deletionGracePeriodSeconds: int('Seconds allowed for graceful termination. Read-only.', 'int64'),
        labels: stringMap(
          'Map of string keys and values that can be used to organize and categorize objects.',
        ),
        annotations: stringMap('Unstructured key value map stored with a resource.'),
        ownerReferences: list('List of objects depended by this object.'),
        finalizers: strings('Must be empty before the object is deleted from the registry.'),
        managedFields: list(
          'Maps workflow-id and version to the set of fields that are managed by that workflow.',
        ),
      },
    },
    [SCHEMA.listMeta]: {
      description: 'ListMeta describes metadata that synthetic resources must have.',
      type: 'object',
      properties: {
        resourceVersion: string('String that identifies the server internal version of this object.'),
        continue: string('Set if the user should use this value to continue the list.'),
        remainingItemCount: int('The number of subsequent items in the list.', 'int64'),
      },
    },
    [SCHEMA.status]: {
      description: 'Status is a return value for calls that do not return other objects.',
      type: 'object',
      properties: {
        ...TYPE_FIELDS,
        status: string('Status of the operation: Success or Failure.'),
        message: string('A human-readable description of the status of this operation.'),
        reason: string('A machine-readable description of why this operation is in the Failure status.'),
        details: object('Extended data associated with the reason.'),
        code: int('Suggested HTTP return code for this status.'),
        metadata: embedded(SCHEMA.listMeta, 'Standard list metadata.'),
      },
      'x-kubernetes-group-version-kind': metav1('Status'),
    },
    [SCHEMA.deleteOptions]: {
      description: 'DeleteOptions may be provided when deleting an API object.',
      type: 'object',
      properties: {
        ...TYPE_FIELDS,
        dryRun: strings('When present, indicates that modifications should not be persisted.'),
        gracePeriodSeconds: int('The duration in seconds before the object should be deleted.', 'int64'),
        preconditions: object('Must be fulfilled before a deletion is carried out.'),
        propagationPolicy: string('Whether and how garbage collection will be performed.'),
        orphanDependents: boolean('Deprecated: use propagationPolicy.'),
      },
      'x-kubernetes-group-version-kind': metav1('DeleteOptions'),
    },
    [SCHEMA.patch]: {
      description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
      type: 'object',
    },
    [SCHEMA.apiResourceList]: {
      description: 'APIResourceList lists the resources of a group version.',
      type: 'object',
      properties: {
        ...TYPE_FIELDS,
        groupVersion: string('The group version.'),
        resources: list('The resources.'),
      },
      required: ['groupVersion', 'resources'],
    },
    [SCHEMA.apiGroupList]: {
      description: 'APIGroupList is a list of APIGroup, to allow clients to discover the API at /apis.',
      type: 'object',
      properties: { ...TYPE_FIELDS, groups: list('groups is a list of APIGroup.') },
      required: ['groups'],
    },
    [SCHEMA.apiGroup]: {
      description:
        'APIGroup contains the name, the supported versions, and the preferred version of a group.',
      type: 'object',
      properties: {
        ...TYPE_FIELDS,
        name: string('name is the name of the group.'),
        versions: list('versions are the versions supported in this group.'),
        preferredVersion: object('preferredVersion is the version preferred by the API server.'),
      },
      required: ['name', 'versions'],
    },
    [SCHEMA.apiVersions]: {
      description: 'APIVersions lists the versions that are available at /api.',
      type: 'object',
      properties: {
        ...TYPE_FIELDS,
        versions: strings('versions are the api versions that are available.'),
        serverAddressByClientCIDRs: list(
          'a map of client CIDR to server address that is serving this group.',
        ),
      },
      required: ['versions', 'serverAddressByClientCIDRs'],
    },
  };
}

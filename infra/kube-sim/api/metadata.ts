/**
 * Server-owned metadata: uid, creationTimestamp, generated names, generation, and which parts of
 * an object a write through the main resource or through `/status` may change.
 */
import { randomUUID } from 'node:crypto';
import { isCustomResource } from '../crd/custom-resources.ts';
import type { ResourceType } from '../resources.ts';
import { clone, isPlainObject, type KubeObject } from '../types.ts';

/** Kinds whose metadata.generation tracks spec changes (and which fields count). */
const GENERATION_FIELDS: Record<string, ((o: KubeObject) => unknown)[]> = {
  // apps/v1 Deployment also bumps on annotation changes (rollback annotations, deployment/strategy.go).
  Deployment: [(o) => o.spec, (o) => o.metadata.annotations],
  ReplicaSet: [(o) => o.spec],
  Job: [(o) => o.spec],
  CronJob: [(o) => o.spec],
  Ingress: [(o) => o.spec],
  // apiextensions-apiserver customresourcedefinition/strategy.go: spec changes bump generation.
  CustomResourceDefinition: [(o) => o.spec],

  StatefulSet: [(o) => o.spec],
  DaemonSet: [(o) => o.spec],
};

/**
 * Custom resources: generation starts at 1 and grows on any change outside metadata
 * (apiextensions-apiserver pkg/registry/customresource/strategy.go, copyNonMetadata).
 */
const CUSTOM_RESOURCE_GENERATION = [({ metadata: _m, ...rest }: KubeObject) => rest];
/** With a status subresource, status writes keep the generation (the status strategy's rule). */
const CUSTOM_RESOURCE_GENERATION_WITH_STATUS = [({ metadata: _m, status: _s, ...rest }: KubeObject) => rest];

function generationFields(type: ResourceType): ((o: KubeObject) => unknown)[] | undefined {
  if (GENERATION_FIELDS[type.kind]) return GENERATION_FIELDS[type.kind];
  if (!isCustomResource(type)) return undefined;
  return hasStatusSubresource(type) ? CUSTOM_RESOURCE_GENERATION_WITH_STATUS : CUSTOM_RESOURCE_GENERATION;
}

/** Kinds with a status subresource: the main resource cannot write status, `/status` only status. */
export function hasStatusSubresource(type: ResourceType): boolean {
  return type.subresources.some((s) => s.name === 'status');
}

export function tracksGeneration(kind: string): boolean {
  return kind in GENERATION_FIELDS;
}

/** Upstream's generated-name alphabet (no vowels, no look-alikes): k8s.io/apimachinery/pkg/util/rand. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += ALPHANUMS[Math.floor(Math.random() * ALPHANUMS.length)];
  return `${prefix}${suffix}`;
}

export function timestamp(now = new Date()): string {
  // RFC 3339 with seconds, as metav1.Time serializes.
  return `${now.toISOString().slice(0, 19)}Z`;
}

/** metav1.MicroTime's JSON (RFC3339Micro, micro_time.go): `…T15:04:05.123000Z`. */
export function microTimestamp(now = new Date()): string {
  return `${now.toISOString().slice(0, 23)}000Z`;
}

/** Fills what the server owns on create. */
export function prepareCreate(type: ResourceType, object: KubeObject, now: Date): void {
  object.metadata.uid = randomUUID();
  object.metadata.creationTimestamp = timestamp(now);
  delete object.metadata.deletionTimestamp;
  delete object.metadata.deletionGracePeriodSeconds;
  delete object.metadata.selfLink;
  if (generationFields(type)) object.metadata.generation = 1;
  else delete object.metadata.generation;
  // A kubelet registers its Node with its status (nodeStrategy.PrepareForCreate keeps it).
  if (hasStatusSubresource(type) && type.kind !== 'Namespace' && type.kind !== 'Node') delete object.status;
}

/**
 * Carries server-owned metadata over from the stored object and keeps the parts of the object the
 * write may not change: status for main-resource writes, everything but status for `/status`.
 */
export function prepareUpdate(
  type: ResourceType,
  object: KubeObject,
  old: KubeObject,
  subresource: string | undefined,
): KubeObject {
  let next: KubeObject;
  if (subresource === 'finalize') {
    // PUT namespaces/<name>/finalize changes spec.finalizers and nothing else.
    const finalizers = (object.spec as { finalizers?: string[] } | undefined)?.finalizers;
    next = clone(old);
    next.spec = { ...(next.spec as object), finalizers: finalizers ?? [] };
    next.metadata = {
      ...next.metadata,
      resourceVersion: object.metadata.resourceVersion ?? old.metadata.resourceVersion,
    };
  } else if (subresource === 'status') {
    next = { ...clone(old), status: object.status };
    if (object.status === undefined) delete next.status;
    // metadata may still carry a resourceVersion precondition and managedFields of this write.
    next.metadata = {
      ...next.metadata,
      resourceVersion: object.metadata.resourceVersion ?? old.metadata.resourceVersion,
    };
  } else {
    next = object;
    if (hasStatusSubresource(type)) {
      if (old.status === undefined) delete next.status;
      else next.status = clone(old.status);
    }
  }
  const meta = next.metadata;
  meta.uid = old.metadata.uid;
  meta.creationTimestamp = old.metadata.creationTimestamp;
  meta.name = old.metadata.name;
  if (old.metadata.namespace) meta.namespace = old.metadata.namespace;
  if (old.metadata.deletionTimestamp) {
    meta.deletionTimestamp = old.metadata.deletionTimestamp;
    if (old.metadata.deletionGracePeriodSeconds !== undefined)
      meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
  } else {
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  }
  delete meta.selfLink;
  const fields = generationFields(type);
  if (fields) {
    const changed = fields.some((get) => JSON.stringify(get(next)) !== JSON.stringify(get(old)));
    meta.generation = (old.metadata.generation ?? 1) + (changed ? 1 : 0);
  } else delete meta.generation;
  return next;
}

/** Drops empty metadata maps that JSON clients send as `{}` so equal objects compare equal. */
export function normalize(object: KubeObject): KubeObject {
  const meta = object.metadata;
  for (const key of ['labels', 'annotations'] as const) {
    const value = meta[key];
    if (isPlainObject(value) && Object.keys(value).length === 0) delete meta[key];
  }
  for (const key of ['finalizers', 'ownerReferences', 'managedFields'] as const) {
    const value = meta[key];
    if (Array.isArray(value) && value.length === 0) delete meta[key];
  }
  return object;
}

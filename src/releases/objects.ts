/**
 * Object identity and the labels the engine adds. Every applied object carries
 * `app.kubernetes.io/managed-by=longshore` (what the engine's informers select on) and
 * `longshore.dev/release=<release>` (so an object can be traced back to its release).
 */
import type { ObjectRef, ReleaseObject } from '../storage/types.ts';

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'longshore';
export const RELEASE_LABEL = 'longshore.dev/release';
/** What the engine's informers select on: every object longshore applied, of any release. */
export const MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;

export function refOf(object: ReleaseObject | ObjectRef): ObjectRef {
  if ('metadata' in object) {
    return {
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: object.metadata.name,
      ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    };
  }
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.name,
    ...(object.namespace ? { namespace: object.namespace } : {}),
  };
}

/**
 * Identity across revisions. The group is part of it but not the version: an object moving from
 * `v1beta1` to `v1` is the same object and must not be deleted as "dropped".
 */
export function keyOf(ref: ObjectRef): string {
  const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
  return `${group}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}

/** `apps/v1 Deployment web/web-web`, for messages. */
export function describeRef(ref: ObjectRef): string {
  return `${ref.apiVersion} ${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}

/** A copy of the object with the engine's labels (the caller's object is left untouched). */
export function withReleaseLabels(object: ReleaseObject, release: string): ReleaseObject {
  const copy = structuredClone(object);
  copy.metadata.labels = {
    ...copy.metadata.labels,
    [MANAGED_BY_LABEL]: MANAGED_BY,
    [RELEASE_LABEL]: release,
  };
  return copy;
}

/**
 * `as=PartialObjectMetadata` / `as=PartialObjectMetadataList` answers: the objects' metadata only,
 * as k8s.io/apiserver pkg/endpoints/handlers/response.go (asPartialObjectMetadata,
 * asPartialObjectMetadataList) writes them. Asking for the list form of one object, or the single
 * form of a list, is 406 NotAcceptable there too.
 */
import { statusErrors } from '../errors.ts';
import type { ResourceType } from '../resources.ts';
import type { KubeObject } from '../types.ts';

export function partialObjectMetadata(object: KubeObject): unknown {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

/** Go's name for the served type, as upstream's `%T` shows it in the 406 message. */
const goType = (type: ResourceType, list: boolean) => `*${type.version}.${list ? type.listKind : type.kind}`;

export function partialAnswer(type: ResourceType, body: unknown, form: 'partial' | 'partial-list'): unknown {
  const b = body as KubeObject & { items?: KubeObject[] };
  const isList = Array.isArray(b.items);
  if (form === 'partial' && isList) {
    throw statusErrors.notAcceptable(
      `you requested PartialObjectMetadata, but the requested object is a list (${goType(type, true)})`,
    );
  }
  if (form === 'partial-list' && !isList) {
    throw statusErrors.notAcceptable(
      `you requested PartialObjectMetadataList, but the requested object is not a list (${goType(type, false)})`,
    );
  }
  if (!isList) return partialObjectMetadata(b);
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: 'meta.k8s.io/v1',
    metadata: b.metadata ?? {},
    items: b.items!.map(partialObjectMetadata),
  };
}

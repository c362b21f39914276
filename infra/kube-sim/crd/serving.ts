/**
 * Which custom resources are served: one ResourceType per served version of every established
 * CRD, registered with resources.ts so routing, discovery and OpenAPI see them, plus what the
 * server needs to treat their objects (the version's schema, its subresources). The API service
 * asks `customVersionOf(type)` whether a type is custom.
 */
import {
  groupVersion,
  type ResourceType,
  registerResourceTypes,
  type SubresourceType,
  unregisterResourceTypes,
} from '../resources.ts';
import type { Crd, CrdVersion } from './definition.ts';
import type { JSONSchemaProps } from './schema.ts';

export interface CustomVersion {
  crdName: string;
  version: CrdVersion;
  schema: JSONSchemaProps;
  /** The storage version's name (objects are stored with its apiVersion). */
  storageVersion: string;
}

const CUSTOM = new WeakMap<ResourceType, CustomVersion>();
const ALL_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

export function customVersionOf(type: ResourceType): CustomVersion | undefined {
  return CUSTOM.get(type);
}

/** The ResourceTypes a CRD serves: its served versions, in the order the CRD lists them. */
export function typesOf(crd: Crd): ResourceType[] {
  const { group = '', names = {}, scope, versions = [] } = crd.spec;
  const storageVersion = versions.find((v) => v.storage)?.name ?? versions[0]?.name ?? '';
  const types: ResourceType[] = [];
  for (const version of versions) {
    if (!version.served || !version.name) continue;
    const subresources: SubresourceType[] = [];
    if (version.subresources?.status)
      subresources.push({ name: 'status', verbs: ['get', 'patch', 'update'] });
    if (version.subresources?.scale)
      subresources.push({
        name: 'scale',
        kind: 'Scale',
        group: 'autoscaling',
        version: 'v1',
        verbs: ['get', 'patch', 'update'],
      });
    const type: ResourceType = {
      group,
      version: version.name,
      kind: names.kind ?? '',
      listKind: names.listKind ?? `${names.kind}List`,
      plural: names.plural ?? '',
      singular: names.singular ?? (names.kind ?? '').toLowerCase(),
      namespaced: scope !== 'Cluster',
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      verbs: ALL_VERBS,
      subresources,
    };
    CUSTOM.set(type, {
      crdName: crd.metadata.name ?? '',
      version,
      schema: version.schema?.openAPIV3Schema ?? { type: 'object' },
      storageVersion,
    });
    types.push(type);
  }
  return types;
}

/** Serves (or re-serves, after an update) the CRD's versions. */
export function serveCrd(crd: Crd): ResourceType[] {
  const owner = crd.metadata.name ?? '';
  unregisterResourceTypes(owner);
  const types = typesOf(crd);
  registerResourceTypes(owner, types);
  return types;
}

export function stopServingCrd(name: string): void {
  unregisterResourceTypes(name);
}

export function storageApiVersion(type: ResourceType): string {
  const custom = CUSTOM.get(type);
  return custom ? groupVersion({ group: type.group, version: custom.storageVersion }) : groupVersion(type);
}

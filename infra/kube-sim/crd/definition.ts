/**
 * The CustomResourceDefinition object as kube-sim reads it (apiextensions.k8s.io/v1 types.go),
 * and the defaults the v1 API applies to it (pkg/apis/apiextensions/v1/defaults.go:
 * names.singular = lowercased kind, names.listKind = kind + "List", conversion.strategy None).
 */
import type { ResourceType } from '../resources.ts';
import { isPlainObject, type KubeObject } from '../types.ts';
import type { JSONSchemaProps } from './schema.ts';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_KIND = 'CustomResourceDefinition';
/** The finalizer the CRD's delete adds; removed once its custom resources are gone. */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: unknown[];
}

export interface CrdSpec {
  group?: string;
  names?: CrdNames;
  scope?: string;
  versions?: CrdVersion[];
  conversion?: { strategy?: string };
  preserveUnknownFields?: boolean;
}

export interface Crd extends KubeObject {
  spec: CrdSpec;
  status?: {
    conditions?: {
      type: string;
      status: string;
      lastTransitionTime?: string;
      reason?: string;
      message?: string;
    }[];
    acceptedNames?: CrdNames;
    storedVersions?: string[];
  };
}

export function isCrdType(type: Pick<ResourceType, 'group' | 'kind'>): boolean {
  return type.group === CRD_GROUP && type.kind === CRD_KIND;
}

export function asCrd(object: KubeObject): Crd {
  if (!isPlainObject(object.spec)) object.spec = {};
  return object as Crd;
}

export function defaultCrd(object: KubeObject): void {
  const crd = asCrd(object);
  const names = crd.spec.names;
  if (isPlainObject(names) && typeof names.kind === 'string' && names.kind) {
    names.singular ||= names.kind.toLowerCase();
    names.listKind ||= `${names.kind}List`;
  }
  if (!isPlainObject(crd.spec.conversion)) crd.spec.conversion = { strategy: 'None' };
  else crd.spec.conversion.strategy ??= 'None';
}

/**
 * The status a new CRD starts with (customresourcedefinition/strategy.go PrepareForCreate):
 * empty but for storedVersions, the storage version's name; conditions come from the controllers.
 */
export function defaultCrdStatus(object: KubeObject): void {
  const crd = asCrd(object);
  const storage = (crd.spec.versions ?? []).find((v) => v?.storage === true)?.name;
  crd.status = {
    conditions: [],
    acceptedNames: { plural: '', kind: '' },
    storedVersions: storage ? [storage] : [],
  };
}

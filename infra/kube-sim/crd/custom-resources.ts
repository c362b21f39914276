/**
 * What the API service does differently for a custom resource, each step keyed on whether the
 * request's type is served by a CRD (serving.ts): decoding prunes by the version's schema
 * (pkg/apiserver/schema/pruning), defaulting applies its `default`s
 * (pkg/apiserver/schema/defaulting), validation checks the object against it
 * (pkg/apiserver/validation), and strategic merge patch is refused (customresource_handler.go
 * serves only JSON patch, merge patch and apply for custom resources).
 */
import type { FieldError } from '../errors.ts';
import type { ResourceType } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import { applySchemaDefaults } from './defaults.ts';
import { pruneUnknownFields } from './prune.ts';
import { customVersionOf } from './serving.ts';
import { validateAgainstSchema } from './validate-value.ts';

export function isCustomResource(type: ResourceType): boolean {
  return customVersionOf(type) !== undefined;
}

/** Prunes unknown fields in place; their paths, for fieldValidation Strict and Warn. */
export function pruneCustomResource(type: ResourceType, object: KubeObject): string[] {
  const custom = customVersionOf(type);
  return custom ? pruneUnknownFields(object, custom.schema) : [];
}

export function defaultCustomResource(type: ResourceType, object: KubeObject): void {
  const custom = customVersionOf(type);
  if (custom) applySchemaDefaults(object, custom.schema);
}

export function validateCustomResource(type: ResourceType, object: KubeObject): FieldError[] {
  const custom = customVersionOf(type);
  return custom ? validateAgainstSchema(object, custom.schema) : [];
}

/** The patch types a custom resource accepts: everything but strategic merge patch. */
export const CUSTOM_RESOURCE_PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];

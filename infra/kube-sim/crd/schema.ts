/**
 * The JSONSchemaProps of apiextensions.k8s.io/v1 as kube-sim reads them from a CRD's
 * `spec.versions[].schema.openAPIV3Schema` (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1
 * types_jsonschema.go). Only the members the server acts on are typed; the rest pass through.
 */
import { isPlainObject } from '../types.ts';

export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  pattern?: string;
  multipleOf?: number;
  uniqueItems?: boolean;
  anyOf?: JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  [key: string]: unknown;
}

export function asSchema(value: unknown): JSONSchemaProps | undefined {
  return isPlainObject(value) ? (value as JSONSchemaProps) : undefined;
}

/** The schema of map values (`additionalProperties`), when it is a schema and not a boolean. */
export function mapValueSchema(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  return asSchema(schema.additionalProperties);
}

/** JSON's view of a Go value: what the `type` keyword and error messages name it. */
export function jsonType(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'object';
}

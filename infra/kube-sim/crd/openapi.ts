/**
 * The OpenAPI v3 schema of a custom resource's kind, from its version's structural schema, as
 * apiextensions-apiserver's pkg/controller/openapi/builder/builder.go publishes it: the CRD's
 * schema with apiVersion and kind described, metadata a reference to ObjectMeta and the
 * x-kubernetes-group-version-kind extension, so `kubectl explain` and kubectl's
 * fieldValidation probing find the kind. undefined for built-in types.
 */
import type { ResourceType } from '../resources.ts';
import { type JsonObject, ref, SCHEMA } from '../server/discovery-schemas.ts';
import { clone } from '../types.ts';
import { customVersionOf } from './serving.ts';

export function customResourceSchema(type: ResourceType): JsonObject | undefined {
  const custom = customVersionOf(type);
  if (!custom) return undefined;
  const schema = clone(custom.schema) as JsonObject;
  const properties = (schema.properties ?? {}) as JsonObject;
  schema.properties = {
    ...properties,
    apiVersion: {
      description:
        'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
      type: 'string',
    },
    kind: {
      description:
        'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to.',
      type: 'string',
    },
    metadata: { allOf: [ref(SCHEMA.objectMeta)], description: "Standard object's metadata." },
  };
  schema.type = 'object';
  schema['x-kubernetes-group-version-kind'] = [{ group: type.group, version: type.version, kind: type.kind }];
  return schema;
}

/**
 * The main rules of a structural schema, as apiextensions-apiserver checks them for v1 CRDs
 * (pkg/apiserver/schema/validation.go validateStructuralInvariants / ValidateStructural and
 * pkg/apis/apiextensions/validation/validation.go): every specified field has a non-empty `type`
 * (unless `x-kubernetes-int-or-string` or `x-kubernetes-preserve-unknown-fields` says otherwise),
 * the root is an object, `properties` and `additionalProperties` exclude each other, arrays have
 * `items`, `x-kubernetes-int-or-string` has no type, embedded resources are objects, and the
 * value-validation keywords under anyOf/allOf/oneOf/not specify no type or structure of their own.
 */
import type { FieldError } from '../errors.ts';
import { forbidden, invalid, required } from '../validation/field.ts';
import { asSchema, type JSONSchemaProps } from './schema.ts';

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

export function validateStructural(schema: JSONSchemaProps, path: string): FieldError[] {
  const out: FieldError[] = [];
  if (schema.type !== 'object') {
    if (!schema.type) out.push(required(`${path}.type`, 'must not be empty at the root'));
    else out.push(invalid(`${path}.type`, schema.type, 'must be object at the root'));
  }
  node(schema, path, true, out);
  return out;
}

function node(schema: JSONSchemaProps, path: string, root: boolean, out: FieldError[]): void {
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (schema.type && !TYPES.includes(schema.type)) {
    out.push({
      type: 'FieldValueNotSupported',
      field: `${path}.type`,
      value: schema.type,
      detail: `supported values: ${TYPES.map((t) => JSON.stringify(t)).join(', ')}`,
    });
  }
  if (!root && !schema.type && !intOrString && !preserve)
    out.push(required(`${path}.type`, 'must not be empty for specified object fields'));
  if (intOrString && schema.type)
    out.push(forbidden(`${path}.type`, 'must be empty to be structural with x-kubernetes-int-or-string'));
  if (schema['x-kubernetes-embedded-resource'] === true && schema.type !== 'object')
    out.push(forbidden(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
  if (schema.properties && schema.additionalProperties !== undefined && schema.additionalProperties !== false)
    out.push(
      forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'),
    );
  if (schema.type === 'array' && !schema.items) out.push(required(`${path}.items`, 'must be specified'));
  if (schema.type && schema.type !== 'object' && schema.properties)
    out.push(forbidden(`${path}.properties`, 'must not be specified for non-object types'));
  for (const [name, child] of Object.entries(schema.properties ?? {}))
    node(child, `${path}.properties[${name}]`, false, out);
  const additional = asSchema(schema.additionalProperties);
  if (additional) node(additional, `${path}.additionalProperties`, false, out);
  if (schema.items) node(schema.items, `${path}.items`, false, out);
  for (const keyword of ['anyOf', 'allOf', 'oneOf'] as const) {
    for (const [i, sub] of (schema[keyword] ?? []).entries())
      valueValidation(sub, `${path}.${keyword}[${i}]`, out);
  }
  if (schema.not) valueValidation(schema.not, `${path}.not`, out);
}

/**
 * Inside anyOf/allOf/oneOf/not only value validations may appear: no description, type (except
 * the int-or-string pair), default, nullable or x-kubernetes extensions.
 */
function valueValidation(schema: JSONSchemaProps, path: string, out: FieldError[]): void {
  for (const key of ['description', 'default', 'additionalProperties']) {
    if (schema[key] !== undefined) out.push(forbidden(`${path}.${key}`, 'must be empty to be structural'));
  }
  for (const key of Object.keys(schema)) {
    if (key.startsWith('x-kubernetes-'))
      out.push(forbidden(`${path}.${key}`, 'must be false to be structural'));
  }
  for (const [name, child] of Object.entries(schema.properties ?? {}))
    valueValidation(child, `${path}.properties[${name}]`, out);
  if (schema.items) valueValidation(schema.items, `${path}.items`, out);
}

/**
 * Validation of a custom resource against its version's structural schema: kube-openapi's
 * validate package as apiextensions-apiserver drives it (pkg/apiserver/validation/validation.go
 * ValidateCustomResource), with its messages (`spec.replicas in body must be of type integer:
 * "string"`) and its mapping of error codes onto field errors: required → Required, enum →
 * NotSupported, maxLength → TooLong, maxItems/maxProperties → TooMany, a wrong type →
 * TypeInvalid (value = the JSON type found), everything else → Invalid. `x-kubernetes-int-or-string`
 * accepts integers and strings; `nullable` admits null; formats checked are the common ones of
 * apiextensions' supported list (int32, int64, date-time, date, byte, uuid).
 */
import type { FieldError } from '../errors.ts';
import { isPlainObject } from '../types.ts';
import { tooLong, tooMany } from '../validation/field.ts';
import { type JSONSchemaProps, jsonType, mapValueSchema } from './schema.ts';

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The field errors of `object` (the whole resource) against `schema` (its openAPIV3Schema). */
export function validateAgainstSchema(object: unknown, schema: JSONSchemaProps): FieldError[] {
  const out: FieldError[] = [];
  // Root metadata is validated as ObjectMeta by the generic registry, not by the schema.
  if (isPlainObject(object)) {
    const { metadata: _m, ...rest } = object;
    const rootSchema: JSONSchemaProps = { ...schema, properties: { ...schema.properties } };
    delete rootSchema.properties?.metadata;
    check(rest, rootSchema, '', out);
  }
  return out;
}

function typeInvalid(path: string, value: unknown, expected: string): FieldError {
  const actual = jsonType(value);
  return {
    type: 'FieldValueTypeInvalid',
    field: path,
    value: actual,
    detail: `${path} in body must be of type ${expected}: ${JSON.stringify(actual)}`,
  };
}

function invalid(path: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: path, value, detail: `${path} in body ${detail}` };
}

function typeMatches(value: unknown, type: string): boolean {
  const actual = jsonType(value);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

function check(value: unknown, schema: JSONSchemaProps, path: string, out: FieldError[]): void {
  if (value === null) {
    if (schema.nullable === true || schema['x-kubernetes-preserve-unknown-fields'] === true) return;
    if (schema.type) out.push(typeInvalid(path, value, schema.type));
    return;
  }
  if (schema['x-kubernetes-int-or-string'] === true) {
    const t = jsonType(value);
    if (t !== 'integer' && t !== 'string') {
      out.push(typeInvalid(path, value, 'integer,string'));
      return;
    }
  } else if (schema.type && !typeMatches(value, schema.type)) {
    out.push(typeInvalid(path, value, schema.type));
    return;
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    out.push({
      type: 'FieldValueNotSupported',
      field: path,
      value,
      detail: `supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`,
    });
  }
  if (typeof value === 'number') checkNumber(value, schema, path, out);
  if (typeof value === 'string') checkString(value, schema, path, out);
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      out.push(invalid(path, value.length, `should have at least ${schema.minItems} items`));
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      out.push(tooMany(path, value.length, schema.maxItems));
    if (schema.uniqueItems) {
      const seen = new Set(value.map((v) => JSON.stringify(v)));
      if (seen.size !== value.length) out.push(invalid(path, value, "shouldn't contain duplicates"));
    }
    if (schema.items)
      for (const [i, item] of value.entries()) check(item, schema.items, `${path}[${i}]`, out);
  }
  if (isPlainObject(value)) checkObject(value, schema, path, out);
  for (const sub of schema.allOf ?? []) check(value, sub, path, out);
  if (schema.anyOf && schema.anyOf.length > 0) {
    const passes = schema.anyOf.some((sub) => {
      const errs: FieldError[] = [];
      check(value, sub, path, errs);
      return errs.length === 0;
    });
    // int-or-string schemas carry `anyOf: [{type: integer}, {type: string}]`, already checked.
    if (!passes && schema['x-kubernetes-int-or-string'] !== true)
      out.push(invalid(path, value, 'must validate at least one schema (anyOf)'));
  }
  if (schema.oneOf && schema.oneOf.length > 0) {
    const passing = schema.oneOf.filter((sub) => {
      const errs: FieldError[] = [];
      check(value, sub, path, errs);
      return errs.length === 0;
    }).length;
    if (passing !== 1) out.push(invalid(path, value, 'must validate one and only one schema (oneOf)'));
  }
  if (schema.not) {
    const errs: FieldError[] = [];
    check(value, schema.not, path, errs);
    if (errs.length === 0) out.push(invalid(path, value, 'must not validate the schema (not)'));
  }
}

function checkNumber(value: number, schema: JSONSchemaProps, path: string, out: FieldError[]): void {
  if (schema.minimum !== undefined) {
    if (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)
      out.push(
        invalid(
          path,
          value,
          `should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`,
        ),
      );
  }
  if (schema.maximum !== undefined) {
    if (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)
      out.push(
        invalid(
          path,
          value,
          `should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`,
        ),
      );
  }
  if (schema.multipleOf !== undefined && schema.multipleOf !== 0 && value % schema.multipleOf !== 0)
    out.push(invalid(path, value, `should be a multiple of ${schema.multipleOf}`));
  if (schema.format === 'int32' && (value < -(2 ** 31) || value > 2 ** 31 - 1))
    out.push(invalid(path, value, `must be of type int32: ${JSON.stringify(String(value))}`));
}

function checkString(value: string, schema: JSONSchemaProps, path: string, out: FieldError[]): void {
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength)
    out.push(invalid(path, value, `should be at least ${schema.minLength} chars long`));
  if (schema.maxLength !== undefined && length > schema.maxLength) out.push(tooLong(path, schema.maxLength));
  if (schema.pattern !== undefined) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(schema.pattern, 'u');
    } catch {
      re = undefined;
    }
    if (re && !re.test(value)) out.push(invalid(path, value, `should match '${schema.pattern}'`));
  }
  const format = schema.format;
  const formatOk =
    format === 'date-time'
      ? DATE_TIME.test(value)
      : format === 'date'
        ? DATE.test(value)
        : format === 'uuid'
          ? UUID.test(value)
          : format === 'byte'
            ? BASE64.test(value)
            : true;
  if (!formatOk) out.push(invalid(path, value, `must be of type ${format}: ${JSON.stringify(value)}`));
}

function checkObject(
  value: Record<string, unknown>,
  schema: JSONSchemaProps,
  path: string,
  out: FieldError[],
): void {
  const child = (key: string) => (path ? `${path}.${key}` : key);
  for (const name of schema.required ?? []) {
    if (!(name in value)) out.push({ type: 'FieldValueRequired', field: child(name) });
  }
  const count = Object.keys(value).length;
  if (schema.minProperties !== undefined && count < schema.minProperties)
    out.push(invalid(path, count, `should have at least ${schema.minProperties} properties`));
  if (schema.maxProperties !== undefined && count > schema.maxProperties)
    out.push(tooMany(path, count, schema.maxProperties));
  const additional = mapValueSchema(schema);
  for (const [key, v] of Object.entries(value)) {
    const sub = schema.properties?.[key];
    if (sub) check(v, sub, child(key), out);
    else if (additional) check(v, additional, child(key), out);
  }
}

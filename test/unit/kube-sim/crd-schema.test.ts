/**
 * The structural-schema code of kube-sim's CustomResourceDefinitions as pure functions: pruning,
 * defaulting, value validation and the structural rules, against apiextensions-apiserver's
 * algorithms (pkg/apiserver/schema/pruning, defaulting, validation) and its messages.
 */
import { describe, expect, it } from 'vitest';
import { applySchemaDefaults } from '../../../infra/kube-sim/crd/defaults.ts';
import { pruneUnknownFields } from '../../../infra/kube-sim/crd/prune.ts';
import type { JSONSchemaProps } from '../../../infra/kube-sim/crd/schema.ts';
import { validateStructural } from '../../../infra/kube-sim/crd/structural.ts';
import { validateAgainstSchema } from '../../../infra/kube-sim/crd/validate-value.ts';
import { fieldErrorText } from '../../../infra/kube-sim/errors.ts';

const SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
        replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
        mode: { type: 'string', enum: ['A', 'B'], default: 'A' },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        items: {
          type: 'array',
          maxItems: 2,
          items: { type: 'object', properties: { id: { type: 'integer', default: 7 } } },
        },
        raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        when: { type: 'string', format: 'date-time', nullable: true },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
        },
      },
    },
  },
};

const messages = (object: unknown) => validateAgainstSchema(object, SCHEMA).map(fieldErrorText);

describe('pruning', () => {
  it('drops fields the schema does not specify and reports their paths', () => {
    const object = {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'a' },
      extra: 1,
      spec: {
        name: 'ab',
        nope: true,
        labels: { any: 'key' },
        items: [{ id: 1, bad: 2 }],
        raw: { anything: { deep: 1 } },
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'x', b: 'y' } },
      },
    };
    expect(pruneUnknownFields(object, SCHEMA)).toEqual([
      'extra',
      'spec.nope',
      'spec.items[0].bad',
      'spec.template.spec.b',
    ]);
    expect(object).toEqual({
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'a' },
      spec: {
        name: 'ab',
        labels: { any: 'key' },
        items: [{ id: 1 }],
        raw: { anything: { deep: 1 } },
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'x' } },
      },
    });
  });
});

describe('defaulting', () => {
  it('fills absent properties and array items, never present ones', () => {
    const object = { spec: { name: 'ab', mode: 'B', items: [{}, { id: 2 }] } };
    applySchemaDefaults(object, SCHEMA);
    expect(object.spec).toEqual({ name: 'ab', mode: 'B', replicas: 1, items: [{ id: 7 }, { id: 2 }] });
  });

  it('does not create absent parents', () => {
    const object: Record<string, unknown> = {};
    applySchemaDefaults(object, SCHEMA);
    expect(object).toEqual({});
  });
});

describe('value validation', () => {
  it('accepts a valid object', () => {
    expect(
      messages({ spec: { name: 'abc', replicas: 3, port: 'http', when: null, items: [{ id: 1 }] } }),
    ).toEqual([]);
    expect(messages({ spec: { name: 'abc', port: 8080, when: '2024-01-02T03:04:05Z' } })).toEqual([]);
  });

  it('reports type, required, enum, bounds, length, pattern, items and format as upstream', () => {
    expect(messages({ spec: { replicas: 'x' } })).toEqual([
      'spec.name: Required value',
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
    expect(
      messages({
        spec: {
          name: 'ABCDEF',
          replicas: 11,
          mode: 'C',
          port: true,
          items: [{}, {}, {}],
          when: 'yesterday',
        },
      }),
    ).toEqual([
      'spec.name: Too long: may not be more than 5 bytes',
      'spec.name: Invalid value: "ABCDEF": spec.name in body should match \'^[a-z]+$\'',
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      'spec.mode: Unsupported value: "C": supported values: "A", "B"',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      'spec.items: Too many: 3: must have at most 2 items',
      'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
    ]);
    expect(messages({ spec: { name: 'a', replicas: -1, labels: { a: 1 } } })).toEqual([
      'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long',
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
      'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
    ]);
  });

  it('refuses null unless nullable', () => {
    expect(messages({ spec: { name: null } })).toEqual([
      'spec.name: Invalid value: "null": spec.name in body must be of type string: "null"',
    ]);
  });
});

describe('structural schema rules', () => {
  const texts = (schema: JSONSchemaProps) => validateStructural(schema, 'schema').map(fieldErrorText);

  it('accepts the test schema', () => {
    expect(texts(SCHEMA)).toEqual([]);
  });

  it('requires types, an object root, items for arrays, and no type with int-or-string', () => {
    expect(
      texts({
        type: 'array',
        properties: {
          a: {},
          b: { type: 'array' },
          c: { type: 'string', 'x-kubernetes-int-or-string': true },
          d: {
            type: 'object',
            properties: { x: { type: 'string' } },
            additionalProperties: { type: 'string' },
          },
          e: { type: 'string', 'x-kubernetes-embedded-resource': true },
          f: { type: 'date' },
        },
      }),
    ).toEqual([
      'schema.type: Invalid value: "array": must be object at the root',
      'schema.items: Required value: must be specified',
      'schema.properties: Forbidden: must not be specified for non-object types',
      'schema.properties[a].type: Required value: must not be empty for specified object fields',
      'schema.properties[b].items: Required value: must be specified',
      'schema.properties[c].type: Forbidden: must be empty to be structural with x-kubernetes-int-or-string',
      'schema.properties[d].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
      'schema.properties[e].type: Forbidden: must be object if x-kubernetes-embedded-resource is true',
      'schema.properties[f].type: Unsupported value: "date": supported values: "array", "boolean", "integer", "number", "object", "string"',
    ]);
  });

  it('allows untyped fields under x-kubernetes-preserve-unknown-fields', () => {
    expect(
      texts({ type: 'object', properties: { any: { 'x-kubernetes-preserve-unknown-fields': true } } }),
    ).toEqual([]);
  });
});

/**
 * Custom resource tables from additionalPrinterColumns (apiextensions-apiserver
 * pkg/registry/customresource/tableconvertor), the default convertor, Accept negotiation and
 * the Table shape.
 */
import { describe, expect, it } from 'vitest';
import type { Crd } from '../../../../infra/kube-sim/crd/definition.ts';
import { typesOf } from '../../../../infra/kube-sim/crd/serving.ts';
import { StatusError } from '../../../../infra/kube-sim/errors.ts';
import { customResourcePrinter } from '../../../../infra/kube-sim/printing/custom-resource.ts';
import {
  evaluateJsonPath,
  JsonPathError,
  parseJsonPath,
} from '../../../../infra/kube-sim/printing/jsonpath.ts';
import { negotiateOutput } from '../../../../infra/kube-sim/printing/negotiate.ts';
import { defaultPrinter, printerFor } from '../../../../infra/kube-sim/printing/printers.ts';
import { convertRead, tableAnswer } from '../../../../infra/kube-sim/printing/respond.ts';
import { findByKind, type ResourceType } from '../../../../infra/kube-sim/resources.ts';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const widget = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { size: 3, ratio: 0.5, enabled: true, owner: { team: 'a' } },
  status: {
    conditions: [
      { type: 'Synced', status: 'False' },
      { type: 'Ready', status: 'True' },
    ],
  },
};

describe('custom resource printer', () => {
  it('NAME then the printer columns, typed cells, first JSONPath result', () => {
    const printer = customResourcePrinter([
      { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
      { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio', priority: 1 },
      { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled' },
      {
        name: 'Ready',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Ready")].status',
        description: 'ready?',
      },
      { name: 'Owner', type: 'string', jsonPath: '.spec.owner' },
      { name: 'Missing', type: 'string', jsonPath: '.spec.nothing' },
      { name: 'Created', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
    expect(printer.columns.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Size', 'integer', 0],
      ['Ratio', 'number', 1],
      ['Enabled', 'boolean', 0],
      ['Ready', 'string', 0],
      ['Owner', 'string', 0],
      ['Missing', 'string', 0],
      ['Created', 'date', 0],
    ]);
    expect(printer.columns[4]!.description).toBe('ready?');
    expect(printer.cells(widget, NOW)).toEqual(['w1', 3, 0.5, true, 'True', '{"team":"a"}', null, '60m']);
  });

  it('without printer columns: NAME and AGE', () => {
    const printer = customResourcePrinter(undefined);
    expect(printer.columns.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    expect(printer.cells(widget, NOW)).toEqual(['w1', '60m']);
  });

  it("built from each served version's printer columns; kinds without a printer get the default convertor", () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Widget', plural: 'widgets', listKind: 'WidgetList', singular: 'widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
          },
          { name: 'v2', served: true, storage: false },
          // What CRD validation should refuse is still no reason for a 500: ignored.
          { name: 'v3', served: true, storage: false, additionalPrinterColumns: [{ type: 'integer' }] },
        ],
      },
    } as unknown as Crd;
    const [v1, v2, v3] = typesOf(crd);
    expect(printerFor(v1!).columns.map((c) => c.name)).toEqual(['Name', 'Size']);
    expect(printerFor(v1!).cells(widget, NOW)).toEqual(['w1', 3]);
    expect(printerFor(v1!)).toBe(printerFor(v1!));
    expect(printerFor(v2!).columns.map((c) => c.name)).toEqual(['Name', 'Age']);
    expect(printerFor(v3!).columns.map((c) => c.name)).toEqual(['Name', 'Age']);
    const unserved = { ...v1!, group: 'other.example.com' };
    expect(printerFor(unserved)).toBe(defaultPrinter);
    // CustomResourceDefinitions themselves: the default convertor, NAME and CREATED AT.
    expect(
      printerFor(findByKind('apiextensions.k8s.io/v1', 'CustomResourceDefinition')!).columns.map(
        (c) => c.name,
      ),
    ).toEqual(['Name', 'Created At']);
    expect(defaultPrinter.cells(widget, NOW)).toEqual(['w1', '2026-01-01T00:00:00Z']);
  });
});

describe('jsonpath subset', () => {
  it('fields, quoted fields, indexes, wildcards and filters', () => {
    const ev = (p: string) => evaluateJsonPath(parseJsonPath(p), widget);
    expect(ev('.metadata.name')).toEqual(['w1']);
    expect(ev("{.metadata['name']}")).toEqual(['w1']);
    expect(ev('.status.conditions[1].type')).toEqual(['Ready']);
    expect(ev('.status.conditions[-1].type')).toEqual(['Ready']);
    expect(ev('.status.conditions[*].type')).toEqual(['Synced', 'Ready']);
    expect(ev('.status.conditions[?(@.status!="True")].type')).toEqual(['Synced']);
    expect(ev('.spec.none.deeper')).toEqual([]);
    expect(() => parseJsonPath('.a[?(@.x>1)]')).toThrow(JsonPathError);
  });
});

describe('accept negotiation', () => {
  it('the first acceptable media range decides', () => {
    expect(negotiateOutput(undefined)).toBe('object');
    expect(negotiateOutput('application/json')).toBe('object');
    expect(
      negotiateOutput(
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      ),
    ).toBe('table');
    expect(negotiateOutput('application/json;as=Table;v=v1beta1;g=meta.k8s.io')).toBe('table');
    expect(negotiateOutput('application/json;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io')).toBe(
      'table',
    );
    expect(
      negotiateOutput('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json'),
    ).toBe('partial-list');
    expect(
      negotiateOutput('application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1'),
    ).toBe('partial');
    expect(negotiateOutput('application/json;as=Fancy;v=v1;g=meta.k8s.io,application/json')).toBe('object');
    expect(negotiateOutput('application/json;as=Table;v=v1;g=example.com,application/json')).toBe('object');
    expect(negotiateOutput('text/html')).toBe('object');
  });

  it('406 when only unsupported conversions are acceptable', () => {
    let err: unknown;
    try {
      negotiateOutput('application/json;as=Table;v=v2;g=meta.k8s.io');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(406);
  });
});

describe('table answers', () => {
  const cm = { group: '', version: 'v1', kind: 'ConfigMap' } as ResourceType;
  const item = {
    metadata: { name: 'c', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z' },
    data: { a: '1' },
  };

  it('a list: list metadata, one row per item, PartialObjectMetadata objects', () => {
    const table = tableAnswer(
      cm,
      { items: [item], metadata: { resourceVersion: '9', continue: 'abc' } },
      new URLSearchParams(),
      NOW,
    );
    expect(table).toEqual({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '9', continue: 'abc' },
      columnDefinitions: expect.any(Array),
      rows: [
        {
          cells: ['c', 1, '60m'],
          object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: item.metadata },
        },
      ],
    });
  });

  it('a single object: its resourceVersion; includeObject=Object carries it whole', () => {
    const table = tableAnswer(cm, item, new URLSearchParams('includeObject=Object'), NOW);
    expect(table.metadata).toEqual({ resourceVersion: '7' });
    expect(table.rows[0]!.object).toEqual({ ...item, apiVersion: 'v1', kind: 'ConfigMap' });
  });
});

describe('partial object metadata answers', () => {
  const cm = { group: '', version: 'v1', kind: 'ConfigMap', listKind: 'ConfigMapList' } as ResourceType;
  const item = { metadata: { name: 'c', resourceVersion: '7' }, data: { a: '1' } };
  const list = { items: [item], metadata: { resourceVersion: '9' } };
  const q = new URLSearchParams();

  it('metadata only, as PartialObjectMetadata and PartialObjectMetadataList', () => {
    expect(convertRead('partial', cm, item, q)).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: item.metadata,
    });
    expect(convertRead('partial-list', cm, list, q)).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '9' },
      items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: item.metadata }],
    });
    expect(convertRead('object', cm, item, q)).toBe(item);
  });

  it('the list form of one object, or the single form of a list, is 406', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return [(e as StatusError).code, (e as StatusError).message];
      }
      return undefined;
    };
    expect(code(() => convertRead('partial', cm, list, q))).toEqual([
      406,
      'you requested PartialObjectMetadata, but the requested object is a list (*v1.ConfigMapList)',
    ]);
    expect(code(() => convertRead('partial-list', cm, item, q))).toEqual([
      406,
      'you requested PartialObjectMetadataList, but the requested object is not a list (*v1.ConfigMap)',
    ]);
  });
});

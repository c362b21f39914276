/**
 * Tables of custom resources from their CRD version's additionalPrinterColumns, as
 * kubernetes/apiextensions-apiserver pkg/registry/customresource/tableconvertor does: NAME, then
 * one column per printer column (JSONPath; the first result; `date` columns as an age), and
 * without any, the default AGE column apiextensions adds (`.metadata.creationTimestamp`).
 */
import { since } from './age.ts';
import { evaluateJsonPath, parseJsonPath } from './jsonpath.ts';
import {
  type Cell,
  type ColumnDefinition,
  CREATION_DESCRIPTION,
  NAME_COLUMN,
  type Printer,
} from './table.ts';

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

const DEFAULT_COLUMNS: PrinterColumn[] = [
  { name: 'Age', type: 'date', description: CREATION_DESCRIPTION, jsonPath: '.metadata.creationTimestamp' },
];

/** cellForJSONValue: the JSON value as the column's type says, null when it does not fit. */
function cellFor(type: string, value: unknown, now: number): Cell {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? value : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : since(value, now);
    }
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

/** The printer for one served version of a CRD (`spec.versions[].additionalPrinterColumns`). */
export function customResourcePrinter(printerColumns: PrinterColumn[] | undefined): Printer {
  const given = printerColumns && printerColumns.length > 0 ? printerColumns : DEFAULT_COLUMNS;
  const paths = given.map((c) => parseJsonPath(c.jsonPath));
  const columns: ColumnDefinition[] = [
    NAME_COLUMN,
    ...given.map((c) => ({
      name: c.name,
      type: c.type as ColumnDefinition['type'],
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns,
    cells: (object, now) => [
      typeof object.metadata?.name === 'string' ? object.metadata.name : '',
      ...given.map((c, i) => {
        const results = evaluateJsonPath(paths[i]!, object);
        return results.length === 0 || results[0] === undefined ? null : cellFor(c.type, results[0], now);
      }),
    ],
  };
}

/**
 * meta.k8s.io/v1 Table: the shapes, and the conversion of objects into one the way kube-apiserver
 * does it (k8s.io/apiserver pkg/endpoints/handlers/response.go asTable; the rows' objects as
 * PartialObjectMetadata by default, the full object with `includeObject=Object`, none with `None`).
 */
import type { KubeObject } from '../types.ts';

export interface ColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

export type Cell = string | number | boolean | null;

export interface RowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableRow {
  cells: Cell[];
  conditions?: RowCondition[];
  object: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: ColumnDefinition[] | null;
  rows: TableRow[];
}

/** One kind's printer: its columns, and the cells (one per column) of an object. */
export interface Printer {
  columns: ColumnDefinition[];
  cells(object: Obj, now: number): Cell[];
  /** Row conditions (pods: `Completed` for a finished pod, which kubectl may hide). */
  conditions?(object: Obj): RowCondition[] | undefined;
}

/** Objects as printers read them: any JSON, read defensively. */
// biome-ignore lint/suspicious/noExplicitAny: printers walk arbitrary JSON objects of many kinds.
export type Obj = any;

export type IncludeObject = 'Metadata' | 'Object' | 'None';

/** metav1.ObjectMeta's swagger doc for `name` and `creationTimestamp`, the descriptions upstream uses. */
export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const CREATION_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** A column; `wide` ones (priority 1) only show with `kubectl get -o wide`. */
export function column(
  name: string,
  type: ColumnDefinition['type'],
  description: string,
  options: { wide?: boolean; format?: string } = {},
): ColumnDefinition {
  return { name, type, format: options.format ?? '', description, priority: options.wide ? 1 : 0 };
}

export const NAME_COLUMN = column('Name', 'string', NAME_DESCRIPTION, { format: 'name' });
export const AGE_COLUMN = column('Age', 'string', CREATION_DESCRIPTION);

export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject');
  return v === 'Object' || v === 'None' ? v : 'Metadata';
}

function rowObject(object: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return null;
  if (include === 'Object') return object;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

export interface TableInput {
  printer: Printer;
  objects: KubeObject[];
  metadata: Table['metadata'];
  include: IncludeObject;
  /** Watch events after the first carry no column definitions (upstream's NoHeaders). */
  noHeaders?: boolean;
  now: number;
}

export function buildTable(input: TableInput): Table {
  const { printer, now } = input;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: input.metadata,
    columnDefinitions: input.noHeaders ? null : printer.columns,
    rows: input.objects.map((object) => {
      const conditions = printer.conditions?.(object);
      return {
        cells: printer.cells(object, now),
        ...(conditions ? { conditions } : {}),
        object: rowObject(object, input.include),
      };
    }),
  };
}

/**
 * Label and field selectors as the API server parses them (k8s.io/apimachinery/pkg/labels,
 * pkg/fields). Parse errors become 400 BadRequest with upstream's wording.
 */
import { LABEL_KEY as KEY, LABEL_VALUE as VALUE } from '../../rules/labels.ts';
import { type StatusError, statusErrors } from './errors.ts';
import type { KubeObject } from './types.ts';

type Requirement =
  | { op: 'exists' | 'notexists'; key: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'gt' | 'lt'; key: string; value: number };

export interface LabelSelector {
  matches(labels: Record<string, string> | undefined): boolean;
  readonly empty: boolean;
}

/** Splits on commas that are not inside parentheses (`a in (x,y),b`). */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += ch;
  }
  terms.push(current);
  return terms.map((t) => t.trim()).filter((t) => t.length > 0);
}

/** Upstream answers an unparsable selector with 400 BadRequest naming the requirement. */
function invalidSelector(_selector: string, why: string): StatusError {
  return statusErrors.badRequest(`unable to parse requirement: ${why}`);
}

function checkKey(key: string, selector: string): void {
  if (!KEY.test(key) || key.split('/').pop()!.length > 63) {
    throw invalidSelector(
      selector,
      `invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
}

function checkValue(value: string, selector: string): void {
  if (value.length > 63 || !VALUE.test(value)) {
    throw invalidSelector(
      selector,
      `invalid label value: "${value}": at key: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
}

function parseTerm(term: string, selector: string): Requirement {
  let m = /^!\s*(\S+)$/.exec(term);
  if (m) {
    checkKey(m[1]!, selector);
    return { op: 'notexists', key: m[1]! };
  }
  m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (m) {
    checkKey(m[1]!, selector);
    const values = m[3]!.split(',').map((v) => v.trim());
    for (const v of values) checkValue(v, selector);
    return { op: m[2] as 'in' | 'notin', key: m[1]!, values };
  }
  m = /^(\S+?)\s*(==|!=|=)\s*(\S*)$/.exec(term);
  if (m) {
    checkKey(m[1]!, selector);
    checkValue(m[3]!, selector);
    return { op: m[2] === '!=' ? 'notin' : 'in', key: m[1]!, values: [m[3]!] };
  }
  m = /^(\S+?)\s*(>|<)\s*(\S+)$/.exec(term);
  if (m) {
    checkKey(m[1]!, selector);
    if (!/^-?\d+$/.test(m[3]!))
      throw invalidSelector(selector, `for 'Gt', 'Lt' operators, the value must be an integer`);
    return { op: m[2] === '>' ? 'gt' : 'lt', key: m[1]!, value: Number(m[3]) };
  }
  if (/^\S+$/.test(term)) {
    checkKey(term, selector);
    return { op: 'exists', key: term };
  }
  throw invalidSelector(selector, `found '${term}', expected: !, identifier, or 'end of string'`);
}

function matchesRequirement(req: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  switch (req.op) {
    case 'exists':
      return has;
    case 'notexists':
      return !has;
    case 'in':
      return has && req.values.includes(value!);
    case 'notin':
      // Upstream: `!=` and `notin` also match objects without the key.
      return !has || !req.values.includes(value!);
    case 'gt':
      return has && /^-?\d+$/.test(value!) && Number(value) > req.value;
    case 'lt':
      return has && /^-?\d+$/.test(value!) && Number(value) < req.value;
  }
}

export function parseLabelSelector(selector: string | null | undefined): LabelSelector {
  const requirements = selector ? splitTerms(selector).map((term) => parseTerm(term, selector)) : [];
  return {
    empty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => matchesRequirement(r, labels ?? {})),
  };
}

/** An equality selector (a Service's `spec.selector`): every entry is among `labels`. */
export function matchesEquality(
  selector: Record<string, string>,
  labels: Record<string, string> | undefined,
): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** A LabelSelector object (matchLabels/matchExpressions), as in Deployment.spec.selector. */
export function matchesLabelSelectorObject(
  selector:
    | {
        matchLabels?: Record<string, string>;
        matchExpressions?: { key: string; operator: string; values?: string[] }[];
      }
    | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (!selector) return false;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(l, e.key);
    const values = e.values ?? [];
    if (e.operator === 'In' && !(has && values.includes(l[e.key]!))) return false;
    if (e.operator === 'NotIn' && has && values.includes(l[e.key]!)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

export interface FieldSelector {
  matches(object: KubeObject): boolean;
  readonly empty: boolean;
  /** `metadata.name` when the selector pins one name (used to narrow watches). */
  readonly name?: string;
}

type Obj = Record<string, unknown>;
const sub = (o: KubeObject, key: string): Obj => (o[key] ?? {}) as Obj;
const text = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

/** The involvedObject (core/v1) or regarding (events.k8s.io/v1) fields an Event is selected by. */
function referenceFields(field: string, label: string): Record<string, (o: KubeObject) => string> {
  const out: Record<string, (o: KubeObject) => string> = {};
  for (const key of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'])
    out[`${label}.${key}`] = (o) => text(sub(o, field)[key]);
  return out;
}

/**
 * Fields each type (`group/Kind`) can be selected by, beyond metadata.name and metadata.namespace.
 * Events: pkg/apis/core/v1/conversion.go AddFieldLabelConversionsForEvent over
 * pkg/registry/core/event/strategy.go ToSelectableFields (`source` is source.component, else the
 * reporting controller); events.k8s.io/v1 selects the same fields of the internal core Event under
 * its own names (pkg/apis/events/v1/conversion.go AddFieldLabelConversionsForEvent: regarding.*,
 * reportingController).
 */
const EXTRA_FIELDS: Record<string, Record<string, (o: KubeObject) => string>> = {
  '/Secret': { type: (o) => String(o.type ?? '') },
  '/Pod': {
    'spec.nodeName': (o) => String((o.spec as { nodeName?: string } | undefined)?.nodeName ?? ''),
    'status.phase': (o) => String((o.status as { phase?: string } | undefined)?.phase ?? ''),
    'spec.restartPolicy': (o) =>
      String((o.spec as { restartPolicy?: string } | undefined)?.restartPolicy ?? ''),
  },
  '/Event': {
    ...referenceFields('involvedObject', 'involvedObject'),
    reason: (o) => text(o.reason),
    reportingComponent: (o) => text(o.reportingComponent),
    source: (o) => text(sub(o, 'source').component) || text(o.reportingComponent),
    type: (o) => text(o.type),
  },
  'events.k8s.io/Event': {
    ...referenceFields('regarding', 'regarding'),
    reason: (o) => text(o.reason),
    reportingController: (o) => text(o.reportingController),
    source: (o) => text(sub(o, 'deprecatedSource').component) || text(o.reportingController),
    type: (o) => text(o.type),
  },
  '/Namespace': { 'status.phase': (o) => String((o.status as { phase?: string } | undefined)?.phase ?? '') },
  'batch/Job': {
    'status.successful': (o) => String((o.status as { succeeded?: number } | undefined)?.succeeded ?? 0),
  },
};

export function parseFieldSelector(
  selector: string | null | undefined,
  type: { group: string; kind: string },
): FieldSelector {
  if (!selector) return { empty: true, matches: () => true };
  const checks: { get: (o: KubeObject) => string; value: string; negate: boolean }[] = [];
  let name: string | undefined;
  for (const term of splitTerms(selector)) {
    const m = /^([^=!]+?)\s*(==|!=|=)\s*(.*)$/.exec(term);
    if (!m) throw statusErrors.badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const [, field, op, value] = m as unknown as [string, string, string, string];
    let get: ((o: KubeObject) => string) | undefined;
    if (field === 'metadata.name') get = (o) => o.metadata.name ?? '';
    else if (field === 'metadata.namespace') get = (o) => o.metadata.namespace ?? '';
    else get = EXTRA_FIELDS[`${type.group}/${type.kind}`]?.[field];
    if (!get) throw statusErrors.badRequest(`field label not supported: ${field}`);
    if (field === 'metadata.name' && op !== '!=') name = value;
    checks.push({ get, value, negate: op === '!=' });
  }
  return {
    empty: false,
    ...(name !== undefined ? { name } : {}),
    matches: (o) => checks.every((c) => (c.get(o) === c.value) !== c.negate),
  };
}

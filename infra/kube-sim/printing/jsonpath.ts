/**
 * The JSONPath subset CRDs' additionalPrinterColumns use (apiextensions validates them as
 * "simple" paths for k8s.io/client-go util/jsonpath): `.a.b`, `['a.b']`, `[0]`, `[*]` and filters
 * `[?(@.type=="Ready")]` / `!=`. Evaluation answers every match, in order.
 */

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: string[]; op: '==' | '!='; value: string };

export class JsonPathError extends Error {}

export function parseJsonPath(path: string): Step[] {
  const steps: Step[] = [];
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  let i = 0;
  while (i < p.length) {
    const ch = p[i];
    if (ch === '.') {
      const m = /^\.([A-Za-z0-9_\-$]*)/.exec(p.slice(i));
      if (!m) throw new JsonPathError(`unrecognized character in ${path} at ${i}`);
      if (m[1]) steps.push({ kind: 'field', name: m[1] });
      i += m[0].length;
    } else if (ch === '[') {
      const end = p.indexOf(']', p[i + 1] === '?' ? p.indexOf(')', i) : i);
      if (end < 0) throw new JsonPathError(`unterminated [ in ${path}`);
      const inner = p.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else {
        const f = /^\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=)\s*(?:"([^"]*)"|'([^']*)'|([^)\s]+))\s*\)$/.exec(
          inner,
        );
        if (!f) throw new JsonPathError(`unsupported JSONPath expression [${inner}] in ${path}`);
        steps.push({
          kind: 'filter',
          path: f[1]!.split('.').filter(Boolean),
          op: f[2] as '==' | '!=',
          value: f[3] ?? f[4] ?? f[5] ?? '',
        });
      }
    } else throw new JsonPathError(`unrecognized character in ${path} at ${i}`);
  }
  return steps;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function evaluateJsonPath(steps: Step[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step.kind === 'field') {
        if (isObject(v) && step.name in v) next.push(v[step.name]);
      } else if (step.kind === 'index') {
        if (Array.isArray(v)) {
          const at = step.index < 0 ? v.length + step.index : step.index;
          if (at >= 0 && at < v.length) next.push(v[at]);
        }
      } else if (step.kind === 'all') {
        if (Array.isArray(v)) next.push(...v);
        else if (isObject(v)) next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          let x: unknown = item;
          for (const k of step.path) x = isObject(x) ? x[k] : undefined;
          const text = x === undefined ? undefined : typeof x === 'string' ? x : JSON.stringify(x);
          if (step.op === '==' ? text === step.value : text !== undefined && text !== step.value)
            next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

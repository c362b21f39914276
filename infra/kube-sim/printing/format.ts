/**
 * Cell formatting shared by the printers of kubernetes/kubernetes
 * pkg/printers/internalversion/printers.go: label maps and selectors as apimachinery's labels
 * package writes them, container names and images of a pod template, `<none>`-style blanks.
 */
import type { Obj } from './table.ts';

export const list = (v: unknown): Obj[] => (Array.isArray(v) ? v : []);
export const int = (v: unknown): number => (typeof v === 'number' ? v : 0);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const orNone = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : '<none>');

/** labels.FormatLabels: `k=v` sorted by key, comma-joined; `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  if (!labels || typeof labels !== 'object') return '<none>';
  const pairs = Object.keys(labels as Record<string, string>)
    .sort()
    .map((k) => `${k}=${(labels as Record<string, string>)[k]}`);
  return pairs.length > 0 ? pairs.join(',') : '<none>';
}

/** metav1.LabelSelectorAsSelector(...).String(): requirements sorted by key; `''` for everything. */
export function selectorString(selector: Obj): string {
  if (!selector || typeof selector !== 'object') return '';
  const reqs: { key: string; text: string }[] = [];
  for (const [key, value] of Object.entries((selector.matchLabels ?? {}) as Record<string, string>)) {
    reqs.push({ key, text: `${key}=${value}` });
  }
  for (const e of list(selector.matchExpressions)) {
    const key = str(e.key);
    const values = [...list(e.values)].map(String).sort().join(',');
    const text =
      e.operator === 'In'
        ? `${key} in (${values})`
        : e.operator === 'NotIn'
          ? `${key} notin (${values})`
          : e.operator === 'Exists'
            ? key
            : `!${key}`;
    reqs.push({ key, text });
  }
  // labels.internalSelector sorts requirements by key (stable for equal keys).
  return reqs
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(',');
}

/** metav1.FormatLabelSelector: as selectorString, `<none>` for an empty one. */
export function formatLabelSelector(selector: Obj): string {
  const s = selectorString(selector);
  return s === '' ? '<none>' : s;
}

/** layoutContainerCells: the names and the images of a pod spec's containers, comma-joined. */
export function containerCells(podSpec: Obj): [string, string] {
  const containers = list(podSpec?.containers);
  return [containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(',')];
}

/** printBoolPtr: `<unset>` for a missing boolean, else `True` / `False`. */
export function boolPtr(v: unknown): string {
  if (typeof v !== 'boolean') return '<unset>';
  return v ? 'True' : 'False';
}

/** A `k8s.io/apimachinery` IntOrString as the printers show it. */
export function intOrString(v: unknown): string {
  return typeof v === 'number' ? String(v) : str(v);
}

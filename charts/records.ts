/** Map helpers that keep output byte-identical whatever order the input's keys came in. */

/** A copy of `record` with its keys in sorted (UTF-16 code unit) order. */
export function sortRecord<T>(record: Record<string, T>): Record<string, T> {
  const sorted: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) sorted[key] = record[key]!;
  return sorted;
}

/**
 * `base` merged over `extra` (base wins), keys sorted: user labels and annotations are added but
 * never replace what the chart itself sets.
 */
export function mergeUnder(
  base: Record<string, string>,
  extra: Record<string, string>,
): Record<string, string> {
  return sortRecord({ ...extra, ...base });
}

/** Distinct items in first-seen order. */
export function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

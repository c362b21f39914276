/** Kubernetes resource quantities (`250m`, `1.5`, `512Mi`, `1e3`): syntax and numeric value. */

export const QUANTITY = /^(\d+(\.\d*)?|\.\d+)(([eE][+-]?\d+)|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?$/;

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The quantity's value as a number (precise enough to compare requests with limits), or undefined. */
export function quantityValue(text: string): number | undefined {
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[4]) return base * 10 ** Number(m[4].slice(1));
  return base * SUFFIX[m[3] ?? '']!;
}

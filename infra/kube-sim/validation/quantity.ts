/**
 * resource.Quantity values, parsed far enough to compare and sign-check them
 * (k8s.io/apimachinery/pkg/api/resource). Serialization stays as the client wrote it.
 */

const SUFFIXES: Record<string, number> = {
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

const QUANTITY_RE =
  /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

/** The quantity's value, or undefined when it does not parse (decoding would have rejected it). */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const match = QUANTITY_RE.exec(value.trim());
  if (!match) return undefined;
  const base = Number(match[1]);
  const suffix = match[2] ?? '';
  if (suffix.startsWith('e') || suffix.startsWith('E')) return base * 10 ** Number(suffix.slice(1));
  const scale = SUFFIXES[suffix];
  return scale === undefined ? undefined : base * scale;
}

/** Quantity.String() as far as kube-sim keeps it: the text the client sent. */
export function quantityText(value: unknown): string {
  return typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
}

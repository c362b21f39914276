/**
 * Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource, resource.Quantity and
 * ParseQuantity): `<signedNumber><suffix>`, the suffix being a binary SI one (Ki … Ei), a decimal
 * SI one (n u m "" k M G T P E) or a decimal exponent (`e3`, `E-2`). Values are JavaScript numbers:
 * exact for the integers and milli-values longshore writes, and close enough (see sameQuantity)
 * to compare what the API server canonicalises (`0.5` is stored as `500m`).
 *
 * Also the narrower forms longshore accepts from a person (byteQuantity, cpuQuantity): a positive
 * size or CPU amount, without exponents or signs nobody means on purpose.
 */
import { z } from 'zod';

const QUANTITY =
  /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

const SCALE: Record<string, number> = {
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

/** The value of a quantity written as text (`500m` → 0.5, `1Gi` → 1073741824), or undefined. */
export function parseQuantity(text: string): number | undefined {
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  return base * SCALE[m[3] ?? '']!;
}

export const isQuantity = (text: string): boolean => parseQuantity(text) !== undefined;

/**
 * The value of a quantity as it appears in an object: JSON numbers are quantities too (`cpu: 2`),
 * anything that is neither a number nor a quantity string is undefined.
 */
export function quantityValue(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  return typeof value === 'string' ? parseQuantity(value) : undefined;
}

/**
 * Whether two quantities have the same value (`0.5` and `500m`, `1024Mi` and `1Gi`). The relative
 * tolerance absorbs floating-point rounding of suffix arithmetic; two unreadable values are not
 * the same.
 */
export function sameQuantity(a: unknown, b: unknown): boolean {
  const x = quantityValue(a);
  const y = quantityValue(b);
  if (x === undefined || y === undefined) return false;
  return Math.abs(x - y) <= Math.abs(x) * 1e-12;
}

/** Negative, zero or positive as `a` is below, equal to or above `b`; undefined if either is unreadable. */
export function compareQuantities(a: unknown, b: unknown): number | undefined {
  const x = quantityValue(a);
  const y = quantityValue(b);
  if (x === undefined || y === undefined) return undefined;
  return sameQuantity(x, y) ? 0 : Math.sign(x - y);
}

export const QUANTITY_MESSAGE = 'must be a Kubernetes quantity such as 250m, 1.5, 512Mi or 1Gi';

/** A container resource (request or limit): any quantity that is not negative. */
export const resourceQuantity = z.string().refine((text) => {
  const value = parseQuantity(text);
  return value !== undefined && value >= 0;
}, QUANTITY_MESSAGE);

/** Unreadable text is told the shape it must have, not also that it is not positive. */
function positiveOrUnreadable(text: string): boolean {
  const value = parseQuantity(text);
  return value === undefined || value > 0;
}

/** A size a person gives for storage or memory (`512Mi`, `10Gi`, `1G`): positive, no exponent. */
export const byteQuantity = z
  .string()
  .regex(
    /^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/,
    'must be a Kubernetes quantity such as 512Mi or 10Gi',
  )
  .refine(positiveOrUnreadable, 'must be greater than zero');

/** A CPU amount a person gives (`250m`, `1.5`): positive, whole millicores. */
export const cpuQuantity = z
  .string()
  .regex(/^([0-9]+m|[0-9]+(\.[0-9]{1,3})?)$/, 'must be a CPU quantity such as 250m or 1.5')
  .refine(positiveOrUnreadable, 'must be greater than zero');

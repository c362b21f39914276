/**
 * resource.Quantity values, parsed far enough to compare and sign-check them
 * (k8s.io/apimachinery/pkg/api/resource). The grammar and the arithmetic are rules/quantities.ts,
 * shared with the charts and drift detection; serialization stays as the client wrote it.
 */
import { parseQuantity as parseQuantityText } from '../../../rules/quantities.ts';

/**
 * The quantity's value, or undefined when it does not parse (decoding would have rejected it).
 * Quantity.UnmarshalJSON trims blanks around the string before parsing it.
 */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  return parseQuantityText(value.trim());
}

/** Quantity.String() as far as kube-sim keeps it: the text the client sent. */
export function quantityText(value: unknown): string {
  return typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
}

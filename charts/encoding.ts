/**
 * UTF-8 sizes and base64, as Secrets count and store them. Uses the global Buffer, so charts need
 * no import beyond zod, node:crypto and rules/.
 */

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** Thousands separators for byte counts in messages (`1,048,576`), locale-independent. */
export function formatBytes(bytes: number): string {
  return String(bytes).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

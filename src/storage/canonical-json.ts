/**
 * Canonical JSON: object keys sorted (by UTF-16 code units, as Array.prototype.sort), no
 * whitespace, everything else as JSON.stringify writes it (undefined properties dropped, toJSON
 * honoured, non-finite numbers as null). Equal values give equal text, so digests of it identify
 * content regardless of the order a chart happened to build an object in.
 */

export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

function write(value: unknown, out: string[]): void {
  const v = toJsonValue(value);
  if (v === null || typeof v !== 'object') {
    // Primitives (and undefined at the top level, which JSON.stringify turns into undefined).
    out.push(JSON.stringify(v) ?? 'null');
    return;
  }
  if (Array.isArray(v)) {
    out.push('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(',');
      const item = toJsonValue(v[i]);
      // As JSON.stringify: an array keeps its length, so holes and functions become null.
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') out.push('null');
      else write(item, out);
    }
    out.push(']');
    return;
  }
  const record = v as Record<string, unknown>;
  let first = true;
  out.push('{');
  for (const key of Object.keys(record).sort()) {
    const item = toJsonValue(record[key]);
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    write(item, out);
  }
  out.push('}');
}

function toJsonValue(value: unknown): unknown {
  if (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    return (value as { toJSON(): unknown }).toJSON();
  }
  if (typeof value === 'bigint') throw new TypeError('canonical JSON cannot encode a BigInt');
  return value;
}

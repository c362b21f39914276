/**
 * Secret `stringData` is write-only: the v1 → internal conversion merges it into `data`
 * (base64, overwriting keys) and it is never stored or returned (core/v1 conversion.go).
 */
import { isPlainObject, type KubeObject } from '../types.ts';

export function foldStringData(object: KubeObject): void {
  if (object.kind !== 'Secret' || !isPlainObject(object.stringData)) {
    if (object.kind === 'Secret') delete object.stringData;
    return;
  }
  const data = isPlainObject(object.data) ? { ...object.data } : {};
  for (const [key, value] of Object.entries(object.stringData)) {
    data[key] = Buffer.from(String(value), 'utf8').toString('base64');
  }
  object.data = data;
  delete object.stringData;
}

/**
 * ConfigMaps (pkg/apis/core/validation ValidateConfigMap, ValidateConfigMapUpdate). The size
 * error is reported on the unnamed root path `[]`, as upstream's field.NewPath("") prints.
 */
import type { FieldError } from '../errors.ts';
import { bool, byteLength, objOrEmpty, stringMap } from './access.ts';
import { semanticEqual } from './equality.ts';
import { forbidden, invalid, key, ROOT, tooLong } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { isConfigMapKey, nameIsDNSSubdomain } from './names.ts';
import { MAX_SECRET_SIZE } from './secret.ts';

const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

/** ValidateConfigMap. */
export function validateConfigMap(cm: unknown): FieldError[] {
  const c = objOrEmpty(cm);
  const errs = validateObjectMeta(cm, { namespaced: true, nameFn: nameIsDNSSubdomain });
  const data = stringMap(c.data);
  const binaryData = stringMap(c.binaryData);
  let total = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const msg of isConfigMapKey(k)) errs.push(invalid(key('data', k), k, msg));
    if (Object.hasOwn(binaryData, k))
      errs.push(invalid(key('data', k), k, 'duplicate of key present in binaryData'));
    total += byteLength(v);
  }
  for (const [k, v] of Object.entries(binaryData)) {
    for (const msg of isConfigMapKey(k)) errs.push(invalid(key('binaryData', k), k, msg));
    total += Buffer.from(v, 'base64').length;
  }
  if (total > MAX_SECRET_SIZE) errs.push(tooLong(ROOT, MAX_SECRET_SIZE));
  return errs;
}

/** ValidateConfigMapUpdate. */
export function validateConfigMapUpdate(cm: unknown, old: unknown): FieldError[] {
  const c = objOrEmpty(cm);
  const o = objOrEmpty(old);
  const errs = validateObjectMetaUpdate(cm, old);
  if (bool(o.immutable) === true) {
    if (bool(c.immutable) !== true) errs.push(forbidden('immutable', IMMUTABLE_WHEN_SET));
    if (!semanticEqual(c.data, o.data)) errs.push(forbidden('data', IMMUTABLE_WHEN_SET));
    if (!semanticEqual(c.binaryData, o.binaryData)) errs.push(forbidden('binaryData', IMMUTABLE_WHEN_SET));
  }
  errs.push(...validateConfigMap(cm));
  return errs;
}

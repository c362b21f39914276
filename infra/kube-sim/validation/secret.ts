/**
 * Secrets (pkg/apis/core/validation ValidateSecret, ValidateSecretUpdate). Upstream validates
 * after stringData has been folded into data (v1 → internal conversion), so this does the same.
 */
import type { FieldError } from '../errors.ts';
import { bool, objOrEmpty, str, stringMap } from './access.ts';
import { semanticEqual } from './equality.ts';
import { forbidden, invalid, key, required, tooLong } from './field.ts';
import { goJSONError } from './json-error.ts';
import { validateImmutable, validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { isConfigMapKey, nameIsDNSSubdomain } from './names.ts';

/** core.MaxSecretSize. */
export const MAX_SECRET_SIZE = 1024 * 1024;
const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

/** The secret's data as bytes per key: base64 `data` overlaid with UTF-8 `stringData`. */
export function secretData(secret: unknown): Map<string, Buffer> {
  const s = objOrEmpty(secret);
  const out = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(stringMap(s.data))) out.set(k, Buffer.from(v, 'base64'));
  for (const [k, v] of Object.entries(stringMap(s.stringData))) out.set(k, Buffer.from(v, 'utf8'));
  return out;
}

/** ValidateSecret. */
export function validateSecret(secret: unknown): FieldError[] {
  const s = objOrEmpty(secret);
  const errs = validateObjectMeta(secret, { namespaced: true, nameFn: nameIsDNSSubdomain });
  const data = secretData(secret);
  let total = 0;
  for (const [k, v] of data) {
    for (const msg of isConfigMapKey(k)) errs.push(invalid(key('data', k), k, msg));
    total += v.length;
  }
  if (total > MAX_SECRET_SIZE) errs.push(tooLong('data', MAX_SECRET_SIZE));
  const annotations = stringMap(objOrEmpty(s.metadata).annotations);
  const requireJSON = (dataKey: string): void => {
    const bytes = data.get(dataKey);
    if (!bytes) {
      errs.push(required(key('data', dataKey)));
      return;
    }
    const message = goJSONError(bytes.toString('utf8'));
    if (message) errs.push(invalid(key('data', dataKey), '<secret contents redacted>', message));
  };
  switch (str(s.type)) {
    case 'kubernetes.io/service-account-token':
      if (!annotations['kubernetes.io/service-account.name']) {
        errs.push(required(key('metadata.annotations', 'kubernetes.io/service-account.name')));
      }
      break;
    case 'kubernetes.io/dockercfg':
      requireJSON('.dockercfg');
      break;
    case 'kubernetes.io/dockerconfigjson':
      requireJSON('.dockerconfigjson');
      break;
    case 'kubernetes.io/basic-auth':
      if (!data.has('username') && !data.has('password')) {
        errs.push(required(key('data', 'username')), required(key('data', 'password')));
      }
      break;
    case 'kubernetes.io/ssh-auth':
      if ((data.get('ssh-privatekey')?.length ?? 0) === 0) errs.push(required(key('data', 'ssh-privatekey')));
      break;
    case 'kubernetes.io/tls':
      if (!data.has('tls.crt')) errs.push(required(key('data', 'tls.crt')));
      if (!data.has('tls.key')) errs.push(required(key('data', 'tls.key')));
      break;
    default:
      break;
  }
  return errs;
}

function dataAsBase64(secret: unknown): Record<string, string> {
  return Object.fromEntries([...secretData(secret)].map(([k, v]) => [k, v.toString('base64')]));
}

/** ValidateSecretUpdate: type is immutable; an immutable Secret keeps its data and stays immutable. */
export function validateSecretUpdate(secret: unknown, old: unknown): FieldError[] {
  const s = objOrEmpty(secret);
  const o = objOrEmpty(old);
  const errs = validateObjectMetaUpdate(secret, old);
  errs.push(...validateImmutable(str(s.type), str(o.type), 'type'));
  if (bool(o.immutable) === true) {
    if (bool(s.immutable) !== true) errs.push(forbidden('immutable', IMMUTABLE_WHEN_SET));
    if (!semanticEqual(dataAsBase64(secret), dataAsBase64(old)))
      errs.push(forbidden('data', IMMUTABLE_WHEN_SET));
  }
  errs.push(...validateSecret(secret));
  return errs;
}

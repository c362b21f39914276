/**
 * storage.k8s.io/v1 StorageClasses (pkg/apis/storage/validation ValidateStorageClass,
 * ValidateStorageClassUpdate).
 */
import type { FieldError } from '../errors.ts';
import { byteLength, type JsonObject, objOrEmpty, str, stringMap } from './access.ts';
import { semanticEqual } from './equality.ts';
import { forbidden, invalid, notSupported, required, tooLong } from './field.ts';
import { validateImmutable, validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { isQualifiedName, nameIsDNSSubdomain } from './names.ts';

const MAX_PARAMETER_SIZE = 256 * 1024;
const MAX_PARAMETER_COUNT = 512;
const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];

function classOf(sc: unknown): JsonObject {
  return objOrEmpty(sc);
}

/** validateParameters (empty parameters are allowed for StorageClasses). */
function validateParameters(params: Record<string, string>): FieldError[] {
  const entries = Object.entries(params);
  if (entries.length > MAX_PARAMETER_COUNT) return [tooLong('parameters', MAX_PARAMETER_COUNT)];
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of entries) {
    if (k.length < 1) errs.push(invalid('parameters', k, 'field can not be empty.'));
    total += byteLength(k) + byteLength(v);
  }
  if (total > MAX_PARAMETER_SIZE) errs.push(tooLong('parameters', MAX_PARAMETER_SIZE));
  return errs;
}

/** ValidateStorageClass. */
export function validateStorageClass(sc: unknown): FieldError[] {
  const c = classOf(sc);
  const errs = validateObjectMeta(sc, { namespaced: false, nameFn: nameIsDNSSubdomain });
  const provisioner = str(c.provisioner);
  if (provisioner.length === 0) errs.push(required('provisioner'));
  else
    errs.push(
      ...isQualifiedName(provisioner.toLowerCase()).map((msg) =>
        invalid('provisioner', provisioner.toLowerCase(), msg),
      ),
    );
  errs.push(...validateParameters(stringMap(c.parameters)));
  const reclaimPolicy = str(c.reclaimPolicy);
  if (reclaimPolicy.length > 0 && !RECLAIM_POLICIES.includes(reclaimPolicy)) {
    errs.push(notSupported('reclaimPolicy', reclaimPolicy, RECLAIM_POLICIES));
  }
  const mode = c.volumeBindingMode;
  if (typeof mode !== 'string') errs.push(required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(mode)) errs.push(notSupported('volumeBindingMode', mode, BINDING_MODES));
  return errs;
}

/** ValidateStorageClassUpdate (after ValidateStorageClass, as the strategy calls both). */
export function validateStorageClassUpdate(sc: unknown, old: unknown): FieldError[] {
  const c = classOf(sc);
  const o = classOf(old);
  const errs = [...validateStorageClass(sc), ...validateObjectMetaUpdate(sc, old)];
  if (!semanticEqual(c.parameters, o.parameters))
    errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (str(c.provisioner) !== str(o.provisioner))
    errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (str(c.reclaimPolicy) !== str(o.reclaimPolicy))
    errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  errs.push(...validateImmutable(c.volumeBindingMode, o.volumeBindingMode, 'volumeBindingMode'));
  return errs;
}

/**
 * Namespaces (pkg/apis/core/validation ValidateNamespace, ValidateNamespaceUpdate,
 * ValidateNamespaceStatusUpdate). Names are DNS-1123 labels; spec.finalizers are reported on the
 * list's own path, without an index, as upstream does.
 */
import type { FieldError } from '../errors.ts';
import { list, objOrEmpty, str } from './access.ts';
import { invalid } from './field.ts';
import { validateKubeFinalizerName, validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { isQualifiedName, nameIsDNSLabel } from './names.ts';

export function validateNamespace(ns: unknown): FieldError[] {
  const errs = validateObjectMeta(ns, { namespaced: false, nameFn: nameIsDNSLabel });
  for (const raw of list(objOrEmpty(objOrEmpty(ns).spec).finalizers)) {
    const finalizer = str(raw);
    errs.push(...isQualifiedName(finalizer).map((msg) => invalid('spec.finalizers', finalizer, msg)));
    errs.push(...validateKubeFinalizerName(finalizer, 'spec.finalizers'));
  }
  return errs;
}

/** The strategy runs ValidateNamespace, then ValidateNamespaceUpdate (metadata only). */
export function validateNamespaceUpdate(ns: unknown, old: unknown): FieldError[] {
  return [...validateNamespace(ns), ...validateObjectMetaUpdate(ns, old)];
}

/** ValidateNamespaceStatusUpdate: the phase follows deletionTimestamp. */
export function validateNamespaceStatusUpdate(ns: unknown, old: unknown): FieldError[] {
  const errs = validateObjectMetaUpdate(ns, old);
  const phase = str(objOrEmpty(objOrEmpty(ns).status).phase);
  const deleting = str(objOrEmpty(objOrEmpty(ns).metadata).deletionTimestamp) !== '';
  if (!deleting && phase !== 'Active') {
    errs.push(invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty"));
  } else if (deleting && phase !== 'Terminating') {
    errs.push(
      invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"),
    );
  }
  return errs;
}

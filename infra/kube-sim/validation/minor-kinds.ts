/**
 * The kinds with little to check: ServiceAccounts (metadata only) and Leases
 * (pkg/apis/coordination/validation ValidateLease). Events are in events.ts.
 */
import type { FieldError } from '../errors.ts';
import { num, objOrEmpty, str } from './access.ts';
import { invalid } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { nameIsDNSSubdomain } from './names.ts';

export function validateServiceAccount(sa: unknown): FieldError[] {
  return validateObjectMeta(sa, { namespaced: true, nameFn: nameIsDNSSubdomain });
}

export function validateServiceAccountUpdate(sa: unknown, old: unknown): FieldError[] {
  return [...validateObjectMetaUpdate(sa, old), ...validateServiceAccount(sa)];
}

export function validateLease(lease: unknown): FieldError[] {
  const errs = validateObjectMeta(lease, { namespaced: true, nameFn: nameIsDNSSubdomain });
  const spec = objOrEmpty(objOrEmpty(lease).spec);
  const duration = num(spec.leaseDurationSeconds);
  if (duration !== undefined && duration <= 0)
    errs.push(invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = num(spec.leaseTransitions);
  if (transitions !== undefined && transitions < 0) {
    errs.push(invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  }
  const preferred = str(spec.preferredHolder);
  if (preferred !== '' && str(spec.strategy) === '') {
    errs.push({
      type: 'FieldValueForbidden',
      field: 'spec.preferredHolder',
      detail: 'may only be specified if `strategy` is defined',
    });
  }
  return errs;
}

export function validateLeaseUpdate(lease: unknown, old: unknown): FieldError[] {
  return [...validateObjectMetaUpdate(lease, old), ...validateLease(lease)];
}

/**
 * The kinds with little to check: ServiceAccounts (metadata only), Leases
 * (pkg/apis/coordination/validation ValidateLease) and core/v1 Events
 * (pkg/apis/core/validation ValidateEventCreate/Update, the legacy-event rules).
 */
import type { FieldError } from '../errors.ts';
import { byteLength, num, objOrEmpty, str } from './access.ts';
import { invalid, required } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from './names.ts';

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

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

/** legacyValidateEvent for v1 requests, after ValidateObjectMeta. */
export function validateEvent(event: unknown): FieldError[] {
  const e = objOrEmpty(event);
  const errs = validateObjectMeta(event, { namespaced: true, nameFn: nameIsDNSSubdomain });
  const namespace = str(objOrEmpty(e.metadata).namespace);
  const involvedNamespace = str(objOrEmpty(e.involvedObject).namespace);
  if (str(e.eventTime) === '') {
    const mismatch =
      involvedNamespace.length === 0
        ? namespace !== '' && namespace !== 'default'
        : namespace !== involvedNamespace;
    if (mismatch)
      errs.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
  } else {
    if (involvedNamespace.length === 0 && namespace !== 'default' && namespace !== 'kube-system') {
      errs.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    }
    const controller = str(e.reportingComponent);
    if (controller.length === 0) errs.push(required('reportingComponent'));
    errs.push(...isQualifiedName(controller).map((msg) => invalid('reportingComponent', controller, msg)));
    const instance = str(e.reportingInstance);
    if (instance.length === 0) errs.push(required('reportingInstance'));
    if (byteLength(instance) > REPORTING_INSTANCE_LIMIT) {
      errs.push(invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LIMIT} characters`));
    }
    const action = str(e.action);
    if (action.length === 0) errs.push(required('action'));
    if (byteLength(action) > ACTION_LIMIT)
      errs.push(invalid('action', '', `can have at most ${ACTION_LIMIT} characters`));
    const reason = str(e.reason);
    if (reason.length === 0) errs.push(required('reason'));
    if (byteLength(reason) > REASON_LIMIT)
      errs.push(invalid('reason', '', `can have at most ${REASON_LIMIT} characters`));
    if (byteLength(str(e.message)) > NOTE_LIMIT)
      errs.push(invalid('message', '', `can have at most ${NOTE_LIMIT} characters`));
  }
  errs.push(...isDNS1123Subdomain(namespace).map((msg) => invalid('namespace', namespace, msg)));
  return errs;
}

/**
 * ValidateEventUpdate returns nothing for core/v1 requests ("we didn't validate events updates"):
 * only the metadata rules every update gets apply.
 */
export function validateEventUpdate(event: unknown, old: unknown): FieldError[] {
  return validateObjectMetaUpdate(event, old);
}

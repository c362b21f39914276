/**
 * Pods (pkg/apis/core/validation ValidatePodCreate, ValidatePodUpdate, ValidatePodStatusUpdate).
 */
import type { FieldError } from '../errors.ts';
import { clone } from '../types.ts';
import { type JsonObject, list, num, obj, objOrEmpty, str } from './access.ts';
import { validateImageWhitespace } from './containers.ts';
import { describeDiff, semanticEqual } from './equality.ts';
import { child, forbidden, index, invalid, type Path, required } from './field.ts';
import { validateImmutable, validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { inclusiveRangeError, isQualifiedName, nameIsDNSSubdomain } from './names.ts';
import { validatePodSpec, validateTolerations } from './podspec.ts';

const MAX_INT32 = 2147483647;

const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

function specOf(pod: unknown): JsonObject {
  return objOrEmpty(objOrEmpty(pod).spec);
}

/** validatePodMetadataAndSpec. */
function validatePodMetadataAndSpec(pod: unknown): FieldError[] {
  const spec = specOf(pod);
  const errs = validateObjectMeta(pod, { namespaced: true, nameFn: nameIsDNSSubdomain });
  errs.push(...validatePodSpec(spec, 'spec', { isPod: true }));
  if (str(spec.serviceAccountName) === '') {
    list(spec.volumes).forEach((raw, vi) => {
      const projected = obj(objOrEmpty(raw).projected);
      if (!projected) return;
      list(projected.sources).forEach((source, si) => {
        if (obj(objOrEmpty(source).serviceAccountToken)) {
          const p = child(
            index(child(index('spec.volumes', vi), 'projected', 'sources'), si),
            'serviceAccountToken',
          );
          errs.push(forbidden(p, 'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  errs.push(...validateImageWhitespace(spec.containers, 'spec.containers'));
  errs.push(...validateImageWhitespace(spec.initContainers, 'spec.initContainers'));
  return errs;
}

export function validatePodCreate(pod: unknown): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod);
  const spec = specOf(pod);
  if (list(spec.ephemeralContainers).length > 0)
    errs.push(forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (str(spec.nodeName) !== '' && list(spec.schedulingGates).length > 0) {
    errs.push(forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

/** ValidateContainerUpdates: same number of containers; images still set. */
function validateContainerUpdates(
  next: unknown,
  old: unknown,
  path: Path,
): { errors: FieldError[]; stop: boolean } {
  const containers = list(next).map(objOrEmpty);
  if (containers.length !== list(old).length) {
    return { errors: [forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  }
  const errors: FieldError[] = [];
  containers.forEach((c, i) => {
    const image = str(c.image);
    if (image.length === 0) errors.push(required(child(index(path, i), 'image')));
    if (image.trim().length !== image.length) {
      errors.push(
        invalid(child(index(path, i), 'image'), image, 'must not have leading or trailing whitespace'),
      );
    }
  });
  return { errors, stop: false };
}

/** Tolerations may be added, and existing ones may only change tolerationSeconds. */
function validateOnlyAddedTolerations(next: unknown, old: unknown, path: Path): FieldError[] {
  const added = list(next).map(objOrEmpty);
  for (const oldRaw of list(old)) {
    const { tolerationSeconds: _ignored, ...oldRest } = objOrEmpty(oldRaw);
    const found = added.some((t) => {
      const { tolerationSeconds: _s, ...rest } = t;
      return semanticEqual(rest, oldRest);
    });
    if (!found)
      return [forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(next, path);
}

/** ValidatePodUpdate: everything but a few fields of a pod spec is immutable. */
export function validatePodUpdate(pod: unknown, old: unknown): FieldError[] {
  const errs = [...validateObjectMetaUpdate(pod, old), ...validatePodMetadataAndSpec(pod)];
  const spec = specOf(pod);
  const oldSpec = specOf(old);
  for (const f of ['containers', 'initContainers']) {
    const { errors, stop } = validateContainerUpdates(spec[f], oldSpec[f], child('spec', f));
    errs.push(...errors);
    if (stop) return errs;
  }
  const deadline = num(spec.activeDeadlineSeconds);
  const oldDeadline = num(oldSpec.activeDeadlineSeconds);
  if (deadline !== undefined) {
    if (deadline < 0 || deadline > MAX_INT32) {
      errs.push(invalid('spec.activeDeadlineSeconds', deadline, inclusiveRangeError(0, MAX_INT32)));
      return errs;
    }
    if (oldDeadline !== undefined && oldDeadline < deadline) {
      errs.push(
        invalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value'),
      );
      return errs;
    }
  } else if (oldDeadline !== undefined) {
    errs.push(
      invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'),
    );
  }
  errs.push(...validateOnlyAddedTolerations(spec.tolerations, oldSpec.tolerations, 'spec.tolerations'));
  const oldGates = new Set(list(oldSpec.schedulingGates).map((g) => str(objOrEmpty(g).name)));
  list(spec.schedulingGates).forEach((g, i) => {
    const name = str(objOrEmpty(g).name);
    if (!oldGates.has(name)) {
      errs.push(
        forbidden(
          child(index('spec.schedulingGates', i), 'name'),
          `only deletion is allowed, but found new scheduling gate '${name}'`,
        ),
      );
    }
  });
  if (semanticEqual(spec, oldSpec)) return errs;
  // Munge the fields that may change to their old values, then require the rest to be equal.
  const munged: JsonObject = clone(spec);
  for (const f of ['containers', 'initContainers']) {
    const oldList = list(oldSpec[f]);
    if (Array.isArray(munged[f])) {
      munged[f] = list(munged[f]).map((c, i) => ({ ...objOrEmpty(c), image: objOrEmpty(oldList[i]).image }));
    }
  }
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  munged.schedulingGates = oldSpec.schedulingGates;
  munged.tolerations = oldSpec.tolerations;
  const oldGrace = num(oldSpec.terminationGracePeriodSeconds);
  if (oldGrace !== undefined && oldGrace < 0 && num(munged.terminationGracePeriodSeconds) === 1) {
    munged.terminationGracePeriodSeconds = oldGrace;
  }
  if (!semanticEqual(munged, oldSpec)) {
    const detail = `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${describeDiff('core.PodSpec', oldSpec, munged)}`;
    errs.push(forbidden('spec', detail));
  }
  return errs;
}

/** ValidatePodStatusUpdate, for what a /status write can get wrong. */
export function validatePodStatusUpdate(pod: unknown, old: unknown): FieldError[] {
  const errs = validateObjectMetaUpdate(pod, old);
  const status = objOrEmpty(objOrEmpty(pod).status);
  const oldStatus = objOrEmpty(objOrEmpty(old).status);
  const system = ['PodScheduled', 'Ready', 'Initialized'];
  list(status.conditions).forEach((raw, i) => {
    const type = str(objOrEmpty(raw).type);
    if (system.includes(type)) return;
    const p = child(index('metadata.conditions', i), 'Type');
    errs.push(...isQualifiedName(type).map((msg) => invalid(p, type, msg)));
  });
  if (str(specOf(pod).nodeName) !== str(specOf(old).nodeName)) {
    errs.push(forbidden('status.nodeName', 'may not be changed directly'));
  }
  const nominated = str(status.nominatedNodeName);
  if (nominated !== str(oldStatus.nominatedNodeName) && nominated.length > 0) {
    errs.push(
      ...nameIsDNSSubdomain(nominated, false).map((msg) =>
        invalid('status.nominatedNodeName', nominated, msg),
      ),
    );
  }
  if (oldStatus.qosClass !== undefined)
    errs.push(...validateImmutable(status.qosClass, oldStatus.qosClass, 'status.qosClass'));
  return errs;
}

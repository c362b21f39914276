/**
 * rbac.authorization.k8s.io/v1 validation (pkg/apis/rbac/validation/validation.go): names are path
 * segments (ValidateRBACName), rules need verbs and either resources with API groups or (cluster
 * roles only) non-resource URLs, bindings need a valid roleRef and subjects, and a binding's
 * roleRef cannot change (ValidateRoleBindingUpdate: "cannot change roleRef").
 */
import type { FieldError } from '../errors.ts';
import { list, objOrEmpty, str } from './access.ts';
import { invalid, notSupported, required } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { isDNS1123Subdomain, type NameValidator } from './names.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** path.IsValidPathSegmentName (apimachinery/pkg/api/validation/path). */
export const nameIsPathSegment: NameValidator = (name, prefix) => {
  const errs: string[] = [];
  if (!prefix && (name === '.' || name === '..')) errs.push(`may not be '${name}'`);
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
};

function validateRule(rule: unknown, namespaced: boolean, path: string): FieldError[] {
  const r = objOrEmpty(rule);
  const errs: FieldError[] = [];
  if (list(r.verbs).length === 0)
    errs.push(required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = list(r.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced)
      errs.push(
        invalid(`${path}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'),
      );
    if (list(r.apiGroups).length > 0 || list(r.resources).length > 0 || list(r.resourceNames).length > 0)
      errs.push(
        invalid(
          `${path}.nonResourceURLs`,
          urls,
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    return errs;
  }
  if (list(r.apiGroups).length === 0)
    errs.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (list(r.resources).length === 0)
    errs.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRoleKind(role: unknown, namespaced: boolean): FieldError[] {
  const errs = validateObjectMeta(role, { namespaced, nameFn: nameIsPathSegment });
  const o = objOrEmpty(role);
  for (const [i, rule] of list(o.rules).entries())
    errs.push(...validateRule(rule, namespaced, `rules[${i}]`));
  if (!namespaced && o.aggregationRule !== undefined && o.aggregationRule !== null) {
    if (list(objOrEmpty(o.aggregationRule).clusterRoleSelectors).length === 0)
      errs.push(
        required(
          'aggregationRule.clusterRoleSelectors',
          'at least one clusterRoleSelector required if aggregationRule is non-nil',
        ),
      );
  }
  return errs;
}

function validateSubject(subject: unknown, namespaced: boolean, path: string): FieldError[] {
  const s = objOrEmpty(subject);
  const errs: FieldError[] = [];
  const name = str(s.name);
  if (name === '') errs.push(required(`${path}.name`));
  switch (str(s.kind)) {
    case 'ServiceAccount':
      if (name !== '')
        for (const msg of isDNS1123Subdomain(name)) errs.push(invalid(`${path}.name`, name, msg));
      if (str(s.apiGroup) !== '') errs.push(notSupported(`${path}.apiGroup`, str(s.apiGroup), ['']));
      if (!namespaced && str(s.namespace) === '') errs.push(required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (str(s.apiGroup) !== RBAC_GROUP)
        errs.push(notSupported(`${path}.apiGroup`, str(s.apiGroup), [RBAC_GROUP]));
      break;
    default:
      errs.push(notSupported(`${path}.kind`, str(s.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBindingKind(binding: unknown, namespaced: boolean): FieldError[] {
  const errs = validateObjectMeta(binding, { namespaced, nameFn: nameIsPathSegment });
  const o = objOrEmpty(binding);
  const ref = objOrEmpty(o.roleRef);
  if (str(ref.apiGroup) !== RBAC_GROUP)
    errs.push(notSupported('roleRef.apiGroup', str(ref.apiGroup), [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(str(ref.kind))) errs.push(notSupported('roleRef.kind', str(ref.kind), kinds));
  if (str(ref.name) === '') errs.push(required('roleRef.name'));
  else
    for (const msg of nameIsPathSegment(str(ref.name), false))
      errs.push(invalid('roleRef.name', str(ref.name), msg));
  for (const [i, s] of list(o.subjects).entries())
    errs.push(...validateSubject(s, namespaced, `subjects[${i}]`));
  return errs;
}

function roleRefUnchanged(binding: unknown, old: unknown): FieldError[] {
  const now = objOrEmpty(objOrEmpty(binding).roleRef);
  const before = objOrEmpty(objOrEmpty(old).roleRef);
  const same = ['apiGroup', 'kind', 'name'].every((k) => str(now[k]) === str(before[k]));
  return same ? [] : [invalid('roleRef', now, 'cannot change roleRef')];
}

export const validateRole = (o: unknown) => validateRoleKind(o, true);
export const validateRoleUpdate = (o: unknown, old: unknown) => [
  ...validateObjectMetaUpdate(o, old),
  ...validateRole(o),
];
export const validateClusterRole = (o: unknown) => validateRoleKind(o, false);
export const validateClusterRoleUpdate = (o: unknown, old: unknown) => [
  ...validateObjectMetaUpdate(o, old),
  ...validateClusterRole(o),
];
export const validateRoleBinding = (o: unknown) => validateBindingKind(o, true);
export const validateRoleBindingUpdate = (o: unknown, old: unknown) => [
  ...validateObjectMetaUpdate(o, old),
  ...validateRoleBinding(o),
  ...roleRefUnchanged(o, old),
];
export const validateClusterRoleBinding = (o: unknown) => validateBindingKind(o, false);
export const validateClusterRoleBindingUpdate = (o: unknown, old: unknown) => [
  ...validateObjectMetaUpdate(o, old),
  ...validateClusterRoleBinding(o),
  ...roleRefUnchanged(o, old),
];

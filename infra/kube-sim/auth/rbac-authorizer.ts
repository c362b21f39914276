/**
 * The RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go and
 * pkg/registry/rbac/validation/rule.go): a request is allowed when a rule of a role bound to its
 * user allows it. ClusterRoleBindings grant their ClusterRole everywhere; RoleBindings grant their
 * Role or ClusterRole inside their own namespace. In front of it, as kube-apiserver's
 * authorizer chain has it (pkg/kubeapiserver/authorizer/config.go), `system:masters` is allowed
 * everything (authorizerfactory.NewPrivilegedGroups).
 */
import type { ObjectStore } from '../store/object-store.ts';
import type { Attributes } from './attributes.ts';
import { SYSTEM_MASTERS, type UserInfo } from './user.ts';

const RBAC = 'rbac.authorization.k8s.io';
const KEYS = {
  roles: `${RBAC}/roles`,
  roleBindings: `${RBAC}/rolebindings`,
  clusterRoles: `${RBAC}/clusterroles`,
  clusterRoleBindings: `${RBAC}/clusterrolebindings`,
};

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

interface Binding {
  metadata: { namespace?: string };
  subjects?: Subject[];
  roleRef?: { kind?: string; name?: string };
}

export interface Decision {
  allowed: boolean;
  /** Why not, when a bound role could not be found (upstream's "RBAC: ..." reason). */
  reason: string;
}

const has = (list: string[] | undefined, value: string) => (list ?? []).some((v) => v === '*' || v === value);

/** rbac/v1/evaluation_helpers.go ResourceMatches: `*`, `resource/subresource`, or `*∕subresource`. */
function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  return (rule.resources ?? []).some(
    (r) => r === '*' || r === combined || (subresource !== '' && r === `*/${subresource}`),
  );
}

/** NonResourceURLMatches: exact, `*`, or a prefix ending in `*`. */
function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))),
  );
}

export function ruleAllows(a: Omit<Attributes, 'user'>, rule: PolicyRule): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) return nonResourceURLMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (!has(rule.apiGroups, a.apiGroup) || !resourceMatches(rule, combined, a.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

/** rule.go appliesToUser: User and Group by name; ServiceAccount by namespace (default: the binding's) and name. */
function appliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.username;
    case 'Group':
      return user.groups.includes(subject.name ?? '');
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && user.username === `system:serviceaccount:${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

export class RbacAuthorizer {
  constructor(private readonly store: ObjectStore) {}

  /** Every rule that applies to `user` in `namespace` ('' = cluster-wide only), and lookup errors. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    const collect = (binding: Binding, bindingNamespace: string) => {
      if (!(binding.subjects ?? []).some((s) => appliesTo(user, s, bindingNamespace))) return;
      const ref = binding.roleRef ?? {};
      const role =
        ref.kind === 'ClusterRole'
          ? this.store.get(KEYS.clusterRoles, undefined, ref.name ?? '')
          : ref.kind === 'Role' && bindingNamespace
            ? this.store.get(KEYS.roles, bindingNamespace, ref.name ?? '')
            : undefined;
      if (!role) {
        errors.push(
          ref.kind === 'ClusterRole'
            ? `clusterrole.${RBAC} "${ref.name}" not found`
            : `role.${RBAC} "${ref.name}" not found`,
        );
        return;
      }
      rules.push(...(((role as { rules?: PolicyRule[] }).rules ?? []) as PolicyRule[]));
    };
    for (const b of this.store.list(KEYS.clusterRoleBindings)) collect(b as unknown as Binding, '');
    if (namespace)
      for (const b of this.store.list(KEYS.roleBindings, namespace))
        collect(b as unknown as Binding, namespace);
    return { rules, errors };
  }

  authorize(a: Attributes): Decision {
    if (a.user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
    const { rules, errors } = this.rulesFor(a.user, a.resourceRequest ? a.namespace : '');
    if (rules.some((rule) => ruleAllows(a, rule))) return { allowed: true, reason: '' };
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
  }
}

/** utilerrors.NewAggregate's text: one error as is, several in brackets. */
function aggregate(errors: string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

/**
 * The bootstrap RBAC policy a fresh cluster has (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/
 * policy.go): cluster-admin, the user-facing admin/edit/view roles (a subset of upstream's rules,
 * enough for the kinds kube-sim serves), and the discovery, basic-user and public-info-viewer roles
 * bound to every authenticated (and, for public info, unauthenticated) user, so any user can do
 * discovery, `kubectl auth can-i` and `kubectl auth whoami`.
 */
import type { SimClient } from '../controllers/sim-client.ts';
import { findByKind } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import type { PolicyRule } from './rbac-authorizer.ts';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, SYSTEM_MASTERS } from './user.ts';

const RBAC_V1 = 'rbac.authorization.k8s.io/v1';
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
});

/** What `view` reads (policy.go: pods, services, configmaps, workloads, ...; never secrets). */
const VIEW_RULES: PolicyRule[] = [
  rule(
    READ,
    [''],
    [
      'configmaps',
      'endpoints',
      'persistentvolumeclaims',
      'persistentvolumeclaims/status',
      'pods',
      'pods/log',
      'pods/status',
      'replicationcontrollers',
      'services',
      'services/status',
      'serviceaccounts',
      'events',
      'limitranges',
      'resourcequotas',
      'namespaces',
      'namespaces/status',
    ],
  ),
  rule(
    READ,
    ['apps'],
    [
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'daemonsets',
    ],
  ),
  rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
  rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
  rule(READ, ['coordination.k8s.io'], ['leases']),
];

/** `edit` adds writing those, secrets, exec/attach, and impersonating ServiceAccounts' tokens. */
const EDIT_RULES: PolicyRule[] = [
  rule(
    [...READ, ...WRITE],
    [''],
    [
      'configmaps',
      'endpoints',
      'persistentvolumeclaims',
      'pods',
      'replicationcontrollers',
      'services',
      'serviceaccounts',
      'secrets',
    ],
  ),
  rule(['create', 'get'], [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(['impersonate'], [''], ['serviceaccounts']),
  rule(
    [...READ, ...WRITE],
    ['apps'],
    ['deployments', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'daemonsets'],
  ),
  rule([...READ, ...WRITE], ['batch'], ['cronjobs', 'jobs']),
  rule([...READ, ...WRITE], ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
  rule([...READ, ...WRITE], ['coordination.k8s.io'], ['leases']),
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
];

/** `admin` adds managing Roles and RoleBindings in the namespace. */
const ADMIN_RULES: PolicyRule[] = [
  rule([...READ, ...WRITE], ['rbac.authorization.k8s.io'], ['rolebindings', 'roles']),
];

function clusterRole(name: string, rules: PolicyRule[], labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: RBAC_V1,
    kind: 'ClusterRole',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS, ...labels }, annotations: AUTOUPDATE },
    rules,
  } as KubeObject;
}

function clusterRoleBinding(name: string, role: string, groups: string[]): KubeObject {
  return {
    apiVersion: RBAC_V1,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: BOOTSTRAP_LABELS, annotations: AUTOUPDATE },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: g })),
  } as KubeObject;
}

export function bootstrapClusterRoles(): KubeObject[] {
  return [
    clusterRole('cluster-admin', [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]),
    clusterRole('admin', [...ADMIN_RULES, ...EDIT_RULES, ...VIEW_RULES]),
    clusterRole('edit', [...EDIT_RULES, ...VIEW_RULES]),
    clusterRole('view', VIEW_RULES),
    clusterRole('system:discovery', [
      {
        verbs: ['get'],
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
      },
    ]),
    clusterRole('system:basic-user', [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ]),
    clusterRole('system:public-info-viewer', [
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
    ]),
  ];
}

export function bootstrapClusterRoleBindings(): KubeObject[] {
  return [
    clusterRoleBinding('cluster-admin', 'cluster-admin', [SYSTEM_MASTERS]),
    clusterRoleBinding('system:discovery', 'system:discovery', [ALL_AUTHENTICATED]),
    clusterRoleBinding('system:basic-user', 'system:basic-user', [ALL_AUTHENTICATED]),
    clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [
      ALL_AUTHENTICATED,
      ALL_UNAUTHENTICATED,
    ]),
  ];
}

/** Creates what is missing (the policy reconciliation of the rbac post-start hook, without updates). */
export function bootstrapPolicy(client: SimClient): void {
  const roles = findByKind(RBAC_V1, 'ClusterRole')!;
  const bindings = findByKind(RBAC_V1, 'ClusterRoleBinding')!;
  for (const role of bootstrapClusterRoles())
    if (!client.get(roles, undefined, role.metadata.name!)) client.create(roles, role);
  for (const binding of bootstrapClusterRoleBindings())
    if (!client.get(bindings, undefined, binding.metadata.name!)) client.create(bindings, binding);
}

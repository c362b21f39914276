/**
 * Who a request is: the user.Info of k8s.io/apiserver/pkg/authentication/user (name, uid, groups,
 * extra), with upstream's well-known names.
 */

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** staging/src/k8s.io/apiserver/pkg/authentication/user/user.go */
export const SYSTEM_MASTERS = 'system:masters';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ANONYMOUS = 'system:anonymous';

/** The admin the kubeconfig kube-sim writes authenticates as (kind calls it kubernetes-admin). */
export const SIM_ADMIN: UserInfo = {
  username: 'kube-sim-admin',
  groups: [SYSTEM_MASTERS, ALL_AUTHENTICATED],
};

export const ANONYMOUS_USER: UserInfo = { username: ANONYMOUS, groups: [ALL_UNAUTHENTICATED] };

/** staging/src/k8s.io/apiserver/pkg/authentication/serviceaccount/util.go MakeUsername / MakeGroupNames. */
export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;
}

export function serviceAccountGroups(namespace: string): string[] {
  return ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, ALL_AUTHENTICATED];
}

/**
 * Running longshore as the ServiceAccount of infra/deploy against a kube-sim with RBAC
 * authorization (docs/rbac.md, docs/testing.md "As the ServiceAccount").
 *
 * With LONGSHORE_TEST_AS_SERVICE_ACCOUNT=1 (`npm run test:rbac`) every fleet the helpers start
 * runs kube-sim with `authorization: 'rbac'`, applies infra/deploy/rbac.yaml as the admin, mints
 * a TokenRequest token for `system:serviceaccount:longshore-system:longshore` and hands longshore's
 * processes (workers, CLI, server, scheduler, git hook) a kubeconfig with that token. The test's
 * own clients keep the admin kubeconfig. When the fleet stops, any request of the ServiceAccount
 * kube-sim answered 403 fails the test file.
 */

import { readFileSync } from 'node:fs';
import type * as k8s from '@kubernetes/client-node';
import { parse, parseAllDocuments, stringify } from 'yaml';
import type { RequestRecord } from '../../infra/kube-sim/server/request-log.ts';
import type { Sim } from '../../infra/kube-sim/sim.ts';
import { ROOT } from './processes.ts';

export const AS_SERVICE_ACCOUNT = process.env.LONGSHORE_TEST_AS_SERVICE_ACCOUNT === '1';

export const SYSTEM_NAMESPACE = 'longshore-system';
export const SERVICE_ACCOUNT = 'longshore';
export const SERVICE_ACCOUNT_USER = `system:serviceaccount:${SYSTEM_NAMESPACE}:${SERVICE_ACCOUNT}`;
export const RBAC_MANIFEST = `${ROOT}infra/deploy/rbac.yaml`;

export type Manifest = k8s.KubernetesObject & Record<string, unknown>;

/** The objects of infra/deploy/rbac.yaml, in file order. */
export function rbacManifests(path = RBAC_MANIFEST): Manifest[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as Manifest | null)
    .filter((o): o is Manifest => o !== null);
}

/** Creates or replaces each object (as the admin), as `kubectl apply` would end up. */
export async function applyManifests(objects: k8s.KubernetesObjectApi, manifests: Manifest[]): Promise<void> {
  for (const manifest of manifests) {
    const body = structuredClone(manifest);
    try {
      const live = await objects.read({
        apiVersion: body.apiVersion!,
        kind: body.kind!,
        metadata: { name: body.metadata!.name!, namespace: body.metadata?.namespace },
      });
      body.metadata!.resourceVersion = live.metadata?.resourceVersion;
      await objects.replace(body);
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
      await objects.create(body);
    }
  }
}

/**
 * Applies the RBAC manifests (creating the system namespace first: in infra/deploy the
 * kustomization's namespace.yaml does) and returns a kubeconfig acting as the ServiceAccount.
 */
export async function serviceAccountKubeconfig(
  sim: Sim,
  clients: { core: k8s.CoreV1Api; objects: k8s.KubernetesObjectApi },
  manifests: Manifest[] = rbacManifests(),
): Promise<string> {
  await clients.core
    .createNamespace({ body: { metadata: { name: SYSTEM_NAMESPACE } } })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  await applyManifests(clients.objects, manifests);
  // Long enough for any test file; kube-sim signs it with its own key (auth/tokens.ts).
  const request = await clients.core.createNamespacedServiceAccountToken({
    namespace: SYSTEM_NAMESPACE,
    name: SERVICE_ACCOUNT,
    body: { spec: { audiences: [], expirationSeconds: 24 * 3600 } },
  });
  const config = parse(sim.kubeconfig()) as { users: { user: { token: string } }[] };
  for (const user of config.users) user.user.token = request.status!.token;
  return stringify(config);
}

/** What the ServiceAccount's requests kube-sim refused (403), as `verb group/resource[/sub] ns/name`. */
export function forbiddenRequests(sim: Sim, user = SERVICE_ACCOUNT_USER): string[] {
  return sim.requests
    .entries()
    .filter((r) => r.user === user && r.status === 403)
    .map(describeRequest);
}

export function describeRequest(r: RequestRecord): string {
  const resource = `${r.resource}${r.subresource ? `/${r.subresource}` : ''}` || r.path;
  return `${r.verb} ${resource} ${r.namespace ?? ''}/${r.name ?? ''}`;
}

/**
 * Prunes leaked `imagePullSecrets` from the app's live Deployments (dokku#8531). Strategic merge
 * and server-side apply merge that list by name, so entries another client once added stay forever;
 * a JSON merge patch replaces the list wholesale. A Deployment is patched when its list differs
 * from the intended one in length, holds a name outside it, or repeats one.
 */
import type * as k8s from '@kubernetes/client-node';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { isNotFound } from '../../kube/errors.ts';
import { withKubeRetry } from '../../kube/retry.ts';

export interface PrunedDeployment {
  name: string;
  before: string[];
}

export function needsPrune(live: string[], intended: string[]): boolean {
  if (live.length !== intended.length) return true;
  if (new Set(live).size !== live.length) return true;
  return live.some((name) => !intended.includes(name));
}

export async function prunePullSecrets(
  apps: k8s.AppsV1Api,
  namespace: string,
  app: string,
  intended: string[],
): Promise<PrunedDeployment[]> {
  const list = await withKubeRetry(`list Deployments of ${app}`, () =>
    apps.listNamespacedDeployment({ namespace, labelSelector: `app.kubernetes.io/part-of=${app}` }),
  );
  const pruned: PrunedDeployment[] = [];
  for (const deployment of list.items) {
    const name = deployment.metadata?.name ?? '';
    const live = (deployment.spec?.template.spec?.imagePullSecrets ?? []).map((s) => s.name ?? '');
    if (!needsPrune(live, intended)) continue;
    const body = {
      spec: {
        template: {
          spec: { imagePullSecrets: intended.length > 0 ? intended.map((n) => ({ name: n })) : null },
        },
      },
    };
    await withKubeRetry(`prune imagePullSecrets of Deployment ${namespace}/${name}`, async () => {
      try {
        await apps.patchNamespacedDeployment(
          { namespace, name, body, fieldManager: 'longshore' },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
    pruned.push({ name, before: live });
  }
  return pruned;
}

/**
 * The app's namespace, created when missing and labelled as longshore's. An existing namespace is
 * left as it is (it may be shared, e.g. `default`). Read once per cluster connection: a namespace
 * this process read or created is in `known` (known-namespaces.ts) and costs no request again,
 * until a write into it finds it gone (forgetIfGone). A write only when creating.
 */
import type * as k8s from '@kubernetes/client-node';
import { isAlreadyExists, isNotFound } from '../../kube/errors.ts';
import { withKubeRetry } from '../../kube/retry.ts';
import type { KnownNamespaces } from './known-namespaces.ts';

export async function ensureNamespace(
  core: k8s.CoreV1Api,
  known: KnownNamespaces,
  name: string,
): Promise<'created' | 'exists'> {
  if (known.has(name)) return 'exists';
  const outcome = await withKubeRetry(`ensure Namespace ${name}`, async () => {
    try {
      await core.readNamespace({ name });
      return 'exists' as const;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      await core.createNamespace({
        body: {
          metadata: {
            name,
            labels: { 'app.kubernetes.io/managed-by': 'longshore' },
            annotations: { 'longshore.dev/created-by': 'longshore deploy' },
          },
        },
      });
      return 'created' as const;
    } catch (err) {
      if (isAlreadyExists(err)) return 'exists' as const;
      throw err;
    }
  });
  known.add(name);
  return outcome;
}

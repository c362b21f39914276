/**
 * The app's namespace, created when missing and labelled as longshore's. An existing namespace is
 * left as it is (it may be shared, e.g. `default`). One GET per deploy; a write only when creating.
 */
import type * as k8s from '@kubernetes/client-node';
import { isAlreadyExists, isNotFound } from '../../kube/errors.ts';
import { withKubeRetry } from '../../kube/retry.ts';

export async function ensureNamespace(core: k8s.CoreV1Api, name: string): Promise<'created' | 'exists'> {
  return withKubeRetry(`ensure Namespace ${name}`, async () => {
    try {
      await core.readNamespace({ name });
      return 'exists';
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
      return 'created';
    } catch (err) {
      if (isAlreadyExists(err)) return 'exists';
      throw err;
    }
  });
}

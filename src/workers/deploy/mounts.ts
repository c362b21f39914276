/**
 * Storage mounts are checked before the first write: each mounted entry's claim (`storage-{entry}`,
 * charts/names.ts) must exist in the
 * app's namespace (created by `storage:create`) and be Bound. A missing claim is the operator's to
 * fix (never retried); a Pending one is retried with backoff, as binding may still be under way.
 */
import type * as k8s from '@kubernetes/client-node';
import { storageObjectName } from '../../../charts/index.ts';
import type { AppSpec } from '../../apps/spec.ts';
import { InvalidInputError, TransientError } from '../../core/errors.ts';
import { isNotFound } from '../../kube/errors.ts';
import { withKubeRetry } from '../../kube/retry.ts';

export async function checkMounts(
  core: k8s.CoreV1Api,
  namespace: string,
  mounts: AppSpec['mounts'],
): Promise<void> {
  const missing: string[] = [];
  const pending: string[] = [];
  for (const entry of [...new Set(mounts.map((m) => m.entry))]) {
    const name = storageObjectName(entry);
    const claim = await withKubeRetry(`read PersistentVolumeClaim ${namespace}/${name}`, async () => {
      try {
        return await core.readNamespacedPersistentVolumeClaim({ namespace, name });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    });
    if (!claim) missing.push(entry);
    else if (claim.status?.phase !== 'Bound') pending.push(`${entry} (${claim.status?.phase ?? 'Pending'})`);
  }
  if (missing.length > 0)
    throw new InvalidInputError(
      missing.map((entry) => ({
        path: `mounts.${entry}`,
        message: `storage entry ${entry} has no claim in namespace ${namespace}: create it with storage:create`,
      })),
      'storage mounts',
    );
  if (pending.length > 0) throw new TransientError(`storage not bound yet: ${pending.join(', ')}`);
}

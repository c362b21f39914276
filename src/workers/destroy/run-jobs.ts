/**
 * An app's run Jobs (labelled by charts/app/run-job.ts), deleted by destroy before its releases.
 * Why: a detached run whose pod had not started when the app's `config-{app}` Secret went would
 * wait for that Secret forever (CreateContainerConfigError, as a kubelet does), so its Job never
 * finishes and its `ttlSecondsAfterFinished` never applies — the chaos suite found one such Job
 * (seed 10: a detached run straight before a destroy). Dokku's destroy removes an app's one-off
 * containers too. Listed from the API, not an informer cache: the run that created the Job may
 * have run on another worker a moment ago, and a destroy is rare enough for one list. Their pods
 * and a run's env Secret (owned by its Job) go by garbage collection (Background propagation).
 */
import { RUN_APP_LABEL, RUN_JOB_LABEL, RUN_JOB_VALUE } from '../../../charts/index.ts';
import { isNotFound } from '../../kube/errors.ts';
import { withKubeRetry } from '../../kube/retry.ts';
import { MANAGED_BY, MANAGED_BY_LABEL } from '../../releases/objects.ts';
import type { Cluster } from '../cluster.ts';

/** Deletes every run Job of `app`, in any namespace; returns `namespace/name` of those it deleted. */
export async function deleteRunJobs(cluster: Cluster, app: string, signal?: AbortSignal): Promise<string[]> {
  const labelSelector = `${MANAGED_BY_LABEL}=${MANAGED_BY},${RUN_JOB_LABEL}=${RUN_JOB_VALUE},${RUN_APP_LABEL}=${app}`;
  const retry = signal ? { signal } : {};
  const list = await withKubeRetry(
    `list the run Jobs of ${app}`,
    () => cluster.kube.batch.listJobForAllNamespaces({ labelSelector }),
    retry,
  );
  const deleted: string[] = [];
  for (const job of list.items) {
    const name = job.metadata?.name ?? '';
    const namespace = job.metadata?.namespace ?? '';
    const gone = await withKubeRetry(
      `delete run Job ${namespace}/${name}`,
      async () => {
        try {
          await cluster.kube.batch.deleteNamespacedJob({ name, namespace, propagationPolicy: 'Background' });
          return false;
        } catch (err) {
          if (isNotFound(err)) return true; // its TTL, a prune or a retry of this destroy got there first
          throw err;
        }
      },
      retry,
    );
    if (!gone) deleted.push(`${namespace}/${name}`);
  }
  return deleted;
}

/**
 * The pods a `logs` job reads: those of each process of the app's saved spec (or the one asked
 * for), found by the process's selector (charts/labels.ts) in the app's namespace.
 */
import { processSelector } from '../../../charts/labels.ts';
import { namespaceOf } from '../../apps/chart-values.ts';
import { PermanentError } from '../../core/errors.ts';
import type { Cluster } from '../cluster.ts';
import type { PodRef } from './pod-numbering.ts';

export interface AppPods {
  namespace: string;
  pods: PodRef[];
}

export async function appPods(cluster: Cluster, app: string, process?: string): Promise<AppPods> {
  const record = cluster.apps.get(app);
  if (!record?.spec) throw new PermanentError(`app ${app} does not exist`);
  const spec = record.spec;
  const known = Object.keys(spec.processes).sort();
  if (process && !known.includes(process))
    throw new PermanentError(
      `app ${app} has no process ${process} (processes: ${known.join(', ') || 'none'})`,
    );
  const namespace = namespaceOf(spec);
  const pods: PodRef[] = [];
  for (const type of process ? [process] : known) {
    const labelSelector = Object.entries(processSelector(app, type))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const list = await cluster.kube.core.listNamespacedPod({ namespace, labelSelector });
    for (const pod of list.items) {
      const created = pod.metadata?.creationTimestamp as Date | string | undefined;
      pods.push({
        process: type,
        name: pod.metadata?.name ?? '',
        ...(created ? { createdAt: new Date(created).toISOString() } : {}),
        ...(pod.status?.phase ? { phase: pod.status.phase } : {}),
        terminating: Boolean(pod.metadata?.deletionTimestamp),
        container: pod.spec?.containers[0]?.name ?? type,
      });
    }
  }
  return { namespace, pods };
}

/**
 * Handing a Deployment's `spec.replicas` over to an autoscaler. When a process type becomes
 * autoscaled, its rendered Deployment stops carrying `replicas`; server-side apply would then
 * delete a field that no other manager owns, and the Deployment would fall back to 1 replica
 * until the autoscaler acts. Kubernetes' documented way out ("Transferring ownership",
 * kubernetes.io/docs/reference/using-api/server-side-apply) is a second field manager that applies
 * the current value first, so the field keeps a manager (and its value) when longshore lets go;
 * the autoscaler's writes through `/scale` then take it over.
 */
import type * as k8s from '@kubernetes/client-node';
import type { ReleaseObject } from '../storage/types.ts';

/** The manager that holds the replica count between longshore letting go and the autoscaler's first write. */
export const handoverManager = (fieldManager: string): string => `${fieldManager}-handover`;

/**
 * The apply body that keeps the live replica count, when `object` (about to be applied) is a
 * Deployment without `spec.replicas` whose live `spec.replicas` is owned by `fieldManager` alone;
 * otherwise undefined (nothing to hand over).
 */
export function replicasHandover(
  object: ReleaseObject,
  live: k8s.KubernetesObject | undefined,
  fieldManager: string,
): k8s.KubernetesObject | undefined {
  if (object.kind !== 'Deployment' || !live) return undefined;
  const spec = (object as { spec?: Record<string, unknown> }).spec;
  if (spec && 'replicas' in spec) return undefined;
  const replicas = (live as { spec?: { replicas?: number } }).spec?.replicas;
  if (replicas === undefined) return undefined;
  const owners = (live.metadata?.managedFields ?? []).filter((f) => {
    const fields = f.fieldsV1 as { 'f:spec'?: Record<string, unknown> } | undefined;
    return fields?.['f:spec']?.['f:replicas'] !== undefined;
  });
  if (owners.length !== 1 || owners[0]?.manager !== fieldManager) return undefined;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: {
      name: object.metadata.name,
      ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    },
    spec: { replicas },
  } as k8s.KubernetesObject;
}

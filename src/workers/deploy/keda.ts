/**
 * Whether KEDA is on the cluster: its ScaledObject kind is served (the CRD
 * scaledobjects.keda.sh is established). Asked with a fresh discovery client on each deploy that
 * autoscales something, since client-node caches a group-version's resource list per client and a
 * CRD installed after the worker started must be seen.
 */
import type * as k8s from '@kubernetes/client-node';
import type { AppSpec } from '../../apps/spec.ts';
import { DiscoveringObjectApi } from '../../releases/object-api.ts';

export const SCALED_OBJECT_API_VERSION = 'keda.sh/v1alpha1';

/** Whether the app's chart depends on KEDA being served: an autoscaled process, or trigger auth. */
export function autoscales(spec: AppSpec): boolean {
  return (
    Object.values(spec.processes).some((p) => p.autoscaling !== undefined) ||
    Object.keys(spec.autoscalingAuth ?? {}).length > 0
  );
}

export async function kedaServed(kc: k8s.KubeConfig): Promise<boolean> {
  try {
    const found = await DiscoveringObjectApi.forConfig(kc).discover(
      SCALED_OBJECT_API_VERSION,
      'ScaledObject',
    );
    return found !== undefined;
  } catch (err) {
    // An unserved group-version answers 404 (k8s.io/apiserver pkg/endpoints/discovery).
    if ((err as { code?: number }).code === 404) return false;
    throw err;
  }
}

/** A kube-sim on a free loopback port and real @kubernetes/client-node clients for it. */
import * as k8s from '@kubernetes/client-node';
import { type Sim, type SimOptions, startSim } from '../../infra/kube-sim/sim.ts';
import type { KubeObject } from '../../infra/kube-sim/types.ts';

export interface SimClients {
  sim: Sim;
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  batch: k8s.BatchV1Api;
  networking: k8s.NetworkingV1Api;
  storage: k8s.StorageV1Api;
  coordination: k8s.CoordinationV1Api;
  objects: k8s.KubernetesObjectApi;
}

export async function startSimWithClients(options: SimOptions = {}): Promise<SimClients> {
  const sim = await startSim({
    ...options,
    // The Job controller's retry back-off is upstream's 10 s by default; tests that are not about
    // it should not wait for it, so the fixture makes it short (a test may set its own).
    settings: { jobBackOffBaseMs: 20, jobBackOffMaxMs: 200, ...options.settings },
    onControllerError: options.onControllerError ?? (() => undefined),
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  return {
    sim,
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    batch: kc.makeApiClient(k8s.BatchV1Api),
    networking: kc.makeApiClient(k8s.NetworkingV1Api),
    storage: kc.makeApiClient(k8s.StorageV1Api),
    coordination: kc.makeApiClient(k8s.CoordinationV1Api),
    objects: k8s.KubernetesObjectApi.makeApiClient(kc),
  };
}

/** The Status body of a failed client-node call (its ApiException carries it as text). */
export async function statusOf(
  call: Promise<unknown>,
): Promise<{ code: number; reason: string; message: string; details?: Record<string, unknown> }> {
  try {
    await call;
  } catch (err) {
    const e = err as { code?: number; body?: unknown };
    const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
    return body as { code: number; reason: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected the call to fail');
}

/**
 * Every object in the simulator that belongs to the app (its workloads, pods, Secrets, release
 * history), as `Kind namespace/name`, sorted.
 */
export function appObjects(sim: Sim, app: string): string[] {
  const found: string[] = [];
  for (const type of sim.store.typeKeys()) {
    for (const o of sim.store.list(type) as KubeObject[]) {
      const labels = o.metadata.labels ?? {};
      if (labels['app.kubernetes.io/part-of'] === app || labels['longshore.dev/app'] === app)
        found.push(`${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    }
  }
  return found.sort();
}

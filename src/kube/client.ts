/**
 * Kubernetes clients for workers: a KubeConfig from KUBECONFIG, a kubeconfig text (tests, kube-sim),
 * or the in-cluster service account. Producers never construct one: only workers talk to the cluster.
 */
import * as k8s from '@kubernetes/client-node';
import { ConfigError } from '../core/errors.ts';
import { MeasuredKubeConfig } from './request-metrics.ts';

export interface KubeClients {
  kc: k8s.KubeConfig;
  /** Generic object API (server-side apply, any kind, discovery-based). */
  objects: k8s.KubernetesObjectApi;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  /** Jobs (one-off runs). */
  batch: k8s.BatchV1Api;
}

export type KubeSource = { kubeconfigPath: string } | { kubeconfigYaml: string } | { inCluster: true };

export function loadKubeConfig(source: KubeSource): k8s.KubeConfig {
  // Measured: every API request's latency reaches the worker's metrics (request-metrics.ts).
  const kc = new MeasuredKubeConfig();
  try {
    if ('kubeconfigPath' in source) kc.loadFromFile(source.kubeconfigPath);
    else if ('kubeconfigYaml' in source) kc.loadFromString(source.kubeconfigYaml);
    else kc.loadFromCluster();
  } catch (err) {
    throw new ConfigError(`cannot load the Kubernetes configuration: ${(err as Error).message}`);
  }
  if (!kc.getCurrentCluster()) throw new ConfigError('the Kubernetes configuration names no current cluster');
  return kc;
}

/** KUBECONFIG when set, else the in-cluster service account. */
export function kubeSourceFromEnv(kubeconfig: string | undefined): KubeSource {
  return kubeconfig ? { kubeconfigPath: kubeconfig } : { inCluster: true };
}

export function createKubeClients(source: KubeSource): KubeClients {
  const kc = loadKubeConfig(source);
  return {
    kc,
    objects: k8s.KubernetesObjectApi.makeApiClient(kc),
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    batch: kc.makeApiClient(k8s.BatchV1Api),
  };
}

/**
 * Two writes a real apiserver makes outside the usual update path, which kube-sim's API service
 * (main resource or `/status`) cannot express; they go to the store as the registry does them,
 * so watches still see them (MODIFIED, new resourceVersion):
 *
 * - Binding a Pod to a node: the scheduler POSTs pods/binding, whose registry
 *   (pkg/registry/core/pod/storage BindingREST.setPodHostAndAnnotations) sets spec.nodeName and
 *   the PodScheduled condition with storage.GuaranteedUpdate — no pod update validation (which
 *   forbids changing spec.nodeName) and no managedFields entry.
 * - The Deployment's `deployment.kubernetes.io/revision` annotation: the controller writes it
 *   with UpdateStatus, and deploymentStatusStrategy.PrepareForUpdate keeps the request's
 *   metadata.annotations (only spec and labels are reset). kube-sim's `/status` takes status only,
 *   and a main-resource write would bump metadata.generation (annotation changes do for
 *   Deployments) where a real cluster's does not.
 */
import { timestamp } from '../api/metadata.ts';
import { typeKey } from '../api/service.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { REVISION_ANNOTATION } from './deployment-util.ts';
import { DEPLOYMENT, POD, type Pod, type PodCondition } from './workload-types.ts';

const POD_KEY = typeKey(POD);
const DEPLOYMENT_KEY = typeKey(DEPLOYMENT);

/** Binds a Pod (not yet bound, not being deleted) to `nodeName`; returns the stored Pod. */
export function bindPod(
  store: ObjectStore,
  namespace: string,
  name: string,
  nodeName: string,
): Pod | undefined {
  const current = store.get(POD_KEY, namespace, name) as Pod | undefined;
  if (!current || current.metadata.deletionTimestamp || current.spec.nodeName) return undefined;
  const next = clone(current);
  next.spec.nodeName = nodeName;
  // podutil.UpdatePodCondition: a new condition gets lastTransitionTime now.
  const scheduled: PodCondition = {
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: timestamp(),
  };
  next.status ??= {};
  const status = next.status;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'PodScheduled'), scheduled];
  return store.update(POD_KEY, next).object as Pod;
}

/** SetDeploymentRevision as written by UpdateStatus: the annotation only, generation unchanged. */
export function setDeploymentRevision(
  store: ObjectStore,
  namespace: string,
  name: string,
  rev: string,
): void {
  const current = store.get(DEPLOYMENT_KEY, namespace, name);
  if (!current || current.metadata.annotations?.[REVISION_ANNOTATION] === rev) return;
  const next: KubeObject = clone(current);
  next.metadata.annotations = { ...next.metadata.annotations, [REVISION_ANNOTATION]: rev };
  store.update(DEPLOYMENT_KEY, next);
}

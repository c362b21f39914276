/**
 * What a StatefulSet's Pods and claims are made of (pkg/controller/statefulset/stateful_set_utils.go):
 * Pod `<set>-<ordinal>` from the template of the revision it belongs to (newVersionedStatefulSetPod:
 * ordinals below the partition keep the current revision), with its identity (hostname, the
 * governing Service as subdomain, labels `statefulset.kubernetes.io/pod-name`,
 * `apps.kubernetes.io/pod-index`), its storage (a volume per volumeClaimTemplate naming the claim
 * `<template>-<set>-<ordinal>`) and the `controller-revision-hash` label; the claims themselves,
 * owned by the set when persistentVolumeClaimRetentionPolicy.whenDeleted is Delete.
 */
import { clone, type KubeObject } from '../types.ts';
import { REVISION_LABEL } from './controller-revisions.ts';
import { controllerRef, type Pod, type PodTemplateSpec } from './workload-types.ts';

export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

export interface StatefulSet extends KubeObject {
  spec: {
    replicas?: number;
    selector: { matchLabels?: Record<string, string>; matchExpressions?: never[] };
    template: PodTemplateSpec;
    serviceName?: string;
    podManagementPolicy?: string;
    updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } };
    revisionHistoryLimit?: number;
    minReadySeconds?: number;
    ordinals?: { start?: number };
    volumeClaimTemplates?: KubeObject[];
    persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string };
  };
  status?: Record<string, unknown> & {
    currentRevision?: string;
    updateRevision?: string;
    collisionCount?: number;
  };
}

/** getOrdinal: the ordinal in a Pod's name, or -1 when it is not `<set>-<n>`. */
export function ordinalOf(set: StatefulSet, pod: KubeObject): number {
  const name = pod.metadata.name ?? '';
  const prefix = `${set.metadata.name}-`;
  if (!name.startsWith(prefix)) return -1;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : -1;
}

export function claimName(template: KubeObject, set: StatefulSet, ordinal: number): string {
  return `${template.metadata.name}-${set.metadata.name}-${ordinal}`;
}

/** newVersionedStatefulSetPod with the template of `revisionName`. */
export function newStatefulSetPod(
  set: StatefulSet,
  template: PodTemplateSpec,
  revisionName: string,
  ordinal: number,
): Pod {
  const meta = template.metadata ?? {};
  const name = `${set.metadata.name}-${ordinal}`;
  const spec = clone(template.spec ?? { containers: [] });
  // updateStorage: the claim templates' volumes replace same-named volumes of the template.
  const claims = set.spec.volumeClaimTemplates ?? [];
  const claimVolumes = claims.map((t) => ({
    name: t.metadata.name!,
    persistentVolumeClaim: { claimName: claimName(t, set, ordinal) },
  }));
  const claimed = new Set(claimVolumes.map((v) => v.name));
  spec.volumes = [...(spec.volumes ?? []).filter((v) => !claimed.has(v.name)), ...claimVolumes];
  if (spec.volumes.length === 0) delete spec.volumes;
  // initIdentity: hostname and subdomain give each Pod its stable DNS name.
  spec.hostname = name;
  if (set.spec.serviceName) spec.subdomain = set.spec.serviceName;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata.namespace!,
      labels: {
        ...(meta.labels ?? {}),
        [POD_NAME_LABEL]: name,
        [POD_INDEX_LABEL]: String(ordinal),
        [REVISION_LABEL]: revisionName,
      },
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [controllerRef(set)],
    },
    spec,
  };
}

/** getPersistentVolumeClaims: the claims an ordinal's Pod uses, labelled with the set's selector. */
export function newClaims(set: StatefulSet, ordinal: number): KubeObject[] {
  const deleteWithSet = set.spec.persistentVolumeClaimRetentionPolicy?.whenDeleted === 'Delete';
  return (set.spec.volumeClaimTemplates ?? []).map((t) => {
    const { status: _status, ...template } = clone(t);
    return {
      ...template,
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        ...(t.metadata.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
        name: claimName(t, set, ordinal),
        namespace: set.metadata.namespace!,
        labels: { ...(t.metadata.labels ?? {}), ...(set.spec.selector.matchLabels ?? {}) },
        ...(deleteWithSet ? { ownerReferences: [controllerRef(set)] } : {}),
      },
    };
  });
}

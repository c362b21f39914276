/**
 * Typed views of the workload objects the Deployment, ReplicaSet and pod lifecycle controllers
 * read and write: only the fields they use (the stored objects hold the rest untouched).
 */
import { findByKind, type ResourceType } from '../resources.ts';
import type { KubeObject } from '../types.ts';

export const DEPLOYMENT: ResourceType = findByKind('apps/v1', 'Deployment')!;
export const REPLICA_SET: ResourceType = findByKind('apps/v1', 'ReplicaSet')!;
export const POD: ResourceType = findByKind('v1', 'Pod')!;
export const SECRET: ResourceType = findByKind('v1', 'Secret')!;
export const CONFIG_MAP: ResourceType = findByKind('v1', 'ConfigMap')!;
export const SERVICE: ResourceType = findByKind('v1', 'Service')!;

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface KeyRef {
  name?: string;
  key?: string;
  optional?: boolean;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: KeyRef; configMapKeyRef?: KeyRef; [key: string]: unknown };
}

export interface EnvFromSource {
  prefix?: string;
  secretRef?: { name?: string; optional?: boolean };
  configMapRef?: { name?: string; optional?: boolean };
}

export interface Container {
  name: string;
  image?: string;
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
  restartPolicy?: string;
  [key: string]: unknown;
}

export interface KeyToPath {
  key: string;
  path: string;
}

export interface Volume {
  name: string;
  secret?: { secretName?: string; optional?: boolean; items?: KeyToPath[] };
  configMap?: { name?: string; optional?: boolean; items?: KeyToPath[] };
  projected?: {
    sources?: {
      secret?: { name?: string; optional?: boolean; items?: KeyToPath[] };
      configMap?: { name?: string; optional?: boolean; items?: KeyToPath[] };
    }[];
  };
  [key: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  restartPolicy?: string;
  imagePullSecrets?: { name?: string }[];
  volumes?: Volume[];
  nodeName?: string;
  schedulingGates?: { name: string }[];
  [key: string]: unknown;
}

export interface PodTemplateSpec {
  metadata?: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    [key: string]: unknown;
  };
  spec?: PodSpec;
}

export interface PodCondition {
  type: string;
  status: ConditionStatus;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: {
    exitCode: number;
    reason?: string;
    message?: string;
    startedAt?: string;
    finishedAt?: string;
    containerID?: string;
  };
}

export interface ContainerStatus {
  name: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
}

export interface PodStatus {
  phase?: string;
  conditions?: PodCondition[];
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  qosClass?: string;
  [key: string]: unknown;
}

export interface Pod extends KubeObject {
  spec: PodSpec;
  status?: PodStatus;
}

export interface ReplicaSetCondition {
  type: string;
  status: ConditionStatus;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaSetCondition[];
}

export interface ReplicaSet extends KubeObject {
  spec: {
    replicas?: number;
    minReadySeconds?: number;
    selector: LabelSelectorSpec;
    template: PodTemplateSpec;
  };
  status?: ReplicaSetStatus;
}

export interface DeploymentCondition {
  type: string;
  status: ConditionStatus;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: DeploymentCondition[];
  collisionCount?: number;
}

export type IntOrString = number | string;

export interface DeploymentSpec {
  replicas?: number;
  selector: LabelSelectorSpec;
  template: PodTemplateSpec;
  strategy?: {
    type?: string;
    rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString };
  };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

export interface Deployment extends KubeObject {
  spec: DeploymentSpec;
  status?: DeploymentStatus;
}

/** The owner reference that makes `owner` the controller of an object (metav1.NewControllerRef). */
export function controllerRef(
  owner: KubeObject,
): NonNullable<KubeObject['metadata']['ownerReferences']>[number] {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** metav1.GetControllerOf. */
export function controllerOf(object: KubeObject): { kind: string; name: string; uid: string } | undefined {
  return object.metadata.ownerReferences?.find((r) => r.controller === true);
}

export function objectKeyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name!}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

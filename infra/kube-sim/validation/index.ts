/**
 * Validation entry points for the server: what kube-apiserver 1.33's registry strategies return
 * as field errors on create and update (the server turns them into a 422 Status with
 * statusErrors.invalid). Objects are validated after defaulting, as upstream does.
 */

import { validateCustomResource } from '../crd/custom-resources.ts';
import { validateCrdCreate, validateCrdUpdate } from '../crd/validate-definition.ts';
import { type FieldError, fieldErrorText } from '../errors.ts';
import type { ResourceType } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import {
  validateDeployment,
  validateDeploymentStatusUpdate,
  validateDeploymentUpdate,
  validateReplicaSet,
  validateReplicaSetStatusUpdate,
  validateReplicaSetUpdate,
} from './apps.ts';
import {
  validateHPA,
  validateHPAStatusUpdate,
  validateHPAUpdate,
  validateIngressClass,
  validateIngressClassUpdate,
  validatePDB,
  validatePDBStatusUpdate,
  validatePDBUpdate,
} from './autoscaling-policy.ts';
import { validateConfigMap, validateConfigMapUpdate } from './configmap.ts';
import { validateCronJob, validateCronJobUpdate } from './cronjob.ts';
import {
  validateEvent,
  validateEventsV1Create,
  validateEventsV1Update,
  validateEventUpdate,
} from './events.ts';
import { validateIngressCreate, validateIngressStatusUpdate, validateIngressUpdate } from './ingress.ts';
import { validateJob, validateJobStatusUpdate, validateJobUpdate } from './job.ts';
import { validateCommonUpdate, validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import {
  validateLease,
  validateLeaseUpdate,
  validateServiceAccount,
  validateServiceAccountUpdate,
} from './minor-kinds.ts';
import { nameIsDNSSubdomain } from './names.ts';
import { validateNamespace, validateNamespaceStatusUpdate, validateNamespaceUpdate } from './namespace.ts';
import { validatePodCreate, validatePodStatusUpdate, validatePodUpdate } from './pod.ts';
import { validatePV, validatePVUpdate } from './pv.ts';
import { validatePVC, validatePVCStatusUpdate, validatePVCUpdate } from './pvc.ts';
import {
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
  validateRoleUpdate,
} from './rbac.ts';
import { validateSecret, validateSecretUpdate } from './secret.ts';
import { validateServiceCreate, validateServiceStatusUpdate, validateServiceUpdate } from './service.ts';
import { validateStorageClass, validateStorageClassUpdate } from './storageclass.ts';
import {
  validateDaemonSet,
  validateDaemonSetStatusUpdate,
  validateDaemonSetUpdate,
  validateStatefulSet,
  validateStatefulSetStatusUpdate,
  validateStatefulSetUpdate,
} from './workloads.ts';

type Validate = (object: unknown) => FieldError[];
type ValidateUpdate = (object: unknown, old: unknown) => FieldError[];

interface KindValidation {
  create: Validate;
  update: ValidateUpdate;
  /** The status strategy's ValidateUpdate; metadata rules only when absent. */
  status?: ValidateUpdate;
}

const KINDS: Record<string, KindValidation> = {
  '/ConfigMap': { create: validateConfigMap, update: validateConfigMapUpdate },
  '/Event': { create: validateEvent, update: validateEventUpdate },
  'events.k8s.io/Event': { create: validateEventsV1Create, update: validateEventsV1Update },
  '/Namespace': {
    create: validateNamespace,
    update: validateNamespaceUpdate,
    status: validateNamespaceStatusUpdate,
  },
  '/PersistentVolumeClaim': {
    create: validatePVC,
    update: validatePVCUpdate,
    status: validatePVCStatusUpdate,
  },
  '/PersistentVolume': { create: validatePV, update: validatePVUpdate },
  '/Pod': { create: validatePodCreate, update: validatePodUpdate, status: validatePodStatusUpdate },
  '/Secret': { create: validateSecret, update: validateSecretUpdate },
  '/ServiceAccount': { create: validateServiceAccount, update: validateServiceAccountUpdate },
  '/Service': {
    create: validateServiceCreate,
    update: validateServiceUpdate,
    status: validateServiceStatusUpdate,
  },
  'apps/Deployment': {
    create: validateDeployment,
    update: validateDeploymentUpdate,
    status: validateDeploymentStatusUpdate,
  },
  'apps/ReplicaSet': {
    create: validateReplicaSet,
    update: validateReplicaSetUpdate,
    status: validateReplicaSetStatusUpdate,
  },
  'batch/CronJob': { create: validateCronJob, update: validateCronJobUpdate },
  'batch/Job': { create: validateJob, update: validateJobUpdate, status: validateJobStatusUpdate },
  'coordination.k8s.io/Lease': { create: validateLease, update: validateLeaseUpdate },
  'networking.k8s.io/Ingress': {
    create: validateIngressCreate,
    update: validateIngressUpdate,
    status: validateIngressStatusUpdate,
  },
  'storage.k8s.io/StorageClass': { create: validateStorageClass, update: validateStorageClassUpdate },
  'apiextensions.k8s.io/CustomResourceDefinition': { create: validateCrdCreate, update: validateCrdUpdate },

  'apps/StatefulSet': {
    create: validateStatefulSet,
    update: validateStatefulSetUpdate,
    status: validateStatefulSetStatusUpdate,
  },
  'apps/DaemonSet': {
    create: validateDaemonSet,
    update: validateDaemonSetUpdate,
    status: validateDaemonSetStatusUpdate,
  },
  'autoscaling/HorizontalPodAutoscaler': {
    create: validateHPA,
    update: validateHPAUpdate,
    status: validateHPAStatusUpdate,
  },
  'policy/PodDisruptionBudget': {
    create: validatePDB,
    update: validatePDBUpdate,
    status: validatePDBStatusUpdate,
  },
  'networking.k8s.io/IngressClass': { create: validateIngressClass, update: validateIngressClassUpdate },
  'rbac.authorization.k8s.io/Role': { create: validateRole, update: validateRoleUpdate },
  'rbac.authorization.k8s.io/ClusterRole': { create: validateClusterRole, update: validateClusterRoleUpdate },
  'rbac.authorization.k8s.io/RoleBinding': { create: validateRoleBinding, update: validateRoleBindingUpdate },
  'rbac.authorization.k8s.io/ClusterRoleBinding': {
    create: validateClusterRoleBinding,
    update: validateClusterRoleBindingUpdate,
  },
};

function kindOf(type: ResourceType): KindValidation | undefined {
  return KINDS[`${type.group}/${type.kind}`];
}

/**
 * Upstream's message aggregate drops repeated errors (ErrorList.ToAggregate); several update
 * paths report the same metadata error twice (rest.BeforeUpdate and the strategy both check it).
 */
function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const text = `${e.type}|${fieldErrorText(e)}`;
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}

/** The errors creating `obj` meets (after defaults, and for Jobs after defaultJobSelector). */
export function validateCreate(type: ResourceType, obj: KubeObject): FieldError[] {
  const kind = kindOf(type);
  if (kind) return dedupe(kind.create(obj));
  return dedupe([
    ...validateObjectMeta(obj, { namespaced: type.namespaced, nameFn: nameIsDNSSubdomain }),
    ...validateCustomResource(type, obj),
  ]);
}

/**
 * The errors updating `old` to `obj` meets, immutability included. With `subresource: 'status'`
 * only what a status write can get wrong is checked (the server keeps the rest from `old`).
 */
export function validateUpdate(
  type: ResourceType,
  obj: KubeObject,
  old: KubeObject,
  subresource?: 'status',
): FieldError[] {
  const kind = kindOf(type);
  const common = validateCommonUpdate(obj, old, type.namespaced);
  if (subresource === 'status') {
    const status = kind?.status ?? validateObjectMetaUpdate;
    return dedupe([...common, ...status(obj, old), ...validateCustomResource(type, obj)]);
  }
  return dedupe([...common, ...(kind ? kind.update(obj, old) : validateCustomResource(type, obj))]);
}

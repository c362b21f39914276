/**
 * Defaulting entry points for the server: the defaults kube-apiserver 1.33 applies when decoding
 * a v1 object (pkg/apis/<group>/v1/defaults.go and the generated defaulters) plus the registry steps
 * clients observe as defaults (Service IP allocation, Namespace finalizers, PV status).
 */
import { defaultCustomResource } from '../crd/custom-resources.ts';
import { defaultCrd, defaultCrdStatus } from '../crd/definition.ts';
import type { ResourceType } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import { defaultDeployment, defaultReplicaSet } from './apps.ts';
import { defaultHPA } from './autoscaling.ts';
import { defaultCronJob, defaultJob } from './batch.ts';
import type { DefaultingContext, JsonObject } from './context.ts';
import { defaultNamespace } from './namespace.ts';
import { defaultPod } from './podspec.ts';
import { defaultService } from './service.ts';
import { defaultPV, defaultPVC, defaultStorageClass } from './storage.ts';
import { addProtectionFinalizer, PV_PROTECTION, PVC_PROTECTION } from './storage-protection.ts';
import { defaultDaemonSet, defaultEndpointSlice, defaultEndpoints, defaultStatefulSet } from './workloads.ts';

export { defaultJobSelector } from './batch.ts';
export type { DefaultingContext } from './context.ts';

/**
 * Fills defaults into `obj` (a copy the server owns). On updates, pass the stored object as
 * `context.old` so Services keep their allocated addresses and ports and Namespaces their
 * finalizers and status.
 */
export function applyDefaults(type: ResourceType, obj: KubeObject, context: DefaultingContext): void {
  const o = obj as JsonObject;
  switch (`${type.group}/${type.kind}`) {
    case '/Pod':
      defaultPod(o);
      break;
    case '/Service':
      defaultService(o, context);
      break;
    case '/Secret':
      if (o.type === undefined || o.type === null || o.type === '') o.type = 'Opaque';
      break;
    case '/Namespace':
      defaultNamespace(obj, context);
      break;
    case '/PersistentVolumeClaim':
      defaultPVC(o, context);
      if (!context.old) addProtectionFinalizer(obj, PVC_PROTECTION);
      break;
    case '/PersistentVolume':
      defaultPV(o, context);
      if (!context.old) addProtectionFinalizer(obj, PV_PROTECTION);
      break;
    case 'apps/Deployment':
      defaultDeployment(o);
      break;
    case 'apps/ReplicaSet':
      defaultReplicaSet(o);
      break;
    case 'batch/Job':
      defaultJob(o);
      break;
    case 'batch/CronJob':
      defaultCronJob(o);
      break;
    case 'storage.k8s.io/StorageClass':
      defaultStorageClass(o);
      break;
    case 'apiextensions.k8s.io/CustomResourceDefinition':
      defaultCrd(obj);
      if (!context.old) defaultCrdStatus(obj);
      break;
    case 'apps/StatefulSet':
      defaultStatefulSet(o);
      break;
    case 'apps/DaemonSet':
      defaultDaemonSet(o);
      break;
    case '/Endpoints':
      defaultEndpoints(o);
      break;
    case 'discovery.k8s.io/EndpointSlice':
      defaultEndpointSlice(o);
      break;
    case 'autoscaling/HorizontalPodAutoscaler':
      defaultHPA(o);
      break;
    default:
      // ConfigMap, Event, Ingress, Lease, ServiceAccount: nothing is defaulted; custom resources
      // get their schema's defaults.
      defaultCustomResource(type, obj);
      break;
  }
}

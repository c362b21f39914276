/**
 * Which printer answers for a kind: upstream's printers (kubernetes/kubernetes
 * pkg/printers/internalversion/printers.go) by group and kind; custom resources register theirs
 * from their CRD (custom-resource.ts); anything else gets k8s.io/apiserver's
 * DefaultTableConvertor (pkg/registry/rest/table.go): NAME and CREATED AT. CustomResourceDefinitions
 * themselves are served with that default convertor upstream, so they print NAME, CREATED AT too.
 */
import { rfc3339 } from './age.ts';
import {
  configMapPrinter,
  eventPrinter,
  leasePrinter,
  namespacePrinter,
  nodePrinter,
  secretPrinter,
  serviceAccountPrinter,
} from './core.ts';
import {
  endpointSlicePrinter,
  endpointsPrinter,
  ingressClassPrinter,
  ingressPrinter,
  servicePrinter,
} from './network.ts';
import { podPrinter } from './pods.ts';
import { roleBindingPrinter, rolePrinter } from './rbac.ts';
import { pvcPrinter, pvPrinter, storageClassPrinter } from './storage.ts';
import { column, NAME_COLUMN, type Printer } from './table.ts';
import {
  cronJobPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  hpaPrinter,
  jobPrinter,
  pdbPrinter,
  replicaSetPrinter,
  statefulSetPrinter,
} from './workloads.ts';

const BUILT_IN: Record<string, Printer> = {
  '/Pod': podPrinter,
  '/ConfigMap': configMapPrinter,
  '/Secret': secretPrinter,
  '/ServiceAccount': serviceAccountPrinter,
  '/Namespace': namespacePrinter,
  '/Node': nodePrinter,
  '/Event': eventPrinter,
  '/Service': servicePrinter,
  '/Endpoints': endpointsPrinter,
  '/PersistentVolumeClaim': pvcPrinter,
  '/PersistentVolume': pvPrinter,
  'apps/Deployment': deploymentPrinter,
  'apps/ReplicaSet': replicaSetPrinter,
  'apps/StatefulSet': statefulSetPrinter,
  'apps/DaemonSet': daemonSetPrinter,
  'batch/Job': jobPrinter,
  'batch/CronJob': cronJobPrinter,
  'autoscaling/HorizontalPodAutoscaler': hpaPrinter,
  'policy/PodDisruptionBudget': pdbPrinter,
  'coordination.k8s.io/Lease': leasePrinter,
  'events.k8s.io/Event': eventPrinter,
  'discovery.k8s.io/EndpointSlice': endpointSlicePrinter,
  'networking.k8s.io/Ingress': ingressPrinter,
  'networking.k8s.io/IngressClass': ingressClassPrinter,
  'storage.k8s.io/StorageClass': storageClassPrinter,
  'rbac.authorization.k8s.io/Role': rolePrinter,
  'rbac.authorization.k8s.io/ClusterRole': rolePrinter,
  'rbac.authorization.k8s.io/RoleBinding': roleBindingPrinter,
  'rbac.authorization.k8s.io/ClusterRoleBinding': roleBindingPrinter,
};

/** DefaultTableConvertor: the name, and the creation time as an RFC 3339 date. */
export const defaultPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column(
      'Created At',
      'date',
      'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
    ),
  ],
  cells: (o) => [
    typeof o.metadata?.name === 'string' ? o.metadata.name : '',
    rfc3339(o.metadata?.creationTimestamp),
  ],
};

/** Printers of custom resources, by `group/version/kind` (a CRD's versions may print differently). */
const custom = new Map<string, Printer>();

/** Registers (or, with undefined, removes) the printer of one served version of a custom resource. */
export function registerCustomPrinter(
  type: { group: string; version: string; kind: string },
  printer: Printer | undefined,
): void {
  const key = `${type.group}/${type.version}/${type.kind}`;
  if (printer) custom.set(key, printer);
  else custom.delete(key);
}

export function printerFor(type: { group: string; version: string; kind: string }): Printer {
  return (
    custom.get(`${type.group}/${type.version}/${type.kind}`) ??
    BUILT_IN[`${type.group}/${type.kind}`] ??
    defaultPrinter
  );
}

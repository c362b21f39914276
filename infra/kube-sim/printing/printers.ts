/**
 * Which printer answers for a kind: upstream's printers (kubernetes/kubernetes
 * pkg/printers/internalversion/printers.go) by group and kind; custom resources register theirs
 * from their CRD (custom-resource.ts); anything else gets k8s.io/apiserver's
 * DefaultTableConvertor (pkg/registry/rest/table.go): NAME and CREATED AT. CustomResourceDefinitions
 * themselves are served with that default convertor upstream, so they print NAME, CREATED AT too.
 */
import { customVersionOf } from '../crd/serving.ts';
import type { ResourceType } from '../resources.ts';
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
import { customResourcePrinter, type PrinterColumn } from './custom-resource.ts';
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
  controllerRevisionPrinter,
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
  'apps/ControllerRevision': controllerRevisionPrinter,
};

/** Upstream serves CustomResourceDefinitions with the DefaultTableConvertor (see the top comment). */
const DEFAULT_CONVERTOR_KINDS = new Set(['apiextensions.k8s.io/CustomResourceDefinition']);

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

/**
 * Printers of custom resources, one per served version's ResourceType (a CRD update serves new
 * ResourceType objects, so an old printer is never reused), built from the version's
 * `additionalPrinterColumns` as apiextensions-apiserver's tableconvertor does.
 */
const custom = new WeakMap<ResourceType, Printer>();

function customPrinter(type: ResourceType): Printer | undefined {
  const version = customVersionOf(type)?.version;
  if (!version) return undefined;
  let printer = custom.get(type);
  if (!printer) {
    printer = printerOfColumns(version.additionalPrinterColumns);
    custom.set(type, printer);
  }
  return printer;
}

/**
 * Columns kube-sim's CRD validation let through but the printer cannot read (no name, a JSONPath
 * outside the subset) leave the version with the default custom-resource table rather than a 500.
 */
function printerOfColumns(columns: unknown[] | undefined): Printer {
  const usable = (columns ?? []).filter(
    (c): c is PrinterColumn =>
      typeof c === 'object' &&
      c !== null &&
      typeof (c as PrinterColumn).name === 'string' &&
      typeof (c as PrinterColumn).type === 'string' &&
      typeof (c as PrinterColumn).jsonPath === 'string',
  );
  try {
    return customResourcePrinter(usable);
  } catch {
    return customResourcePrinter(undefined);
  }
}

/**
 * The printer kube-sim defines for a built-in kind (after upstream's), or undefined for a kind
 * that has none and so falls back to the default table: the every-kind printing test fails on those.
 */
export function builtInPrinterFor(type: { group: string; kind: string }): Printer | undefined {
  const key = `${type.group}/${type.kind}`;
  return BUILT_IN[key] ?? (DEFAULT_CONVERTOR_KINDS.has(key) ? defaultPrinter : undefined);
}

export function printerFor(type: ResourceType): Printer {
  return customPrinter(type) ?? builtInPrinterFor(type) ?? defaultPrinter;
}

/**
 * Printers of core and cluster kinds, after kubernetes/kubernetes
 * pkg/printers/internalversion/printers.go: ConfigMap, Secret, ServiceAccount, Namespace, Node
 * (STATUS from the Ready condition plus `SchedulingDisabled`, ROLES from node-role labels),
 * Event (core v1, and events.k8s.io/v1 read through the same columns as upstream converts it)
 * and Lease.
 */
import { since } from './age.ts';
import { int, list, str } from './format.ts';
import { AGE_COLUMN, column, NAME_COLUMN, type Obj, type Printer } from './table.ts';

const name = (o: Obj) => str(o.metadata?.name);
const age = (o: Obj, now: number) => since(o.metadata?.creationTimestamp, now);
const count = (m: unknown) => (m && typeof m === 'object' ? Object.keys(m).length : 0);

export const configMapPrinter: Printer = {
  columns: [NAME_COLUMN, column('Data', 'string', 'Data contains the configuration data.'), AGE_COLUMN],
  cells: (cm, now) => [name(cm), count(cm.data) + count(cm.binaryData), age(cm, now)],
};

export const secretPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
    column('Data', 'string', 'Data contains the secret data.'),
    AGE_COLUMN,
  ],
  cells: (s, now) => [name(s), str(s.type), count(s.data), age(s, now)],
};

export const serviceAccountPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column(
      'Secrets',
      'string',
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
    ),
    AGE_COLUMN,
  ],
  cells: (sa, now) => [name(sa), list(sa.secrets).length, age(sa, now)],
};

export const namespacePrinter: Printer = {
  columns: [NAME_COLUMN, column('Status', 'string', 'The status of the namespace'), AGE_COLUMN],
  cells: (ns, now) => [name(ns), str(ns.status?.phase), age(ns, now)],
};

export const leasePrinter: Printer = {
  columns: [NAME_COLUMN, column('Holder', 'string', 'The holder of the lease'), AGE_COLUMN],
  cells: (l, now) => [name(l), str(l.spec?.holderIdentity), age(l, now)],
};

function nodeStatus(node: Obj): string {
  const ready = list(node.status?.conditions).find((c) => c.type === 'Ready');
  const states = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable === true) states.push('SchedulingDisabled');
  return states.join(',');
}

function nodeRoles(node: Obj): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries((node.metadata?.labels ?? {}) as Record<string, string>)) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length)
      roles.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return roles.size > 0 ? [...roles].sort().join(',') : '<none>';
}

const nodeAddress = (node: Obj, type: string) =>
  str(list(node.status?.addresses).find((a) => a.type === type)?.address) || '<none>';
const unknown = (v: unknown) => str(v) || '<unknown>';

export const nodePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    AGE_COLUMN,
    column('Version', 'string', 'Kubelet Version reported by the node.'),
    column('Internal-IP', 'string', 'List of addresses reachable to the node.', { wide: true }),
    column('External-IP', 'string', 'List of addresses reachable to the node.', { wide: true }),
    column(
      'OS-Image',
      'string',
      'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
      { wide: true },
    ),
    column(
      'Kernel-Version',
      'string',
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      { wide: true },
    ),
    column(
      'Container-Runtime',
      'string',
      'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      { wide: true },
    ),
  ],
  cells: (node, now) => {
    const info = node.status?.nodeInfo ?? {};
    return [
      name(node),
      nodeStatus(node),
      nodeRoles(node),
      age(node, now),
      str(info.kubeletVersion),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      unknown(info.osImage),
      unknown(info.kernelVersion),
      unknown(info.containerRuntimeVersion),
    ];
  },
};

/**
 * An event's fields under their core/v1 names: events.k8s.io/v1 calls them regarding, note,
 * deprecatedFirstTimestamp… (upstream converts to the internal core Event before printing).
 */
function coreEvent(ev: Obj): Obj {
  if (ev.apiVersion !== 'events.k8s.io/v1' && ev.regarding === undefined && ev.note === undefined) return ev;
  return {
    ...ev,
    involvedObject: ev.regarding ?? {},
    message: ev.note,
    firstTimestamp: ev.deprecatedFirstTimestamp,
    lastTimestamp: ev.deprecatedLastTimestamp,
    count: ev.deprecatedCount,
    source: ev.deprecatedSource,
  };
}

/**
 * formatEventSource: source.component and source.host, else the reporting controller and
 * instance (core/v1 calls the controller reportingComponent, events.k8s.io/v1
 * reportingController), joined by `, ` when there is an instance.
 */
function eventSource(ev: Obj): string {
  const component = str(ev.source?.component) || str(ev.reportingController) || str(ev.reportingComponent);
  const host = str(ev.source?.host) || str(ev.reportingInstance);
  return host ? `${component}, ${host}` : component;
}

const timeSince = (t: unknown, now: number) => (typeof t === 'string' && t !== '' ? since(t, now) : '');

/**
 * printEvent (pkg/printers/internalversion/printers.go): FIRST SEEN from firstTimestamp, else
 * eventTime; LAST SEEN from lastTimestamp, else FIRST SEEN; a series gives LAST SEEN and COUNT;
 * a singleton of the new API (no count) counts 1. The `2m (x3 over 10m)` form is kubectl's own
 * (`kubectl events`, describe), not the server's table.
 */
function eventCells(raw: Obj, now: number) {
  const ev = coreEvent(raw);
  const first = timeSince(ev.firstTimestamp, now) || timeSince(ev.eventTime, now) || '<unknown>';
  let last = timeSince(ev.lastTimestamp, now) || first;
  let times = int(ev.count);
  if (ev.series) {
    last = timeSince(ev.series.lastObservedTime, now) || '<unknown>';
    times = int(ev.series.count);
  } else if (times === 0) times = 1;
  const kind = str(ev.involvedObject?.kind).toLowerCase();
  const objectName = str(ev.involvedObject?.name);
  return [
    last,
    str(ev.type),
    str(ev.reason),
    objectName ? `${kind}/${objectName}` : kind,
    str(ev.involvedObject?.fieldPath),
    eventSource(ev),
    str(ev.message).trim(),
    first,
    times,
    name(ev),
  ];
}

export const eventPrinter: Printer = {
  columns: [
    column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    column(
      'Reason',
      'string',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    column('Object', 'string', 'The object that this event is about.'),
    column(
      'Subobject',
      'string',
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].',
      { wide: true },
    ),
    column(
      'Source',
      'string',
      'The component reporting this event. Should be a short machine understandable string.',
      { wide: true },
    ),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column(
      'First Seen',
      'string',
      'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
      { wide: true },
    ),
    column('Count', 'string', 'The number of times this event has occurred.', { wide: true }),
    column('Name', 'string', 'Name must be unique within a namespace.', { wide: true, format: 'name' }),
  ],
  cells: eventCells,
};

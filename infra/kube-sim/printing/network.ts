/**
 * Printers of the networking kinds, after kubernetes/kubernetes
 * pkg/printers/internalversion/printers.go: Service (printService, getServiceExternalIP,
 * makePortString), Endpoints (formatEndpoints), EndpointSlice, Ingress (formatHosts,
 * formatPorts) and IngressClass.
 */
import { since } from './age.ts';
import { formatLabels, int, list, str } from './format.ts';
import { AGE_COLUMN, column, NAME_COLUMN, type Obj, type Printer } from './table.ts';

const name = (o: Obj) => str(o.metadata?.name);
const age = (o: Obj, now: number) => since(o.metadata?.creationTimestamp, now);
/** Load-balancer addresses are cut to this width unless wide (upstream's loadBalancerWidth). */
const LOAD_BALANCER_WIDTH = 16;

function loadBalancerAddresses(status: Obj, wide: boolean): string {
  const text = list(status?.ingress)
    .map((i) => str(i.ip) || str(i.hostname))
    .filter((a) => a !== '')
    .join(',');
  return !wide && text.length > LOAD_BALANCER_WIDTH ? `${text.slice(0, LOAD_BALANCER_WIDTH - 3)}...` : text;
}

function serviceExternalIP(svc: Obj): string {
  const external = list(svc.spec?.externalIPs).map(String);
  switch (svc.spec?.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      // The server answers for every width; kubectl's own -o wide cannot widen a server-side cell.
      const lb = loadBalancerAddresses(svc.status?.loadBalancer, false);
      if (external.length > 0) return [...external, ...(lb ? lb.split(',') : [])].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return str(svc.spec?.externalName);
    default:
      return '<unknown>';
  }
}

function servicePorts(svc: Obj): string {
  const pieces = list(svc.spec?.ports).map((p) => {
    const protocol = str(p.protocol) || 'TCP';
    return int(p.nodePort) > 0
      ? `${int(p.port)}:${int(p.nodePort)}/${protocol}`
      : `${int(p.port)}/${protocol}`;
  });
  return pieces.length > 0 ? pieces.join(',') : '<none>';
}

export const servicePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', 'type determines how the Service is exposed.'),
    column(
      'Cluster-IP',
      'string',
      'clusterIP is the IP address of the service and is usually assigned randomly.',
    ),
    column(
      'External-IP',
      'string',
      'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
    ),
    column('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
    AGE_COLUMN,
    column(
      'Selector',
      'string',
      'Route service traffic to pods with label keys and values matching this selector.',
      { wide: true },
    ),
  ],
  cells: (svc, now) => {
    const ips = list(svc.spec?.clusterIPs);
    return [
      name(svc),
      str(svc.spec?.type) || 'ClusterIP',
      ips.length > 0 ? str(ips[0]) : str(svc.spec?.clusterIP) || '<none>',
      serviceExternalIP(svc),
      servicePorts(svc),
      age(svc, now),
      formatLabels(svc.spec?.selector),
    ];
  },
};

/** Up to three entries, then `+ N more...`; `<none>` for none. */
function firstThree(entries: string[], none: string): string {
  if (entries.length === 0) return none;
  return entries.length > 3
    ? `${entries.slice(0, 3).join(',')} + ${entries.length - 3} more...`
    : entries.join(',');
}

function endpointAddresses(ep: Obj): string[] {
  const out: string[] = [];
  for (const subset of list(ep.subsets)) {
    const ports = list(subset.ports);
    for (const address of list(subset.addresses)) {
      if (ports.length === 0) out.push(str(address.ip));
      else for (const port of ports) out.push(`${str(address.ip)}:${int(port.port)}`);
    }
  }
  return out;
}

export const endpointsPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.'),
    AGE_COLUMN,
  ],
  cells: (ep, now) => [name(ep), firstThree(endpointAddresses(ep), '<none>'), age(ep, now)],
};

export const endpointSlicePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column(
      'AddressType',
      'string',
      'addressType specifies the type of address carried by this EndpointSlice.',
    ),
    column(
      'Ports',
      'string',
      'ports specifies the list of network ports exposed by each endpoint in this slice.',
    ),
    column('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.'),
    AGE_COLUMN,
  ],
  cells: (slice, now) => [
    name(slice),
    str(slice.addressType),
    firstThree(
      list(slice.ports).map((p) => String(int(p.port))),
      '<unset>',
    ),
    firstThree(
      list(slice.endpoints).flatMap((e) => list(e.addresses).map(String)),
      '<unset>',
    ),
    age(slice, now),
  ],
};

function ingressHosts(ing: Obj): string {
  const hosts = list(ing.spec?.rules)
    .map((r) => str(r.host))
    .filter((h) => h !== '');
  if (hosts.length === 0) return '*';
  return hosts.length > 3 ? `${hosts.slice(0, 3).join(',')} + ${hosts.length - 3} more...` : hosts.join(',');
}

export const ingressPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Class', 'string', 'The name of the IngressClass resource that should be used for ingress.'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    AGE_COLUMN,
  ],
  cells: (ing, now) => [
    name(ing),
    str(ing.spec?.ingressClassName) || '<none>',
    ingressHosts(ing),
    loadBalancerAddresses(ing.status?.loadBalancer, false),
    list(ing.spec?.tls).length > 0 ? '80, 443' : '80',
    age(ing, now),
  ],
};

export const ingressClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    AGE_COLUMN,
  ],
  cells: (ic, now) => {
    const p = ic.spec?.parameters;
    const parameters = p
      ? str(p.apiGroup)
        ? `${str(p.kind)}.${str(p.apiGroup)}/${str(p.name)}`
        : `${str(p.kind)}/${str(p.name)}`
      : '<none>';
    return [name(ic), str(ic.spec?.controller), parameters, age(ic, now)];
  },
};

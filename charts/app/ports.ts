/**
 * Dokku port maps (`scheme:host:container`, parsed by rules/port-maps.ts): a canonical order, and
 * the primary map the Ingresses route to. Dokku picks the primary by iterating a Go map, so it can
 * change between deploys; here it is a fixed preference over the sorted maps.
 */
import { formatPortMap, type PortMap, type PortScheme, parsePortMap } from '../../rules/port-maps.ts';

/** The PORT a process gets when no map says which port the app listens on (Dokku's default). */
export const DEFAULT_CONTAINER_PORT = 5000;

/** Schemes an Ingress can route (HTTP and gRPC over HTTP/2); tcp and udp only reach the Service. */
const ROUTABLE: ReadonlySet<PortScheme> = new Set(['http', 'https', 'grpc', 'grpcs']);

export function protocolOf(map: PortMap): 'TCP' | 'UDP' {
  return map.scheme === 'udp' ? 'UDP' : 'TCP';
}

/** Distinct valid maps in canonical order: host port, then container port, then scheme. */
export function sortedPortMaps(texts: readonly string[]): PortMap[] {
  const byText = new Map<string, PortMap>();
  for (const text of texts) {
    const map = parsePortMap(text);
    if (map) byText.set(formatPortMap(map), map);
  }
  return [...byText.values()].sort(comparePortMaps);
}

function comparePortMaps(a: PortMap, b: PortMap): number {
  return (
    a.host - b.host || a.container - b.container || (a.scheme < b.scheme ? -1 : a.scheme > b.scheme ? 1 : 0)
  );
}

export function isRoutable(map: PortMap): boolean {
  return ROUTABLE.has(map.scheme);
}

/**
 * The map Ingresses send traffic to: https:443, else http:80, else the first https, else the
 * first http, else (gRPC-only apps) the first grpcs, else the first grpc — "first" in canonical
 * order. Undefined when no map is routable.
 */
export function primaryPortMap(maps: readonly PortMap[]): PortMap | undefined {
  const sorted = [...maps].sort(comparePortMaps);
  return (
    sorted.find((m) => m.scheme === 'https' && m.host === 443) ??
    sorted.find((m) => m.scheme === 'http' && m.host === 80) ??
    sorted.find((m) => m.scheme === 'https') ??
    sorted.find((m) => m.scheme === 'http') ??
    sorted.find((m) => m.scheme === 'grpcs') ??
    sorted.find((m) => m.scheme === 'grpc')
  );
}

/** The port the app listens on (its `PORT`): the primary map's container port, else 5000. */
export function webContainerPort(maps: readonly PortMap[]): number {
  return primaryPortMap(maps)?.container ?? DEFAULT_CONTAINER_PORT;
}

/** Container ports of the web container: one per distinct (port, protocol), sorted. */
export function containerPorts(
  maps: readonly PortMap[],
): { containerPort: number; protocol: 'TCP' | 'UDP' }[] {
  const seen = new Map<string, { containerPort: number; protocol: 'TCP' | 'UDP' }>();
  for (const map of maps) {
    const protocol = protocolOf(map);
    seen.set(`${map.container}/${protocol}`, { containerPort: map.container, protocol });
  }
  return [...seen.values()].sort(
    (a, b) => a.containerPort - b.containerPort || (a.protocol < b.protocol ? -1 : 1),
  );
}

/** Why these maps cannot share one Service, or undefined: two maps on one host port and protocol. */
export function portMapConflict(maps: readonly PortMap[]): string | undefined {
  const byPort = new Map<string, PortMap>();
  for (const map of [...maps].sort(comparePortMaps)) {
    const key = `${map.host}/${protocolOf(map)}`;
    const other = byPort.get(key);
    if (other) {
      return `${formatPortMap(other)} and ${formatPortMap(map)} both use ${protocolOf(map)} port ${map.host} of the Service`;
    }
    byPort.set(key, map);
  }
  return undefined;
}

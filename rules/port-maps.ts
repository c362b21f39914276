/**
 * Dokku port maps, `scheme:host:container` (dokku.com/docs/networking/port-management): the
 * scheme says how the port is exposed (http/https/grpc/grpcs through an Ingress, tcp/udp on the
 * Service only); both ports are TCP/UDP port numbers as Kubernetes accepts them
 * (k8s.io/apimachinery validation IsValidPortNum: 1 to 65535).
 */
import { z } from 'zod';

export const PORT_SCHEMES = ['http', 'https', 'tcp', 'udp', 'grpc', 'grpcs'] as const;
export type PortScheme = (typeof PORT_SCHEMES)[number];

const PORT_MIN = 1;
const PORT_MAX = 65_535;

export interface PortMap {
  scheme: PortScheme;
  host: number;
  container: number;
}

const PORT_MAP = new RegExp(`^(${PORT_SCHEMES.join('|')}):([0-9]{1,5}):([0-9]{1,5})$`);

export const PORT_MAP_MESSAGE = `must be scheme:host-port:container-port with scheme one of ${PORT_SCHEMES.join(', ')} and ports from ${PORT_MIN} to ${PORT_MAX} (e.g. http:80:5000)`;

export const isPortNumber = (port: number): boolean =>
  Number.isInteger(port) && port >= PORT_MIN && port <= PORT_MAX;

/** The parsed map, or undefined when `text` is not `scheme:host:container` with ports 1–65535. */
export function parsePortMap(text: string): PortMap | undefined {
  const m = PORT_MAP.exec(text);
  if (!m) return undefined;
  const host = Number(m[2]);
  const container = Number(m[3]);
  if (!isPortNumber(host) || !isPortNumber(container)) return undefined;
  return { scheme: m[1] as PortScheme, host, container };
}

export function formatPortMap(map: PortMap): string {
  return `${map.scheme}:${map.host}:${map.container}`;
}

/** A port map as text (stored and sent as written; parse it with parsePortMap). */
export const portMap = z.string().refine((text) => parsePortMap(text) !== undefined, PORT_MAP_MESSAGE);

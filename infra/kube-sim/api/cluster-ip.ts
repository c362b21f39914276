/**
 * The Service allocators of kube-apiserver (pkg/registry/core/service/storage/alloc.go with
 * ipallocator and portallocator): clusterIPs from the service CIDR 10.96.0.0/12 and node ports
 * from 30000-32767, chosen at random (range-allocator.ts), each held by one Service.
 *
 * A write asks in three steps, as upstream's allocation transaction does:
 * 1. defaulting picks free values for what the Service leaves empty (`picker(owner)`), without
 *    holding them yet, so a write refused later leaks nothing;
 * 2. `verify` refuses values the user asked for that another Service holds or that lie outside
 *    the range, with upstream's field errors (after validation, as beginCreate/beginUpdate run
 *    after the strategy's Validate);
 * 3. `reserveFrom` makes the stored Service hold exactly the values it carries, releasing those it
 *    dropped (a type change from NodePort to ClusterIP frees its node ports); `releaseFrom` on delete.
 * 10.96.0.1 goes to the `kubernetes` Service, which bootstrap creates first, as on kubeadm.
 */
import type { FieldError } from '../errors.ts';
import type { KubeObject } from '../types.ts';
import { RangeAllocator } from './range-allocator.ts';

export const SERVICE_CIDR = '10.96.0.0/12';
const BASE = (10 << 24) | (96 << 16);
const IP_COUNT = 1 << 20;
export const NODE_PORT_RANGE = { base: 30000, size: 2768 } as const;
const NODE_PORT_TEXT = '30000-32767';

/** calculateRangeOffset (ipallocator / portallocator): the static band below the dynamic one. */
function staticBand(size: number, min: number, max: number, step: number): number {
  return Math.min(Math.max(min, Math.floor(size / step)), max);
}

function ipText(offset: number): string {
  const n = BASE + offset;
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The offset of an IPv4 text in the service CIDR, or undefined when it is not in it. */
function ipOffset(ip: string): number | undefined {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  const n = ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
  const offset = n - BASE;
  // The network and broadcast addresses are never handed out (ipallocator's range excludes them).
  return offset > 0 && offset < IP_COUNT - 1 ? offset : undefined;
}

interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ports?: { nodePort?: number }[];
  healthCheckNodePort?: number;
}

const ownerOf = (service: KubeObject) => `${service.metadata.namespace ?? ''}/${service.metadata.name ?? ''}`;
const specOf = (service: KubeObject) => (service.spec ?? {}) as ServiceSpec;
const ipsOf = (spec: ServiceSpec) =>
  (spec.clusterIPs ?? []).filter((ip): ip is string => typeof ip === 'string' && ip !== '' && ip !== 'None');
const nodePortsOf = (spec: ServiceSpec) => {
  const ports: { field: string; port: number }[] = [];
  (spec.ports ?? []).forEach((p, i) => {
    if (typeof p?.nodePort === 'number' && p.nodePort !== 0)
      ports.push({ field: `spec.ports[${i}].nodePort`, port: p.nodePort });
  });
  if (typeof spec.healthCheckNodePort === 'number' && spec.healthCheckNodePort !== 0)
    ports.push({ field: 'spec.healthCheckNodePort', port: spec.healthCheckNodePort });
  return ports;
};

/** Thrown when a range has nothing left; upstream answers 500 `failed to allocate a serviceIP: range is full`. */
export class RangeFullError extends Error {
  constructor(what: 'serviceIP' | 'nodePort') {
    super(`failed to allocate a ${what}: range is full`);
    this.name = 'RangeFullError';
  }
}

export class ClusterIPAllocator {
  private readonly ips: RangeAllocator;
  private readonly ports: RangeAllocator;

  constructor(random: () => number = Math.random) {
    this.ips = new RangeAllocator(IP_COUNT, staticBand(IP_COUNT, 16, 256, 16), random);
    this.ports = new RangeAllocator(
      NODE_PORT_RANGE.size,
      staticBand(NODE_PORT_RANGE.size, 16, 128, 32),
      random,
    );
  }

  /**
   * Free values for one write: each call returns a different one; nothing is held until the
   * written Service is stored (`reserveFrom`).
   */
  picker(): { allocateClusterIP(): string; allocateNodePort(): number } {
    const pickedIPs = new Set<number>();
    const pickedPorts = new Set<number>();
    return {
      allocateClusterIP: () => {
        const offset = this.ips.pickFree(pickedIPs, (o) => o > 0 && o < IP_COUNT - 1);
        if (offset === undefined) throw new RangeFullError('serviceIP');
        pickedIPs.add(offset);
        return ipText(offset);
      },
      allocateNodePort: () => {
        const offset = this.ports.pickFree(pickedPorts);
        if (offset === undefined) throw new RangeFullError('nodePort');
        pickedPorts.add(offset);
        return NODE_PORT_RANGE.base + offset;
      },
    };
  }

  /** Requested clusterIPs and node ports another Service holds, or outside their ranges (allocIPs, allocNodePorts). */
  verify(service: KubeObject): FieldError[] {
    if (service.kind !== 'Service') return [];
    const owner = ownerOf(service);
    const spec = specOf(service);
    const errors: FieldError[] = [];
    for (const ip of ipsOf(spec)) {
      const offset = ipOffset(ip);
      const reason =
        offset === undefined
          ? `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`
          : (this.ips.ownerOf(offset) ?? owner) !== owner
            ? 'provided IP is already allocated'
            : undefined;
      if (reason) {
        // Upstream stops at the first IP it cannot allocate and reports the whole list.
        errors.push({
          type: 'FieldValueInvalid',
          field: 'spec.clusterIPs',
          value: spec.clusterIPs,
          detail: `failed to allocate IP ${ip}: ${reason}`,
        });
        break;
      }
    }
    // Duplicates within one Service are validation's to report (ValidateService); TCP and UDP of
    // one port share their node port.
    for (const { field, port } of nodePortsOf(spec)) {
      const offset = port - NODE_PORT_RANGE.base;
      const reason =
        offset < 0 || offset >= NODE_PORT_RANGE.size
          ? `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_TEXT}`
          : (this.ports.ownerOf(offset) ?? owner) !== owner
            ? 'provided port is already allocated'
            : undefined;
      if (reason) {
        errors.push({ type: 'FieldValueInvalid', field, value: port, detail: reason });
        break;
      }
    }
    return errors;
  }

  /** The stored Service holds exactly the values it carries (also after loading a snapshot). */
  reserveFrom(object: KubeObject): void {
    if (object.kind !== 'Service') return;
    const owner = ownerOf(object);
    const spec = specOf(object);
    const ips = new Set<number>();
    for (const ip of ipsOf(spec)) {
      const offset = ipOffset(ip);
      if (offset !== undefined) ips.add(offset);
    }
    const ports = new Set<number>();
    for (const { port } of nodePortsOf(spec)) {
      const offset = port - NODE_PORT_RANGE.base;
      if (offset >= 0 && offset < NODE_PORT_RANGE.size) ports.add(offset);
    }
    this.ips.releaseAllBut(owner, ips);
    this.ports.releaseAllBut(owner, ports);
    for (const o of ips) this.ips.hold(o, owner);
    for (const o of ports) this.ports.hold(o, owner);
  }

  releaseFrom(object: KubeObject): void {
    if (object.kind !== 'Service') return;
    const owner = ownerOf(object);
    this.ips.releaseAllBut(owner, new Set());
    this.ports.releaseAllBut(owner, new Set());
  }
}

/**
 * Service clusterIP allocation from the default service CIDR 10.96.0.0/12. 10.96.0.1 belongs to
 * the `kubernetes` service, as on a kubeadm cluster; addresses are reused after a Service goes.
 */
import type { KubeObject } from '../types.ts';

const BASE = (10 << 24) | (96 << 16);
const SIZE = 1 << 20;

function toText(n: number): string {
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export class ClusterIPAllocator {
  private readonly used = new Set<string>([toText(BASE + 1)]);
  private next = 10;

  allocate(): string {
    for (let tries = 0; tries < SIZE; tries++) {
      const ip = toText(BASE + (this.next % SIZE));
      this.next++;
      if (!this.used.has(ip) && !ip.endsWith('.0') && !ip.endsWith('.255')) {
        this.used.add(ip);
        return ip;
      }
    }
    throw new Error('service CIDR 10.96.0.0/12 is exhausted');
  }

  private ipsOf(object: KubeObject): string[] {
    if (object.kind !== 'Service') return [];
    const spec = object.spec as { clusterIP?: string; clusterIPs?: string[] } | undefined;
    return [spec?.clusterIP, ...(spec?.clusterIPs ?? [])].filter((ip): ip is string => !!ip && ip !== 'None');
  }

  /** Marks a stored Service's addresses as used (also after loading a snapshot). */
  reserveFrom(object: KubeObject): void {
    for (const ip of this.ipsOf(object)) this.used.add(ip);
  }

  releaseFrom(object: KubeObject): void {
    for (const ip of this.ipsOf(object)) this.used.delete(ip);
  }
}

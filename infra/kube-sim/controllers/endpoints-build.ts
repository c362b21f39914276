/**
 * What a Service's endpoints are, from its Pods (pkg/controller/endpoint/endpoints_controller.go
 * syncService, pkg/controller/endpointslice and staging/src/k8s.io/endpointslice/utils.go,
 * pkg/api/v1/endpoints RepackSubsets): the Pods its selector matches in its namespace that have
 * an IP and are not finished; ready ones as addresses, the others as notReadyAddresses (all ready
 * with publishNotReadyAddresses); Pods being deleted leave Endpoints, and stay in slices as
 * terminating (serving while ready). Each Service port resolves per Pod (podutil.FindPort):
 * a number as is, a name through the Pod's container ports; a Pod lacking a named port has no
 * endpoint for it. Pods with the same resolved ports share a subset (a slice).
 */
import { matchesEquality } from '../selectors.ts';
import type { KubeObject } from '../types.ts';
import { isPodReady } from './pod-util.ts';
import type { Pod } from './workload-types.ts';

export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  targetPort?: number | string;
  appProtocol?: string;
}

export interface Service extends KubeObject {
  spec: {
    selector?: Record<string, string>;
    ports?: ServicePort[];
    publishNotReadyAddresses?: boolean;
    ipFamilies?: string[];
  };
}

export interface ResolvedPort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

export interface PodEndpoint {
  pod: Pod;
  ip: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  ports: ResolvedPort[];
}

/** podutil.FindPort. */
function findPort(pod: Pod, port: ServicePort): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  if (/^[0-9]+$/.test(target)) return Number(target);
  for (const c of pod.spec.containers) {
    const ports = (c.ports ?? []) as { name?: string; containerPort: number; protocol?: string }[];
    const found = ports.find((p) => p.name === target && (p.protocol ?? 'TCP') === (port.protocol ?? 'TCP'));
    if (found) return found.containerPort;
  }
  return undefined;
}

/** The Pods a Service with a selector has endpoints for, with their resolved ports. */
export function podEndpoints(service: Service, pods: Pod[]): PodEndpoint[] {
  const selector = service.spec.selector ?? {};
  const out: PodEndpoint[] = [];
  for (const pod of pods) {
    if (!matchesEquality(selector, pod.metadata.labels)) continue;
    const ip = pod.status?.podIP;
    const phase = pod.status?.phase;
    if (!ip || phase === 'Succeeded' || phase === 'Failed') continue;
    const ready = isPodReady(pod);
    const ports: ResolvedPort[] = [];
    for (const sp of service.spec.ports ?? []) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      ports.push({
        name: sp.name ?? '',
        port,
        protocol: sp.protocol ?? 'TCP',
        ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
      });
    }
    const terminating = !!pod.metadata.deletionTimestamp;
    out.push({
      pod,
      ip,
      ready: (ready || service.spec.publishNotReadyAddresses === true) && !terminating,
      serving: ready || service.spec.publishNotReadyAddresses === true,
      terminating,
      ports,
    });
  }
  return out.sort((a, b) => compareIPs(a.ip, b.ip));
}

function compareIPs(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 4; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** Groups endpoints by their resolved ports, in first-seen order. */
export function byPortSet(endpoints: PodEndpoint[]): { ports: ResolvedPort[]; endpoints: PodEndpoint[] }[] {
  const groups = new Map<string, { ports: ResolvedPort[]; endpoints: PodEndpoint[] }>();
  for (const e of endpoints) {
    const key = JSON.stringify(e.ports);
    const group = groups.get(key) ?? { ports: e.ports, endpoints: [] };
    group.endpoints.push(e);
    groups.set(key, group);
  }
  return [...groups.values()];
}

const targetRef = (pod: Pod) => ({
  kind: 'Pod',
  namespace: pod.metadata.namespace,
  name: pod.metadata.name,
  uid: pod.metadata.uid,
});

/** Endpoints subsets: terminating Pods left out, ports sorted by name as RepackSubsets does. */
export function endpointsSubsets(endpoints: PodEndpoint[]): unknown[] {
  const subsets: unknown[] = [];
  for (const group of byPortSet(endpoints.filter((e) => !e.terminating))) {
    // A Pod on which no Service port resolves is in no subset (upstream skips it).
    if (group.ports.length === 0) continue;
    const address = (e: PodEndpoint) => ({
      ip: e.ip,
      ...(e.pod.spec.nodeName ? { nodeName: e.pod.spec.nodeName } : {}),
      targetRef: targetRef(e.pod),
    });
    const ready = group.endpoints.filter((e) => e.ready).map(address);
    const notReady = group.endpoints.filter((e) => !e.ready).map(address);
    subsets.push({
      ...(ready.length ? { addresses: ready } : {}),
      ...(notReady.length ? { notReadyAddresses: notReady } : {}),
      ports: [...group.ports]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((p) => ({
          ...(p.name ? { name: p.name } : {}),
          port: p.port,
          protocol: p.protocol,
          ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
        })),
    });
  }
  return subsets;
}

/** One EndpointSlice endpoint (utils.go podToEndpoint). */
export function sliceEndpoint(e: PodEndpoint): unknown {
  return {
    addresses: [e.ip],
    conditions: { ready: e.ready, serving: e.serving, terminating: e.terminating },
    targetRef: targetRef(e.pod),
    ...(e.pod.spec.nodeName ? { nodeName: e.pod.spec.nodeName } : {}),
  };
}

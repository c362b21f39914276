/**
 * Service defaults as clients observe them: SetDefaults_Service (pkg/apis/core/v1/defaults.go),
 * then what the registry does before validating (pkg/registry/core/service/strategy.go
 * patchAllocatedValues, NormalizeClusterIPs, dropTypeDependentFields; storage/alloc.go
 * initIPFamilyFields and the allocation of clusterIPs and node ports) on kube-sim's single-stack
 * IPv4 cluster.
 */
import { isIP } from 'node:net';
import {
  type DefaultingContext,
  ensureObject,
  type JsonObject,
  objectAt,
  objectsAt,
  setDefault,
} from './context.ts';

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function sameList(a: unknown, b: unknown): boolean {
  return JSON.stringify(strings(a)) === JSON.stringify(strings(b));
}

function externallyAccessible(spec: JsonObject): boolean {
  const type = str(spec.type);
  return (
    type === 'LoadBalancer' ||
    type === 'NodePort' ||
    (type === 'ClusterIP' && strings(spec.externalIPs).length > 0)
  );
}

function needsNodePorts(spec: JsonObject): boolean {
  return str(spec.type) === 'NodePort' || str(spec.type) === 'LoadBalancer';
}

function needsHealthCheck(spec: JsonObject): boolean {
  return str(spec.type) === 'LoadBalancer' && str(spec.externalTrafficPolicy) === 'Local';
}

/** SetDefaults_Service. */
function setServiceDefaults(service: JsonObject, spec: JsonObject): void {
  setDefault(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const clientIP = objectAt(objectAt(spec, 'sessionAffinityConfig') ?? {}, 'clientIP');
    if (!clientIP || typeof clientIP.timeoutSeconds !== 'number') {
      spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
    }
  }
  setDefault(spec, 'type', 'ClusterIP');
  for (const port of objectsAt(spec, 'ports')) {
    setDefault(port, 'protocol', 'TCP');
    if (
      port.targetPort === undefined ||
      port.targetPort === null ||
      port.targetPort === 0 ||
      port.targetPort === ''
    ) {
      port.targetPort = port.port;
    }
  }
  if (externallyAccessible(spec)) setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  const type = str(spec.type);
  if (
    (spec.internalTrafficPolicy === undefined || spec.internalTrafficPolicy === null) &&
    type !== 'ExternalName'
  ) {
    spec.internalTrafficPolicy = 'Cluster';
  }
  if (type === 'LoadBalancer') {
    setDefault(spec, 'allocateLoadBalancerNodePorts', true);
    const ingress = objectsAt(objectAt(objectAt(service, 'status') ?? {}, 'loadBalancer') ?? {}, 'ingress');
    for (const entry of ingress) if (str(entry.ip) !== '' && entry.ipMode === undefined) entry.ipMode = 'VIP';
  }
}

/** patchAllocatedValues: an update that omits allocated values keeps the stored ones. */
function patchAllocated(spec: JsonObject, oldSpec: JsonObject): void {
  if (str(oldSpec.type) !== 'ExternalName' && str(spec.type) !== 'ExternalName') {
    if (str(spec.clusterIP) === '' && str(oldSpec.clusterIP) !== '') spec.clusterIP = oldSpec.clusterIP;
    if (strings(spec.clusterIPs).length === 0 && strings(oldSpec.clusterIPs).length > 0)
      spec.clusterIPs = oldSpec.clusterIPs;
  }
  if (needsNodePorts(oldSpec) && needsNodePorts(spec)) {
    const byName = new Map(objectsAt(oldSpec, 'ports').map((p) => [str(p.name), p.nodePort]));
    const used = new Set(objectsAt(spec, 'ports').map((p) => p.nodePort));
    for (const port of objectsAt(spec, 'ports')) {
      if (port.nodePort !== undefined && port.nodePort !== 0) continue;
      const old = byName.get(str(port.name));
      if (typeof old === 'number' && !used.has(old)) port.nodePort = old;
    }
  }
  if (needsHealthCheck(oldSpec) && needsHealthCheck(spec) && !spec.healthCheckNodePort) {
    spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
  }
}

/** dropTypeDependentFields: fields the old type needed, unchanged by the user, go with it. */
function dropTypeDependent(spec: JsonObject, oldSpec: JsonObject): void {
  if (str(spec.type) === 'ExternalName' && str(oldSpec.type) !== 'ExternalName') {
    if (str(spec.clusterIP) === str(oldSpec.clusterIP) && sameList(spec.clusterIPs, oldSpec.clusterIPs)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (sameList(spec.ipFamilies, oldSpec.ipFamilies)) delete spec.ipFamilies;
    if (spec.ipFamilyPolicy === oldSpec.ipFamilyPolicy) delete spec.ipFamilyPolicy;
  }
  if (needsNodePorts(oldSpec) && !needsNodePorts(spec)) {
    const oldPorts = new Map(objectsAt(oldSpec, 'ports').map((p) => [str(p.name), p.nodePort]));
    for (const port of objectsAt(spec, 'ports'))
      if (oldPorts.get(str(port.name)) === port.nodePort) delete port.nodePort;
  }
  if (
    needsHealthCheck(oldSpec) &&
    !needsHealthCheck(spec) &&
    spec.healthCheckNodePort === oldSpec.healthCheckNodePort
  ) {
    delete spec.healthCheckNodePort;
  }
  // A type that needs no externalTrafficPolicy drops an unchanged one (strategy.go).
  if (
    externallyAccessible(oldSpec) &&
    !externallyAccessible(spec) &&
    spec.externalTrafficPolicy === oldSpec.externalTrafficPolicy
  ) {
    delete spec.externalTrafficPolicy;
  }
  if (
    str(spec.type) !== 'LoadBalancer' &&
    spec.allocateLoadBalancerNodePorts === oldSpec.allocateLoadBalancerNodePorts
  ) {
    delete spec.allocateLoadBalancerNodePorts;
  }
}

/** NormalizeClusterIPs: keep clusterIP and clusterIPs in step for clients that set only one. */
function normalizeClusterIPs(spec: JsonObject, oldSpec: JsonObject | undefined): void {
  const clusterIP = str(spec.clusterIP);
  if (!oldSpec) {
    if (clusterIP !== '' && strings(spec.clusterIPs).length === 0) spec.clusterIPs = [clusterIP];
    return;
  }
  const oldIP = str(oldSpec.clusterIP);
  if (oldIP !== '' && clusterIP === '' && sameList(spec.clusterIPs, oldSpec.clusterIPs))
    delete spec.clusterIPs;
  if (
    oldIP !== '' &&
    clusterIP !== '' &&
    clusterIP !== oldIP &&
    sameList(spec.clusterIPs, oldSpec.clusterIPs)
  ) {
    spec.clusterIPs = [clusterIP];
  }
}

/** initIPFamilyFields for a cluster whose only family is IPv4. */
function initIPFamilies(spec: JsonObject, oldSpec: JsonObject | undefined): void {
  const selectorless = Object.keys(objectAt(spec, 'selector') ?? {}).length === 0;
  const headlessSelectorless = str(spec.clusterIP) === 'None' && selectorless;
  if (spec.ipFamilyPolicy === undefined || spec.ipFamilyPolicy === null) {
    if (oldSpec && typeof oldSpec.ipFamilyPolicy === 'string') spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
    else spec.ipFamilyPolicy = headlessSelectorless ? 'RequireDualStack' : 'SingleStack';
  }
  const families = strings(spec.ipFamilies);
  strings(spec.clusterIPs).forEach((ip, i) => {
    if (ip === 'None' || i < families.length) return;
    const family = isIP(ip);
    if (family === 4) families.push('IPv4');
    else if (family === 6) families.push('IPv6');
  });
  if (families.length === 0) families.push('IPv4');
  if (headlessSelectorless && families.length < 2 && spec.ipFamilyPolicy !== 'SingleStack') {
    families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
  }
  spec.ipFamilies = families;
}

/** allocClusterIPs and initNodePorts. */
function allocate(spec: JsonObject, ctx: DefaultingContext): void {
  const ips = strings(spec.clusterIPs);
  if (ips[0] !== 'None' && strings(spec.ipFamilies)[0] === 'IPv4') {
    if (ips.length === 0 || ips[0] === '') ips[0] = ctx.allocateClusterIP();
    spec.clusterIPs = ips;
    spec.clusterIP = ips[0];
  }
  const allocatePorts =
    str(spec.type) === 'NodePort' ||
    (str(spec.type) === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
  if (allocatePorts && ctx.allocateNodePort) {
    const byPort = new Map<unknown, unknown>();
    for (const port of objectsAt(spec, 'ports')) {
      if (port.nodePort !== undefined && port.nodePort !== 0) {
        byPort.set(port.port, port.nodePort);
        continue;
      }
      // Ports sharing a port number (TCP and UDP) share a node port.
      port.nodePort = byPort.get(port.port) ?? ctx.allocateNodePort();
      byPort.set(port.port, port.nodePort);
    }
  }
  if (needsHealthCheck(spec) && !spec.healthCheckNodePort && ctx.allocateNodePort) {
    spec.healthCheckNodePort = ctx.allocateNodePort();
  }
}

export function defaultService(service: JsonObject, ctx: DefaultingContext): void {
  const spec = ensureObject(service, 'spec');
  const oldSpec = ctx.old ? objectAt(ctx.old, 'spec') : undefined;
  setServiceDefaults(service, spec);
  if (oldSpec) {
    patchAllocated(spec, oldSpec);
    dropTypeDependent(spec, oldSpec);
  }
  normalizeClusterIPs(spec, oldSpec);
  if (str(spec.type) === 'ExternalName') return;
  // An IPv6 clusterIP cannot be served here; leave the families alone so validation reports it.
  if (strings(spec.clusterIPs).some((ip) => isIP(ip) === 6)) return;
  initIPFamilies(spec, oldSpec);
  allocate(spec, ctx);
}

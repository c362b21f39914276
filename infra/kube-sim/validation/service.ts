/**
 * Services (pkg/apis/core/validation ValidateService, validateServicePort, ValidateServiceUpdate,
 * ValidateServiceStatusUpdate). On create and update the allocator's checks run first and, when
 * they fail, alone: upstream allocates (and refuses) before the strategy validates.
 */
import type { FieldError } from '../errors.ts';
import { type JsonObject, list, num, obj, objOrEmpty, str } from './access.ts';
import { child, duplicate, forbidden, index, invalid, notSupported, type Path, required } from './field.ts';
import { ipFamilyOf, validateCIDR, validateIP } from './ip.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidPortNum,
  nameIsDNS1035Label,
} from './names.ts';
import { validatePortNumOrName } from './probes.ts';
import { validateLabels } from './selector.ts';
import {
  isHeadless,
  specOf,
  validateClusterIPFields,
  validateClusterIPsUpdate,
  validateExternalNameIPFields,
  validateFamilyAllocation,
  validateIPFamiliesUpdate,
} from './service-ips.ts';

const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const AFFINITIES = ['ClientIP', 'None'];
const MAX_AFFINITY_SECONDS = 86400;

function externallyAccessible(spec: JsonObject): boolean {
  const type = str(spec.type);
  return (
    type === 'LoadBalancer' ||
    type === 'NodePort' ||
    (type === 'ClusterIP' && list(spec.externalIPs).length > 0)
  );
}

function needsHealthCheck(spec: JsonObject): boolean {
  return str(spec.type) === 'LoadBalancer' && str(spec.externalTrafficPolicy) === 'Local';
}

/** validateServicePort. */
function validatePort(port: JsonObject, requireName: boolean, names: Set<string>, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(port.name);
  if (requireName && name.length === 0) errs.push(required(child(path, 'name')));
  else if (name.length !== 0) {
    errs.push(...isDNS1123Label(name).map((msg) => invalid(child(path, 'name'), name, msg)));
    if (names.has(name)) errs.push(duplicate(child(path, 'name'), name));
    else names.add(name);
  }
  const portNum = num(port.port) ?? 0;
  errs.push(...isValidPortNum(portNum).map((msg) => invalid(child(path, 'port'), portNum, msg)));
  const protocol = str(port.protocol);
  if (protocol.length === 0) errs.push(required(child(path, 'protocol')));
  else if (!PROTOCOLS.includes(protocol))
    errs.push(notSupported(child(path, 'protocol'), protocol, PROTOCOLS));
  errs.push(...validatePortNumOrName(port.targetPort, child(path, 'targetPort')));
  if (typeof port.appProtocol === 'string') {
    errs.push(
      ...isQualifiedName(port.appProtocol).map((msg) =>
        invalid(child(path, 'appProtocol'), port.appProtocol, msg),
      ),
    );
  }
  return errs;
}

/** ValidateNonSpecialIP, for externalIPs. */
function validateNonSpecialIP(ip: string, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const family = ipFamilyOf(ip);
  const normalized = ip.toLowerCase();
  if ((family === 4 && /^0+\.0+\.0+\.0+$/.test(ip)) || (family === 6 && /^[0:]+$/.test(normalized))) {
    errs.push(invalid(path, ip, `may not be unspecified (${ip})`));
  }
  if ((family === 4 && /^0*127\./.test(ip)) || normalized === '::1') {
    errs.push(invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  }
  if ((family === 4 && /^0*169\.0*254\./.test(ip)) || (family === 6 && /^fe[89ab]/.test(normalized))) {
    errs.push(invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  }
  if ((family === 4 && /^0*224\.0+\.0+\./.test(ip)) || (family === 6 && normalized.startsWith('ff02:'))) {
    errs.push(invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return errs;
}

function validateSessionAffinity(spec: JsonObject): FieldError[] {
  const affinity = str(spec.sessionAffinity);
  if (affinity.length === 0) return [required('spec.sessionAffinity')];
  if (!AFFINITIES.includes(affinity)) return [notSupported('spec.sessionAffinity', affinity, AFFINITIES)];
  const config = obj(spec.sessionAffinityConfig);
  const configPath = 'spec.sessionAffinityConfig';
  if (affinity === 'None')
    return config ? [forbidden(configPath, 'must not be set when session affinity is None')] : [];
  const when = 'when session affinity type is ClientIP';
  if (!config) return [required(configPath, when)];
  const clientIP = obj(config.clientIP);
  if (!clientIP) return [required(child(configPath, 'clientIP'), when)];
  const timeout = num(clientIP.timeoutSeconds);
  const timeoutPath = child(configPath, 'clientIP', 'timeoutSeconds');
  if (timeout === undefined) return [required(timeoutPath, when)];
  if (timeout <= 0 || timeout > MAX_AFFINITY_SECONDS) {
    return [invalid(timeoutPath, timeout, `must be greater than 0 and less than ${MAX_AFFINITY_SECONDS}`)];
  }
  return [];
}

function validateTrafficPolicies(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const external = str(spec.externalTrafficPolicy);
  if (!externallyAccessible(spec)) {
    if (external !== '') {
      errs.push(
        invalid('spec.externalTrafficPolicy', external, 'may only be set for externally-accessible services'),
      );
    }
  } else if (external === '') errs.push(required('spec.externalTrafficPolicy'));
  else if (external !== 'Cluster' && external !== 'Local') {
    errs.push(notSupported('spec.externalTrafficPolicy', external, ['Cluster', 'Local']));
  }
  const healthCheckNodePort = num(spec.healthCheckNodePort) ?? 0;
  if (!needsHealthCheck(spec)) {
    if (healthCheckNodePort !== 0) {
      errs.push(
        invalid(
          'spec.healthCheckNodePort',
          healthCheckNodePort,
          "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ),
      );
    }
  } else if (healthCheckNodePort === 0) errs.push(required('spec.healthCheckNodePort'));
  else
    errs.push(
      ...isValidPortNum(healthCheckNodePort).map((msg) =>
        invalid('spec.healthCheckNodePort', healthCheckNodePort, msg),
      ),
    );
  const internal = spec.internalTrafficPolicy;
  const type = str(spec.type);
  if (typeof internal !== 'string') {
    if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP')
      errs.push(required('spec.internalTrafficPolicy'));
  } else if (internal !== 'Cluster' && internal !== 'Local') {
    errs.push(notSupported('spec.internalTrafficPolicy', internal, ['Cluster', 'Local']));
  }
  if (typeof spec.trafficDistribution === 'string' && spec.trafficDistribution !== 'PreferClose') {
    errs.push(notSupported('spec.trafficDistribution', spec.trafficDistribution, ['PreferClose']));
  }
  return errs;
}

function validateLoadBalancerFields(spec: JsonObject, oldSpec: JsonObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const isLB = str(spec.type) === 'LoadBalancer';
  const ranges = list(spec.loadBalancerSourceRanges).map(str);
  if (ranges.length > 0) {
    const p = 'spec.LoadBalancerSourceRanges';
    if (!isLB) errs.push(forbidden(p, "may only be used when `type` is 'LoadBalancer'"));
    ranges.forEach((r, i) => {
      errs.push(...validateCIDR(r.trim(), index(p, i)));
    });
  }
  if (
    spec.allocateLoadBalancerNodePorts !== undefined &&
    spec.allocateLoadBalancerNodePorts !== null &&
    !isLB
  ) {
    errs.push(
      forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"),
    );
  }
  if (
    isLB &&
    (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null)
  ) {
    errs.push(required('allocateLoadBalancerNodePorts'));
  }
  const lbClass = spec.loadBalancerClass;
  if (
    oldSpec &&
    str(oldSpec.type) === 'LoadBalancer' &&
    isLB &&
    (oldSpec.loadBalancerClass ?? null) !== (lbClass ?? null)
  ) {
    errs.push(invalid('spec.loadBalancerClass', lbClass ?? null, 'may not change once set'));
  }
  if (typeof lbClass === 'string') {
    if (isLB)
      errs.push(...isQualifiedName(lbClass).map((msg) => invalid('spec.loadBalancerClass', lbClass, msg)));
    else errs.push(forbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"));
  }
  return errs;
}

/** ValidateService. */
export function validateService(service: unknown, oldSpec?: JsonObject): FieldError[] {
  const spec = specOf(service);
  const errs = validateObjectMeta(service, { namespaced: true, nameFn: nameIsDNS1035Label });
  const type = str(spec.type);
  const ports = list(spec.ports).map(objOrEmpty);
  const headless = isHeadless(spec);
  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(required('spec.ports'));
  if (headless && (type === 'LoadBalancer' || type === 'NodePort')) {
    errs.push(invalid(index('spec.clusterIPs', 0), 'None', `may not be set to 'None' for ${type} services`));
  }
  if (type === 'ExternalName') {
    errs.push(...validateExternalNameIPFields(spec));
    const cname = str(spec.externalName).replace(/\.$/, '');
    if (cname.length > 0)
      errs.push(...isDNS1123Subdomain(cname).map((msg) => invalid('spec.externalName', cname, msg)));
    else errs.push(required('spec.externalName'));
  }
  const names = new Set<string>();
  ports.forEach((port, i) => {
    errs.push(...validatePort(port, ports.length > 1, names, index('spec.ports', i)));
  });
  if (spec.selector !== undefined && spec.selector !== null)
    errs.push(...validateLabels(spec.selector, 'spec.selector'));
  errs.push(...validateSessionAffinity(spec));
  errs.push(...validateClusterIPFields(spec));
  list(spec.externalIPs)
    .map(str)
    .forEach((ip, i) => {
      const p = index('spec.externalIPs', i);
      const ipErrs = validateIP(ip, p);
      errs.push(...(ipErrs.length > 0 ? ipErrs : validateNonSpecialIP(ip, p)));
    });
  if (type.length === 0) errs.push(required('spec.type'));
  else if (!TYPES.includes(type)) errs.push(notSupported('spec.type', type, TYPES));
  if (type === 'ClusterIP') {
    ports.forEach((port, i) => {
      if ((num(port.nodePort) ?? 0) !== 0) {
        errs.push(
          forbidden(child(index('spec.ports', i), 'nodePort'), "may not be used when `type` is 'ClusterIP'"),
        );
      }
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    const nodePort = num(port.nodePort) ?? 0;
    if (nodePort === 0) return;
    const k = `${str(port.protocol)}/${nodePort}`;
    if (nodePorts.has(k)) errs.push(duplicate(child(index('spec.ports', i), 'nodePort'), nodePort));
    nodePorts.add(k);
  });
  const seenPorts = new Set<string>();
  ports.forEach((port, i) => {
    const k = `${str(port.protocol)}/${num(port.port) ?? 0}`;
    if (seenPorts.has(k))
      errs.push(
        duplicate(index('spec.ports', i), { protocol: str(port.protocol), port: num(port.port) ?? 0 }),
      );
    seenPorts.add(k);
  });
  errs.push(...validateLoadBalancerFields(spec, oldSpec));
  errs.push(...validateTrafficPolicies(spec));
  return errs;
}

/** The allocator's refusals (ClusterIP fields, families); upstream returns them before validating. */
function allocationErrors(spec: JsonObject): FieldError[] {
  const related = validateClusterIPFields(spec);
  return related.length > 0 ? related : validateFamilyAllocation(spec);
}

export function validateServiceCreate(service: unknown): FieldError[] {
  const refused = allocationErrors(specOf(service));
  return refused.length > 0 ? refused : validateService(service);
}

/** ValidateServiceUpdate. */
export function validateServiceUpdate(service: unknown, old: unknown): FieldError[] {
  const spec = specOf(service);
  const oldSpec = specOf(old);
  const refused = allocationErrors(spec);
  if (refused.length > 0) return refused;
  const errs = validateObjectMetaUpdate(service, old);
  errs.push(...validateClusterIPsUpdate(spec, oldSpec));
  errs.push(...validateIPFamiliesUpdate(spec, oldSpec));
  if (
    needsHealthCheck(oldSpec) &&
    needsHealthCheck(spec) &&
    spec.healthCheckNodePort !== oldSpec.healthCheckNodePort
  ) {
    errs.push(forbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  errs.push(...validateService(service, oldSpec));
  return errs;
}

/** ValidateServiceStatusUpdate: load balancer ingress entries. */
export function validateServiceStatusUpdate(service: unknown, old: unknown): FieldError[] {
  const errs = validateObjectMetaUpdate(service, old);
  const ingress = list(objOrEmpty(objOrEmpty(objOrEmpty(service).status).loadBalancer).ingress).map(
    objOrEmpty,
  );
  const ingressPath = 'status.loadBalancer.ingress';
  if (str(specOf(service).type) !== 'LoadBalancer' && ingress.length > 0) {
    return [...errs, forbidden(ingressPath, "may only be used when `spec.type` is 'LoadBalancer'")];
  }
  ingress.forEach((entry, i) => {
    const p = index(ingressPath, i);
    const ip = str(entry.ip);
    if (ip) errs.push(...validateIP(ip, child(p, 'ip')));
    if (ip && entry.ipMode === undefined)
      errs.push(required(child(p, 'ipMode'), 'must be specified when `ip` is set'));
    const hostname = str(entry.hostname);
    if (hostname) {
      errs.push(...isDNS1123Subdomain(hostname).map((msg) => invalid(child(p, 'hostname'), hostname, msg)));
      if (ipFamilyOf(hostname) !== 0)
        errs.push(invalid(child(p, 'hostname'), hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

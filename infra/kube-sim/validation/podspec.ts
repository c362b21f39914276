/**
 * PodSpec and PodTemplateSpec (pkg/apis/core/validation ValidatePodSpec, ValidatePodTemplateSpec,
 * validatePodSpecSecurityContext, ValidateTolerations, validatePodDNSConfig, ...). Affinity and
 * topology spread constraints are not looked into.
 */
import type { FieldError } from '../errors.ts';
import { bool, type JsonObject, list, num, obj, objOrEmpty, str, stringMap } from './access.ts';
import { validateContainers, validateInitContainers, validateSeccompProfile } from './containers.ts';
import { child, duplicate, forbidden, index, invalid, notSupported, type Path, required } from './field.ts';
import { validateIP } from './ip.ts';
import { validateTemplateMeta } from './metadata.ts';
import {
  inclusiveRangeError,
  isDNS1123Label,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSSubdomain,
} from './names.ts';
import { validateLabelName, validateLabels } from './selector.ts';
import { validateVolumes } from './volumes.ts';

const MAX_INT32 = 2147483647;
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export interface PodSpecOptions {
  /** The spec belongs to a Pod rather than a template (opts.ResourceIsPod). */
  isPod: boolean;
}

function subdomainErrors(value: string, path: Path): FieldError[] {
  return nameIsDNSSubdomain(value, false).map((msg) => invalid(path, value, msg));
}

function labelErrors(value: string, path: Path): FieldError[] {
  return isDNS1123Label(value).map((msg) => invalid(path, value, msg));
}

/** ValidateTolerations. */
export function validateTolerations(value: unknown, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  list(value).forEach((raw, i) => {
    const t = objOrEmpty(raw);
    const p = index(path, i);
    const k = str(t.key);
    const operator = str(t.operator);
    const effect = str(t.effect);
    const tolValue = str(t.value);
    if (k.length > 0) errs.push(...validateLabelName(k, child(p, 'key')));
    if (k.length === 0 && operator !== 'Exists') {
      errs.push(
        invalid(
          child(p, 'operator'),
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== 'NoExecute') {
      errs.push(
        invalid(child(p, 'effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"),
      );
    }
    if (operator === 'Equal' || operator === '') {
      const msgs = isValidLabelValue(tolValue);
      if (msgs.length > 0) errs.push(invalid(child(p, 'operator'), tolValue, msgs.join(';')));
    } else if (operator === 'Exists') {
      if (tolValue.length > 0)
        errs.push(invalid(child(p, 'operator'), tolValue, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(notSupported(child(p, 'operator'), operator, ['Equal', 'Exists']));
    }
    if (effect.length > 0 && !TAINT_EFFECTS.includes(effect))
      errs.push(notSupported(child(p, 'effect'), effect, TAINT_EFFECTS));
  });
  return errs;
}

/** validatePodSpecSecurityContext. */
function validatePodSecurityContext(spec: JsonObject, path: Path): FieldError[] {
  const sc = obj(spec.securityContext);
  if (!sc) return [];
  const errs: FieldError[] = [];
  for (const f of ['fsGroup', 'runAsUser', 'runAsGroup']) {
    const id = num(sc[f]);
    if (id !== undefined && (id < 0 || id > MAX_INT32))
      errs.push(invalid(child(path, f), id, inclusiveRangeError(0, MAX_INT32)));
  }
  list(sc.supplementalGroups).forEach((raw, i) => {
    const id = num(raw);
    if (id !== undefined && (id < 0 || id > MAX_INT32)) {
      errs.push(invalid(index(child(path, 'supplementalGroups'), i), id, inclusiveRangeError(0, MAX_INT32)));
    }
  });
  if (bool(spec.shareProcessNamespace) === true && bool(spec.hostPID) === true) {
    errs.push(
      invalid(
        child(path, 'shareProcessNamespace'),
        true,
        'ShareProcessNamespace and HostPID cannot both be enabled',
      ),
    );
  }
  const names = new Set<string>();
  list(sc.sysctls).forEach((raw, i) => {
    const name = str(objOrEmpty(raw).name);
    const p = child(index(child(path, 'sysctls'), i), 'name');
    if (name.length === 0) errs.push(required(p));
    else if (
      name.length > 253 ||
      !/^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/.test(name)
    ) {
      errs.push(
        invalid(
          p,
          name,
          'must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$',
        ),
      );
    } else if (names.has(name)) errs.push(duplicate(p, name));
    names.add(name);
  });
  const fsGroupPolicy = sc.fsGroupChangePolicy;
  if (typeof fsGroupPolicy === 'string' && fsGroupPolicy !== 'OnRootMismatch' && fsGroupPolicy !== 'Always') {
    errs.push(notSupported(child(path, 'fsGroupChangePolicy'), fsGroupPolicy, ['Always', 'OnRootMismatch']));
  }
  errs.push(...validateSeccompProfile(sc.seccompProfile, child(path, 'seccompProfile')));
  return errs;
}

/** validatePodDNSConfig. */
function validateDNSConfig(spec: JsonObject, path: Path): FieldError[] {
  const config = obj(spec.dnsConfig);
  if (str(spec.dnsPolicy) === 'None') {
    if (!config) return [required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (list(config.nameservers).length === 0) {
      return [
        required(
          child(path, 'nameservers'),
          'must provide at least one DNS nameserver when `dnsPolicy` is None',
        ),
      ];
    }
  }
  if (!config) return [];
  const errs: FieldError[] = [];
  const nameservers = list(config.nameservers).map(str);
  if (nameservers.length > 3)
    errs.push(invalid(child(path, 'nameservers'), nameservers, 'must not have more than 3 nameservers'));
  nameservers.forEach((ns, i) => {
    errs.push(...validateIP(ns, index(child(path, 'nameservers'), i)));
  });
  const searches = list(config.searches).map(str);
  if (searches.length > 32)
    errs.push(invalid(child(path, 'searches'), searches, 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) {
    errs.push(
      invalid(
        child(path, 'searches'),
        searches,
        'must not have more than 2048 characters (including spaces) in the search list',
      ),
    );
  }
  list(config.options).forEach((raw, i) => {
    if (str(objOrEmpty(raw).name).length === 0)
      errs.push(required(index(child(path, 'options'), i), 'must not be empty'));
  });
  return errs;
}

/** validatePodHostNetworkDeps: with hostNetwork, host ports equal container ports. */
function validateHostNetwork(spec: JsonObject, opts: PodSpecOptions, path: Path): FieldError[] {
  if (bool(spec.hostNetwork) !== true) return [];
  const errs: FieldError[] = [];
  list(spec.containers).forEach((c, i) => {
    list(objOrEmpty(c).ports).forEach((raw, j) => {
      const port = objOrEmpty(raw);
      const hostPort = num(port.hostPort) ?? 0;
      if ((opts.isPod || hostPort !== 0) && hostPort !== (num(port.containerPort) ?? 0)) {
        const p = child(index(child(index(child(path, 'containers'), i), 'ports'), j), 'hostPort');
        errs.push(invalid(p, hostPort, 'must match `containerPort` when `hostNetwork` is true'));
      }
    });
  });
  return errs;
}

function validateResourceClaims(value: unknown, path: Path): { names: Set<string>; errors: FieldError[] } {
  const names = new Set<string>();
  const errors: FieldError[] = [];
  list(value).forEach((raw, i) => {
    const claim = objOrEmpty(raw);
    const p = index(path, i);
    const name = str(claim.name);
    if (name === '') errors.push(required(child(p, 'name')));
    else if (names.has(name)) errors.push(duplicate(child(p, 'name'), name));
    else {
      errors.push(...labelErrors(name, child(p, 'name')));
      names.add(name);
    }
    const byName = typeof claim.resourceClaimName === 'string';
    const byTemplate = typeof claim.resourceClaimTemplateName === 'string';
    if (byName && byTemplate) {
      errors.push(
        invalid(
          p,
          claim,
          'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified',
        ),
      );
    }
    if (!byName && !byTemplate)
      errors.push(invalid(p, claim, 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'));
  });
  return { names, errors };
}

/** ValidatePodSpec. */
export function validatePodSpec(value: unknown, path: Path, opts: PodSpecOptions): FieldError[] {
  const spec = objOrEmpty(value);
  const errs: FieldError[] = [];
  const gracePeriod = num(spec.terminationGracePeriodSeconds);
  if (gracePeriod === undefined) errs.push(required(child(path, 'terminationGracePeriodSeconds')));
  const hostUsers =
    bool(objOrEmpty(spec.securityContext).hostUsers) !== false && bool(spec.hostUsers) !== false;
  const { volumes, errors: volumeErrors } = validateVolumes(spec.volumes, child(path, 'volumes'));
  errs.push(...volumeErrors);
  const claims = validateResourceClaims(spec.resourceClaims, child(path, 'resourceClaims'));
  errs.push(...claims.errors);
  const ctx = { volumes, claimNames: claims.names, gracePeriod, hostUsers };
  errs.push(...validateContainers(spec.containers, ctx, child(path, 'containers')));
  errs.push(
    ...validateInitContainers(spec.initContainers, spec.containers, ctx, child(path, 'initContainers')),
  );
  errs.push(...validateHostNetwork(spec, opts, path));
  const restartPolicy = str(spec.restartPolicy);
  if (restartPolicy === '') errs.push(required(child(path, 'restartPolicy')));
  else if (!RESTART_POLICIES.includes(restartPolicy)) {
    errs.push(notSupported(child(path, 'restartPolicy'), restartPolicy, RESTART_POLICIES));
  }
  const dnsPolicy = str(spec.dnsPolicy);
  if (dnsPolicy === '') errs.push(required(child(path, 'dnsPolicy')));
  else if (!DNS_POLICIES.includes(dnsPolicy))
    errs.push(notSupported(child(path, 'dnsPolicy'), dnsPolicy, DNS_POLICIES));
  errs.push(...validateLabels(spec.nodeSelector, child(path, 'nodeSelector')));
  errs.push(...validatePodSecurityContext(spec, child(path, 'securityContext')));
  list(spec.imagePullSecrets).forEach((raw, i) => {
    const ref = objOrEmpty(raw);
    if (Object.keys(ref).some((k) => k !== 'name')) {
      errs.push(invalid(index(child(path, 'imagePullSecrets'), i), ref, 'only name may be set'));
    }
  });
  errs.push(...validateDNSConfig(spec, child(path, 'dnsConfig')));
  list(spec.readinessGates).forEach((raw, i) => {
    const type = str(objOrEmpty(raw).conditionType);
    const p = child(index(child(path, 'readinessGates'), i), 'conditionType');
    errs.push(...isQualifiedName(type).map((msg) => invalid(p, type, msg)));
  });
  const gates = new Set<string>();
  list(spec.schedulingGates).forEach((raw, i) => {
    const name = str(objOrEmpty(raw).name);
    const p = index(child(path, 'schedulingGates'), i);
    errs.push(...isQualifiedName(name).map((msg) => invalid(p, name, msg)));
    if (gates.has(name)) errs.push(duplicate(p, name));
    gates.add(name);
  });
  const serviceAccountName = str(spec.serviceAccountName);
  if (serviceAccountName)
    errs.push(...subdomainErrors(serviceAccountName, child(path, 'serviceAccountName')));
  const nodeName = str(spec.nodeName);
  if (nodeName) errs.push(...subdomainErrors(nodeName, child(path, 'nodeName')));
  const deadline = num(spec.activeDeadlineSeconds);
  if (deadline !== undefined && (deadline < 1 || deadline > MAX_INT32)) {
    errs.push(invalid(child(path, 'activeDeadlineSeconds'), deadline, inclusiveRangeError(1, MAX_INT32)));
  }
  if (str(spec.hostname)) errs.push(...labelErrors(str(spec.hostname), child(path, 'hostname')));
  if (str(spec.subdomain)) errs.push(...labelErrors(str(spec.subdomain), child(path, 'subdomain')));
  errs.push(...validateTolerations(spec.tolerations, child(path, 'tolerations')));
  list(spec.hostAliases).forEach((raw, i) => {
    const alias = objOrEmpty(raw);
    const p = index(child(path, 'hostAliases'), i);
    errs.push(...validateIP(str(alias.ip), child(p, 'ip')));
    list(alias.hostnames).forEach((h, j) => {
      errs.push(...subdomainErrors(str(h), index(child(p, 'hostnames'), j)));
    });
  });
  if (str(spec.priorityClassName))
    errs.push(...subdomainErrors(str(spec.priorityClassName), child(path, 'priorityClassName')));
  if (typeof spec.runtimeClassName === 'string') {
    errs.push(...subdomainErrors(spec.runtimeClassName, child(path, 'runtimeClassName')));
  }
  const preemption = spec.preemptionPolicy;
  if (typeof preemption === 'string') {
    if (preemption === '') errs.push(required(child(path, 'preemptionPolicy')));
    else if (preemption !== 'PreemptLowerPriority' && preemption !== 'Never') {
      errs.push(notSupported(child(path, 'preemptionPolicy'), preemption, ['PreemptLowerPriority', 'Never']));
    }
  }
  const os = obj(spec.os);
  if (os) {
    const name = str(os.name);
    if (name === '') errs.push(required(child(path, 'os', 'name'), 'cannot be empty'));
    else if (name !== 'linux' && name !== 'windows')
      errs.push(notSupported(child(path, 'os'), name, ['linux', 'windows']));
  }
  return errs;
}

/** ValidatePodTemplateSpec: template labels/annotations on `template.labels`, then the spec. */
export function validatePodTemplateSpec(value: unknown, path: Path): FieldError[] {
  const template = objOrEmpty(value);
  const errs = validateTemplateMeta(template.metadata, path);
  errs.push(...validatePodSpec(template.spec, child(path, 'spec'), { isPod: false }));
  if (list(objOrEmpty(template.spec).ephemeralContainers).length > 0) {
    errs.push(
      forbidden(
        child(path, 'spec', 'ephemeralContainers'),
        'ephemeral containers not allowed in pod template',
      ),
    );
  }
  return errs;
}

/** The template's labels, as selectors see them. */
export function templateLabels(template: unknown): Record<string, string> {
  return stringMap(objOrEmpty(objOrEmpty(template).metadata).labels);
}

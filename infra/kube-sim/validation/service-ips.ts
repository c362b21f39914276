/**
 * Service cluster IPs and IP families: pkg/apis/core/validation
 * ValidateServiceClusterIPsRelatedFields, validateUpgradeDowngradeClusterIPs/IPFamilies, and the
 * checks pkg/registry/core/service/storage/alloc.go (initIPFamilyFields) makes before allocating,
 * for kube-sim's single-stack IPv4 cluster.
 */
import type { FieldError } from '../errors.ts';
import { type JsonObject, list, objOrEmpty, str } from './access.ts';
import { duplicate, forbidden, index, invalid, notSupported, type Path, required } from './field.ts';
import { ipFamilyOf, validateIP } from './ip.ts';

const FAMILIES = ['IPv4', 'IPv6'];
const POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const CLUSTER_FAMILY = 'IPv4';

export function specOf(service: unknown): JsonObject {
  return objOrEmpty(objOrEmpty(service).spec);
}

export function isHeadless(spec: JsonObject): boolean {
  const ips = list(spec.clusterIPs);
  return ips.length === 1 && ips[0] === 'None';
}

/** ValidateServiceClusterIPsRelatedFields. */
export function validateClusterIPFields(spec: JsonObject): FieldError[] {
  if (str(spec.type) === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ipsPath: Path = 'spec.clusterIPs';
  const clusterIP = str(spec.clusterIP);
  const clusterIPs = list(spec.clusterIPs).map(str);
  if (clusterIP.length !== 0) {
    if (clusterIPs.length === 0) errs.push(required(ipsPath));
    else if (clusterIPs[0] !== clusterIP)
      errs.push(invalid(ipsPath, clusterIPs, 'first value must match `clusterIP`'));
  } else if (clusterIPs.length !== 0) {
    errs.push(invalid(ipsPath, clusterIPs, 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  list(spec.ipFamilies)
    .map(str)
    .forEach((family, i) => {
      if (!FAMILIES.includes(family)) errs.push(notSupported(index('spec.ipFamilies', i), family, FAMILIES));
      if (seen.has(family)) errs.push(duplicate(index('spec.ipFamilies', i), family));
      seen.add(family);
    });
  const policy = spec.ipFamilyPolicy;
  if (typeof policy === 'string' && !POLICIES.includes(policy))
    errs.push(notSupported('spec.ipFamilyPolicy', policy, POLICIES));
  let invalidIPs = false;
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (clusterIPs.length > 1) {
        invalidIPs = true;
        errs.push(invalid(ipsPath, clusterIPs, "'None' must be the first and only value"));
      }
      return;
    }
    const ipErrs = validateIP(ip, index(ipsPath, i));
    if (ipErrs.length > 0) invalidIPs = true;
    errs.push(...ipErrs);
  });
  if (clusterIPs.length > 2) errs.push(invalid(ipsPath, clusterIPs, 'may only hold up to 2 values'));
  if (invalidIPs) return errs;
  if (clusterIPs.length > 1 && ipFamilyOf(clusterIPs[0] ?? '') === ipFamilyOf(clusterIPs[1] ?? '')) {
    errs.push(invalid(ipsPath, clusterIPs, 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(spec)) {
    const families = list(spec.ipFamilies).map(str);
    clusterIPs.forEach((ip, i) => {
      if (i > families.length - 1) return;
      const v6 = ipFamilyOf(ip) === 6;
      if (families[i] === 'IPv4' && v6) {
        errs.push(
          invalid(index(ipsPath, i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``),
        );
      }
      if (families[i] === 'IPv6' && !v6) {
        errs.push(
          invalid(index(ipsPath, i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``),
        );
      }
    });
  }
  return errs;
}

/** initIPFamilyFields: what allocation refuses on this IPv4-only cluster. */
export function validateFamilyAllocation(spec: JsonObject): FieldError[] {
  if (str(spec.type) === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const policy = str(spec.ipFamilyPolicy);
  const clusterIPs = list(spec.clusterIPs).map(str);
  const families = list(spec.ipFamilies).map(str);
  if (policy === 'SingleStack') {
    if (clusterIPs.length === 2) {
      errs.push(
        invalid(
          'spec.ipFamilyPolicy',
          policy,
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
        ),
      );
    }
    if (families.length === 2) {
      errs.push(
        invalid(
          'spec.ipFamilyPolicy',
          policy,
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
        ),
      );
    }
  }
  clusterIPs.forEach((ip, i) => {
    if (ip === 'None' || i < families.length) return;
    if (ipFamilyOf(ip) === 6)
      errs.push(invalid(index('spec.clusterIPs', i), clusterIPs, 'IPv6 is not configured on this cluster'));
  });
  if (errs.length > 0) return errs;
  // Headless services without a selector may carry both families even on a single-stack cluster.
  if (str(spec.clusterIP) === 'None' && Object.keys(objOrEmpty(spec.selector)).length === 0) return errs;
  if (policy === 'RequireDualStack') {
    errs.push(
      invalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'),
    );
  }
  families.forEach((family, i) => {
    if (family !== CLUSTER_FAMILY)
      errs.push(invalid(index('spec.ipFamilies', i), family, 'not configured on this cluster'));
  });
  return errs;
}

/** validateUpgradeDowngradeClusterIPs: the primary clusterIP never changes once set. */
export function validateClusterIPsUpdate(spec: JsonObject, oldSpec: JsonObject): FieldError[] {
  if (str(spec.type) === 'ExternalName' || str(oldSpec.type) === 'ExternalName') return [];
  if (isHeadless(spec) && isHeadless(oldSpec)) return [];
  const errs: FieldError[] = [];
  const ips = list(spec.clusterIPs).map(str);
  const oldIPs = list(oldSpec.clusterIPs).map(str);
  if (oldIPs.length === ips.length) {
    oldIPs.forEach((ip, i) => {
      if (ip !== ips[i]) errs.push(invalid(index('spec.clusterIPs', i), ips, 'may not change once set'));
    });
  } else if (oldIPs.length > ips.length) {
    if (ips.length === 0)
      errs.push(invalid(index('spec.clusterIPs', 0), ips, 'primary clusterIP can not be unset'));
    if (oldIPs.length > 0 && ips.length > 0 && ips[0] !== oldIPs[0]) {
      errs.push(invalid(index('spec.clusterIPs', 0), ips, 'may not change once set'));
    }
    if (ips.length === 1 && str(spec.ipFamilyPolicy) !== 'SingleStack') {
      errs.push(
        invalid(
          'spec.ipFamilyPolicy',
          spec.ipFamilyPolicy ?? null,
          "must be set to 'SingleStack' when releasing the secondary clusterIP",
        ),
      );
    }
  } else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) {
    errs.push(invalid(index('spec.clusterIPs', 0), ips, 'may not change once set'));
  }
  return errs;
}

/** validateUpgradeDowngradeIPFamilies. */
export function validateIPFamiliesUpdate(spec: JsonObject, oldSpec: JsonObject): FieldError[] {
  if (str(spec.type) === 'ExternalName' || str(oldSpec.type) === 'ExternalName') return [];
  if (isHeadless(spec) !== isHeadless(oldSpec) || isHeadless(spec)) return [];
  const errs: FieldError[] = [];
  const families = list(spec.ipFamilies).map(str);
  const oldFamilies = list(oldSpec.ipFamilies).map(str);
  const ips = list(spec.clusterIPs).map(str);
  if (oldFamilies.length === families.length) {
    oldFamilies.forEach((f, i) => {
      if (f !== families[i])
        errs.push(invalid(index('spec.ipFamilies', 0), families, 'may not change once set'));
    });
  } else if (oldFamilies.length > families.length) {
    if (ips.length === 0)
      errs.push(invalid(index('spec.ipFamilies', 0), families, 'primary ipFamily can not be unset'));
    if (families.length > 0 && families[0] !== oldFamilies[0]) {
      errs.push(invalid(index('spec.ipFamilies', 0), ips, 'may not change once set'));
    }
    if (families.length === 1 && str(spec.ipFamilyPolicy) !== 'SingleStack') {
      errs.push(
        invalid(
          'spec.ipFamilyPolicy',
          spec.ipFamilyPolicy ?? null,
          "must be set to 'SingleStack' when releasing the secondary ipFamily",
        ),
      );
    }
  } else if (oldFamilies.length > 0 && families.length > 0 && families[0] !== oldFamilies[0]) {
    errs.push(invalid(index('spec.ipFamilies', 0), ips, 'may not change once set'));
  }
  return errs;
}

/** ExternalName services carry none of the IP fields (checked in ValidateService). */
export function validateExternalNameIPFields(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (list(spec.clusterIPs).length > 0)
    errs.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
  if (list(spec.ipFamilies).length > 0)
    errs.push(forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
  if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) {
    errs.push(forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
  }
  return errs;
}

/**
 * networking.k8s.io/v1 Ingresses (pkg/apis/networking/validation ValidateIngressCreate,
 * ValidateIngressUpdate, ValidateIngressSpec, validateIngressRules, validateHTTPIngressPath,
 * validateIngressBackend, ValidateIngressStatusUpdate).
 */
import type { FieldError } from '../errors.ts';
import { type JsonObject, list, num, obj, objOrEmpty, str, stringMap } from './access.ts';
import { child, index, invalid, notSupported, type Path, required } from './field.ts';
import { ipFamilyOf, validateIP } from './ip.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import {
  isDNS1123Subdomain,
  isValidPathSegmentName,
  isValidPortName,
  isValidPortNum,
  isWildcardDNS1123Subdomain,
  nameIsDNS1035Label,
  nameIsDNSSubdomain,
} from './names.ts';

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

interface IngressOptions {
  allowInvalidSecretName: boolean;
  allowInvalidWildcardHostRule: boolean;
}

function hostErrors(host: string, path: Path): { errors: FieldError[]; wildcard: boolean } {
  const errors: FieldError[] = [];
  if (ipFamilyOf(host) !== 0) errors.push(invalid(path, host, 'must be a DNS name, not an IP address'));
  const wildcard = host.includes('*');
  const msgs = wildcard ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
  errors.push(...msgs.map((msg) => invalid(path, host, msg)));
  return { errors, wildcard };
}

/** validateIngressTypedLocalObjectReference (resource backends). */
function validateResourceRef(ref: JsonObject, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof ref.apiGroup === 'string') {
    errs.push(
      ...isDNS1123Subdomain(ref.apiGroup).map((msg) => invalid(child(path, 'apiGroup'), ref.apiGroup, msg)),
    );
  }
  for (const f of ['kind', 'name']) {
    const value = str(ref[f]);
    if (value === '') errs.push(required(child(path, f), `${f} is required`));
    else errs.push(...isValidPathSegmentName(value).map((msg) => invalid(child(path, f), value, msg)));
  }
  return errs;
}

/** validateIngressBackend. */
function validateBackend(backend: JsonObject, path: Path): FieldError[] {
  const resource = obj(backend.resource);
  const service = obj(backend.service);
  if (resource && service) return [invalid(path, '', 'cannot set both resource and service backends')];
  if (resource) return validateResourceRef(resource, child(path, 'resource'));
  if (!service) return [invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const name = str(service.name);
  if (name.length === 0) errs.push(required(child(path, 'service', 'name')));
  else
    errs.push(
      ...nameIsDNS1035Label(name, false).map((msg) => invalid(child(path, 'service', 'name'), name, msg)),
    );
  const port = objOrEmpty(service.port);
  const portName = str(port.name);
  const portNumber = num(port.number) ?? 0;
  if (portName.length > 0 && portNumber !== 0)
    errs.push(invalid(path, '', 'cannot set both port name & port number'));
  else if (portName.length > 0) {
    errs.push(
      ...isValidPortName(portName).map((msg) =>
        invalid(child(path, 'service', 'port', 'name'), portName, msg),
      ),
    );
  } else if (portNumber !== 0) {
    errs.push(
      ...isValidPortNum(portNumber).map((msg) =>
        invalid(child(path, 'service', 'port', 'number'), portNumber, msg),
      ),
    );
  } else errs.push(required(path, 'port name or number is required'));
  return errs;
}

/** validateHTTPIngressPath. */
function validatePath(ingressPath: JsonObject, path: Path): FieldError[] {
  const pathType = ingressPath.pathType;
  if (typeof pathType !== 'string') return [required(child(path, 'pathType'), 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = str(ingressPath.path);
  const valuePath = child(path, 'path');
  if (pathType === 'Exact' || pathType === 'Prefix') {
    if (!value.startsWith('/')) errs.push(invalid(valuePath, value, 'must be an absolute path'));
    if (value.length > 0) {
      for (const seq of INVALID_PATH_SEQUENCES)
        if (value.includes(seq)) errs.push(invalid(valuePath, value, `must not contain '${seq}'`));
      for (const suffix of INVALID_PATH_SUFFIXES)
        if (value.endsWith(suffix)) errs.push(invalid(valuePath, value, `cannot end with '${suffix}'`));
    }
  } else if (pathType === 'ImplementationSpecific') {
    if (value.length > 0 && !value.startsWith('/'))
      errs.push(invalid(valuePath, value, 'must be an absolute path'));
  } else {
    errs.push(notSupported(child(path, 'pathType'), pathType, PATH_TYPES));
  }
  errs.push(...validateBackend(objOrEmpty(ingressPath.backend), child(path, 'backend')));
  return errs;
}

/** validateIngressRules. */
function validateRules(rules: JsonObject[], opts: IngressOptions, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const rulePath = index(path, i);
    const host = str(rule.host);
    let wildcard = false;
    if (host.length > 0) {
      const checked = hostErrors(host, child(rulePath, 'host'));
      errs.push(...checked.errors);
      wildcard = checked.wildcard;
    }
    if (wildcard && opts.allowInvalidWildcardHostRule) return;
    const http = obj(rule.http);
    if (!http) return;
    const paths = list(http.paths).map(objOrEmpty);
    if (paths.length === 0) errs.push(required(child(rulePath, 'http', 'paths')));
    paths.forEach((p, j) => {
      errs.push(...validatePath(p, index(child(rulePath, 'http', 'paths'), j)));
    });
  });
  return errs;
}

/** ValidateIngressSpec. */
function validateSpec(spec: JsonObject, opts: IngressOptions): FieldError[] {
  const errs: FieldError[] = [];
  const rules = list(spec.rules).map(objOrEmpty);
  const defaultBackend = obj(spec.defaultBackend);
  if (rules.length === 0 && !defaultBackend)
    errs.push(invalid('spec', spec.rules ?? null, 'either `defaultBackend` or `rules` must be specified'));
  if (defaultBackend) errs.push(...validateBackend(defaultBackend, 'spec.defaultBackend'));
  if (rules.length > 0) errs.push(...validateRules(rules, opts, 'spec.rules'));
  list(spec.tls).forEach((raw, i) => {
    const tls = objOrEmpty(raw);
    const tlsPath = index('spec.tls', i);
    list(tls.hosts).forEach((h, j) => {
      const host = str(h);
      const msgs = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
      errs.push(...msgs.map((msg) => invalid(index(child(tlsPath, 'hosts'), j), host, msg)));
    });
    const secretName = str(tls.secretName);
    if (!opts.allowInvalidSecretName && secretName.length > 0) {
      errs.push(
        ...nameIsDNSSubdomain(secretName, false).map((msg) =>
          invalid(child(tlsPath, 'secretName'), secretName, msg),
        ),
      );
    }
  });
  if (typeof spec.ingressClassName === 'string') {
    const className = spec.ingressClassName;
    errs.push(
      ...nameIsDNSSubdomain(className, false).map((msg) => invalid('spec.ingressClassName', className, msg)),
    );
  }
  return errs;
}

function specOf(ingress: unknown): JsonObject {
  return objOrEmpty(objOrEmpty(ingress).spec);
}

function validateIngress(ingress: unknown, opts: IngressOptions): FieldError[] {
  return [
    ...validateObjectMeta(ingress, { namespaced: true, nameFn: nameIsDNSSubdomain }),
    ...validateSpec(specOf(ingress), opts),
  ];
}

/** ValidateIngressCreate. */
export function validateIngressCreate(ingress: unknown): FieldError[] {
  const errs = validateIngress(ingress, {
    allowInvalidSecretName: false,
    allowInvalidWildcardHostRule: false,
  });
  const annotation = stringMap(objOrEmpty(objOrEmpty(ingress).metadata).annotations)[CLASS_ANNOTATION];
  const className = specOf(ingress).ingressClassName;
  if (annotation !== undefined && typeof className === 'string' && annotation !== className) {
    errs.push(
      invalid(
        child('annotations', CLASS_ANNOTATION),
        annotation,
        'must match `ingressClassName` when both are specified',
      ),
    );
  }
  return errs;
}

/** ValidateIngressUpdate: what was already stored stays acceptable. */
export function validateIngressUpdate(ingress: unknown, old: unknown): FieldError[] {
  const oldSpec = specOf(old);
  const allowInvalidSecretName = list(oldSpec.tls).some((t) => {
    const name = str(objOrEmpty(t).secretName);
    return name.length > 0 && nameIsDNSSubdomain(name, false).length > 0;
  });
  const allowInvalidWildcardHostRule =
    validateRules(
      list(oldSpec.rules).map(objOrEmpty),
      { allowInvalidSecretName: true, allowInvalidWildcardHostRule: false },
      'spec.rules',
    ).length > 0;
  return [
    ...validateObjectMetaUpdate(ingress, old),
    ...validateIngress(ingress, { allowInvalidSecretName, allowInvalidWildcardHostRule }),
  ];
}

/** ValidateIngressStatusUpdate. */
export function validateIngressStatusUpdate(ingress: unknown, old: unknown): FieldError[] {
  const errs = validateObjectMetaUpdate(ingress, old);
  const entries = list(objOrEmpty(objOrEmpty(objOrEmpty(ingress).status).loadBalancer).ingress).map(
    objOrEmpty,
  );
  entries.forEach((entry, i) => {
    const p = index('status.loadBalancer.ingress', i);
    const ip = str(entry.ip);
    if (ip) errs.push(...validateIP(ip, child(p, 'ip')));
    const hostname = str(entry.hostname);
    if (hostname) {
      errs.push(...isDNS1123Subdomain(hostname).map((msg) => invalid(child(p, 'hostname'), hostname, msg)));
      if (ipFamilyOf(hostname) !== 0)
        errs.push(invalid(child(p, 'hostname'), hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

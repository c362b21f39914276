/**
 * Container resource requirements (pkg/apis/core/validation validateResourceRequirements,
 * validateContainerResourceName, ValidateResourceQuantityValue).
 */
import type { FieldError } from '../errors.ts';
import { list, objOrEmpty, str } from './access.ts';
import { child, duplicate, index, invalid, notFound, type Path, required } from './field.ts';
import { IS_NEGATIVE } from './metadata.ts';
import { isDNS1123Label, isQualifiedName } from './names.ts';
import { parseQuantity, quantityText } from './quantity.ts';

const STANDARD_CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];
const QOS_RESOURCES = ['cpu', 'memory'];

function isHugePages(name: string): boolean {
  return name.startsWith('hugepages-');
}

/** helper.IsNativeResource: unprefixed, or prefixed with a kubernetes.io domain. */
function isNative(name: string): boolean {
  return !name.includes('/') || name.split('/')[0]?.endsWith('kubernetes.io') === true;
}

/** helper.IsOvercommitAllowed: native resources other than hugepages. */
function overcommitAllowed(name: string): boolean {
  return isNative(name) && !isHugePages(name);
}

/** helper.IsStandardResourceName: compute and quota resource names without a domain. */
const STANDARD_RESOURCES = [
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
];

/** validateResourceName then validateContainerResourceName: both add their error for `foo`. */
function validateResourceName(name: string, path: Path): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => invalid(path, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes('/')) {
    if (!STANDARD_RESOURCES.includes(name) && !isHugePages(name) && !name.startsWith('requests.hugepages-')) {
      errs.push(invalid(path, name, 'must be a standard resource type or fully qualified'));
    }
    if (!STANDARD_CONTAINER_RESOURCES.includes(name) && !isHugePages(name)) {
      errs.push(invalid(path, name, 'must be a standard resource for containers'));
    }
  } else if (!isNative(name) && name.startsWith('requests.')) {
    errs.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** ValidateResourceQuantityValue: non-negative, and whole for extended resources. */
function validateQuantity(name: string, value: unknown, path: Path): FieldError[] {
  const parsed = parseQuantity(value);
  if (parsed === undefined) return [];
  const errs: FieldError[] = [];
  if (parsed < 0) errs.push(invalid(path, quantityText(value), IS_NEGATIVE));
  if (!isNative(name) && !Number.isInteger(parsed))
    errs.push(invalid(path, quantityText(value), 'must be an integer'));
  return errs;
}

/** ValidateContainerResourceRequirements. */
export function validateResourceRequirements(
  value: unknown,
  claimNames: Set<string>,
  path: Path,
): FieldError[] {
  const resources = objOrEmpty(value);
  const limits = objOrEmpty(resources.limits);
  const requests = objOrEmpty(resources.requests);
  const limPath = child(path, 'limits');
  const reqPath = child(path, 'requests');
  const errs: FieldError[] = [];
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name, quantity] of Object.entries(limits)) {
    const p = `${limPath}[${name}]`;
    errs.push(...validateResourceName(name, p), ...validateQuantity(name, quantity, p));
    if (isHugePages(name)) hugePages = true;
    if (QOS_RESOURCES.includes(name)) cpuOrMemory = true;
  }
  for (const [name, quantity] of Object.entries(requests)) {
    const p = `${reqPath}[${name}]`;
    errs.push(...validateResourceName(name, p), ...validateQuantity(name, quantity, p));
    const request = parseQuantity(quantity);
    if (Object.hasOwn(limits, name)) {
      const limit = parseQuantity(limits[name]);
      const limitText = quantityText(limits[name]);
      if (request !== undefined && limit !== undefined) {
        if (request !== limit && !overcommitAllowed(name)) {
          errs.push(
            invalid(reqPath, quantityText(quantity), `must be equal to ${name} limit of ${limitText}`),
          );
        } else if (request > limit) {
          errs.push(
            invalid(
              reqPath,
              quantityText(quantity),
              `must be less than or equal to ${name} limit of ${limitText}`,
            ),
          );
        }
      }
    } else if (!overcommitAllowed(name)) {
      errs.push(required(limPath, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePages(name)) hugePages = true;
    if (QOS_RESOURCES.includes(name)) cpuOrMemory = true;
  }
  if (!cpuOrMemory && hugePages)
    errs.push({ type: 'FieldValueForbidden', field: path, detail: 'HugePages require cpu or memory' });
  errs.push(...validateClaims(resources.claims, claimNames, child(path, 'claims')));
  return errs;
}

/** validateResourceClaimNames: claims must name entries of spec.resourceClaims. */
function validateClaims(claims: unknown, podClaims: Set<string>, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list(claims).forEach((raw, i) => {
    const claim = objOrEmpty(raw);
    const name = str(claim.name);
    const p = index(path, i);
    if (name === '') {
      errs.push(required(p));
      return;
    }
    const request = str(claim.request);
    if (request !== '')
      errs.push(...isDNS1123Label(request).map((msg) => invalid(child(p, 'request'), request, msg)));
    const k = request === '' ? name : `${name}/${request}`;
    if (seen.has(k)) errs.push(duplicate(p, k));
    seen.add(k);
    if (!podClaims.has(name)) {
      const known = [...podClaims].sort();
      const detail = `must be one of the names in pod.spec.resourceClaims${known.length === 0 ? ' which is empty' : `: ${known.join(', ')}`}`;
      errs.push(notFound(p, name, detail));
    }
  });
  return errs;
}

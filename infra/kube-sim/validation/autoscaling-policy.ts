/**
 * Validation of HorizontalPodAutoscaler (autoscaling/v2; pkg/apis/autoscaling/validation
 * ValidateHorizontalPodAutoscaler), PodDisruptionBudget (policy/v1; pkg/apis/policy/validation
 * ValidatePodDisruptionBudget) and IngressClass (networking.k8s.io/v1; pkg/apis/networking/validation
 * ValidateIngressClass), the rules a chart's objects meet in practice.
 */
import type { FieldError } from '../errors.ts';
import { list, num, obj, objOrEmpty, str } from './access.ts';
import {
  child,
  index,
  invalid,
  invalidOmitValue,
  notSupported,
  type Path,
  required,
  tooLong,
} from './field.ts';
import {
  validateImmutable,
  validateNonnegative,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from './metadata.ts';
import { isQualifiedName, isValidPercent, nameIsDNSSubdomain } from './names.ts';
import { validateLabelSelector } from './selector.ts';

// ---------------------------------------------------------------- HorizontalPodAutoscaler

const METRIC_TYPES = ['Object', 'Pods', 'Resource', 'ContainerResource', 'External'];
const TARGET_TYPES = ['Utilization', 'Value', 'AverageValue'];

function validateCrossVersionObjectReference(ref: unknown, path: Path): FieldError[] {
  const r = objOrEmpty(ref);
  const errs: FieldError[] = [];
  if (str(r.kind) === '') errs.push(required(child(path, 'kind')));
  if (str(r.name) === '') errs.push(required(child(path, 'name')));
  return errs;
}

/** validateMetricTarget: the target's type, and the value its type needs. */
function validateMetricTarget(target: unknown, path: Path): FieldError[] {
  const t = objOrEmpty(target);
  const type = str(t.type);
  const errs: FieldError[] = [];
  if (type === '') errs.push(required(child(path, 'type'), 'must specify a metric target type'));
  else if (!TARGET_TYPES.includes(type))
    errs.push(invalid(child(path, 'type'), type, 'must be either Utilization, Value, or AverageValue'));
  const utilization = num(t.averageUtilization);
  if (utilization !== undefined && utilization < 1)
    errs.push(invalid(child(path, 'averageUtilization'), utilization, 'must be greater than 0'));
  if (t.value === undefined && t.averageValue === undefined && utilization === undefined)
    errs.push(
      required(path, 'must set either a target raw value, a target average value, or a target percentage'),
    );
  return errs;
}

function validateMetricSpec(metric: unknown, path: Path): FieldError[] {
  const m = objOrEmpty(metric);
  const type = str(m.type);
  if (type === '') return [required(child(path, 'type'), 'must specify a metric source type')];
  if (!METRIC_TYPES.includes(type)) return [notSupported(child(path, 'type'), type, METRIC_TYPES)];
  const key = type.charAt(0).toLowerCase() + type.slice(1);
  const source = obj(m[key]);
  if (!source) return [required(child(path, key), `must populate information for the given metric source`)];
  const errs: FieldError[] = [];
  const sourcePath = child(path, key);
  if ((type === 'Resource' || type === 'ContainerResource') && str(source.name) === '')
    errs.push(required(child(sourcePath, 'name'), 'must specify a resource name'));
  if (type === 'ContainerResource' && str(source.container) === '')
    errs.push(required(child(sourcePath, 'container'), 'must specify a container'));
  if (type === 'Object')
    errs.push(
      ...validateCrossVersionObjectReference(source.describedObject, child(sourcePath, 'describedObject')),
    );
  if (type === 'Object' || type === 'Pods' || type === 'External') {
    if (str(objOrEmpty(source.metric).name) === '')
      errs.push(required(child(sourcePath, 'metric', 'name'), 'must specify a metric name'));
  }
  errs.push(...validateMetricTarget(source.target, child(sourcePath, 'target')));
  return errs;
}

export function validateHPA(hpa: unknown): FieldError[] {
  const errs = validateObjectMeta(hpa, { namespaced: true, nameFn: nameIsDNSSubdomain });
  const spec = objOrEmpty(objOrEmpty(hpa).spec);
  errs.push(...validateCrossVersionObjectReference(spec.scaleTargetRef, 'spec.scaleTargetRef'));
  const min = num(spec.minReplicas);
  const max = num(spec.maxReplicas) ?? 0;
  // HPAScaleToZero is alpha and off: minReplicas must be at least 1.
  if (min !== undefined && min < 1)
    errs.push(invalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (max < 1) errs.push(invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (min !== undefined && max < min)
    errs.push(invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  list(spec.metrics).forEach((m, i) => {
    errs.push(...validateMetricSpec(m, index('spec.metrics', i)));
  });
  for (const direction of ['scaleUp', 'scaleDown'] as const) {
    const rules = obj(objOrEmpty(spec.behavior)[direction]);
    const window = num(rules?.stabilizationWindowSeconds);
    const path = child('spec.behavior', direction);
    if (window !== undefined && (window < 0 || window > 3600))
      errs.push(
        invalid(
          child(path, 'stabilizationWindowSeconds'),
          window,
          window < 0 ? 'must be greater than or equal to zero' : 'must be less than or equal to 3600',
        ),
      );
  }
  return errs;
}

export function validateHPAUpdate(hpa: unknown, old: unknown): FieldError[] {
  return [...validateObjectMetaUpdate(hpa, old), ...validateHPA(hpa)];
}

/** ValidateHorizontalPodAutoscalerStatusUpdate. */
export function validateHPAStatusUpdate(hpa: unknown, old: unknown): FieldError[] {
  const status = objOrEmpty(objOrEmpty(hpa).status);
  return [
    ...validateObjectMetaUpdate(hpa, old),
    ...validateNonnegative(num(status.currentReplicas), 'status.currentReplicas'),
    ...validateNonnegative(num(status.desiredReplicas), 'status.desiredReplicas'),
  ];
}

// ---------------------------------------------------------------- PodDisruptionBudget

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
function validateIntOrPercent(value: unknown, path: Path): FieldError[] {
  if (typeof value === 'number') return validateNonnegative(value, path);
  if (typeof value !== 'string') return [];
  const errs = isValidPercent(value).map((msg) => invalid(path, value, msg));
  if (errs.length === 0 && Number(value.slice(0, -1)) > 100)
    errs.push(invalid(path, value, 'must not be greater than 100%'));
  return errs;
}

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

export function validatePDB(pdb: unknown): FieldError[] {
  const errs = validateObjectMeta(pdb, { namespaced: true, nameFn: nameIsDNSSubdomain });
  const spec = objOrEmpty(objOrEmpty(pdb).spec);
  // Upstream prints the whole spec struct (with pointer addresses) as the value; kube-sim omits it.
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined)
    errs.push(invalidOmitValue('spec', 'minAvailable and maxUnavailable cannot be both set'));
  errs.push(...validateIntOrPercent(spec.minAvailable, 'spec.minAvailable'));
  errs.push(...validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (typeof policy === 'string' && !EVICTION_POLICIES.includes(policy))
    errs.push(notSupported('spec.unhealthyPodEvictionPolicy', policy, EVICTION_POLICIES));
  return errs;
}

export function validatePDBUpdate(pdb: unknown, old: unknown): FieldError[] {
  return [...validateObjectMetaUpdate(pdb, old), ...validatePDB(pdb)];
}

/** ValidatePodDisruptionBudgetStatusUpdate: the counts are never negative. */
export function validatePDBStatusUpdate(pdb: unknown, old: unknown): FieldError[] {
  const status = objOrEmpty(objOrEmpty(pdb).status);
  const errs = validateObjectMetaUpdate(pdb, old);
  for (const field of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'])
    errs.push(...validateNonnegative(num(status[field]), child('status', field)));
  return errs;
}

// ---------------------------------------------------------------- IngressClass

const CONTROLLER_MAX = 250;
const PARAMETER_SCOPES = ['Cluster', 'Namespace'];

function validateIngressClassSpec(spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const controller = str(spec.controller);
  if (controller.length > CONTROLLER_MAX) errs.push(tooLong('spec.controller', CONTROLLER_MAX));
  if (controller === '') errs.push(required('spec.controller'));
  else {
    // A domain-prefixed path (`example.com/ingress-nginx`): the prefix a qualified name's.
    const [domain, ...path] = controller.split('/');
    if (path.length === 0 || path.join('/') === '' || isQualifiedName(`${domain}/x`).length > 0)
      errs.push(
        invalid('spec.controller', controller, 'must be a domain-prefixed path (such as "acme.io/foo")'),
      );
  }
  const params = obj(spec.parameters);
  if (params) {
    const p = 'spec.parameters';
    if (str(params.kind) === '') errs.push(required(child(p, 'kind')));
    if (str(params.name) === '') errs.push(required(child(p, 'name')));
    const scope = params.scope;
    if (typeof scope === 'string' && !PARAMETER_SCOPES.includes(scope))
      errs.push(notSupported(child(p, 'scope'), scope, PARAMETER_SCOPES));
    if (scope === 'Namespace' && str(params.namespace) === '')
      errs.push(required(child(p, 'namespace'), '`parameters.scope` is set to "Namespace"'));
    if (scope === 'Cluster' && str(params.namespace) !== '')
      errs.push({
        type: 'FieldValueForbidden',
        field: child(p, 'namespace'),
        detail: '`parameters.scope` is set to "Cluster"',
      });
  }
  return errs;
}

export function validateIngressClass(ic: unknown): FieldError[] {
  return [
    ...validateObjectMeta(ic, { namespaced: false, nameFn: nameIsDNSSubdomain }),
    ...validateIngressClassSpec(objOrEmpty(objOrEmpty(ic).spec)),
  ];
}

export function validateIngressClassUpdate(ic: unknown, old: unknown): FieldError[] {
  const spec = objOrEmpty(objOrEmpty(ic).spec);
  const oldSpec = objOrEmpty(objOrEmpty(old).spec);
  return [
    ...validateObjectMetaUpdate(ic, old),
    ...validateImmutable(spec.controller, oldSpec.controller, 'spec.controller'),
    ...validateIngressClassSpec(spec),
  ];
}

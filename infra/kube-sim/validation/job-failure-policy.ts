/**
 * A Job's `spec.podFailurePolicy` (pkg/apis/batch/validation/validation.go validatePodFailurePolicy,
 * validatePodFailurePolicyRule, validatePodFailurePolicyRuleOnExitCodes,
 * validatePodFailurePolicyRuleOnPodConditions, 1.33). The restartPolicy Never requirement stays in
 * job.ts with the other restartPolicy checks, where upstream has it too.
 */
import type { FieldError } from '../errors.ts';
import { type JsonObject, list, num, obj, objOrEmpty, str } from './access.ts';
import {
  child,
  duplicate,
  index,
  invalid,
  invalidOmitValue,
  notSupported,
  type Path,
  required,
  tooMany,
} from './field.ts';
import { isQualifiedName } from './names.ts';

const MAX_RULES = 20;
const MAX_EXIT_CODE_VALUES = 255;
const MAX_CONDITION_PATTERNS = 20;
/** sets.List order (sorted), as upstream prints them in "valid values" and NotSupported. */
const ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];

/** %q of a string list, as Go prints `fmt.Sprintf("valid values: %q", list)`. */
const quotedList = (values: string[]) => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

export function validatePodFailurePolicy(spec: JsonObject, path: Path): FieldError[] {
  const policy = objOrEmpty(spec.podFailurePolicy);
  const rulesPath = child(path, 'rules');
  const rules = list(policy.rules);
  const errs: FieldError[] = [];
  if (rules.length > MAX_RULES) errs.push(tooMany(rulesPath, rules.length, MAX_RULES));
  const podSpec = objOrEmpty(objOrEmpty(spec.template).spec);
  const containerNames = new Set(
    [...list(podSpec.containers), ...list(podSpec.initContainers)].map((c) => str(objOrEmpty(c).name)),
  );
  rules.forEach((rule, i) => {
    errs.push(...validateRule(spec, objOrEmpty(rule), index(rulesPath, i), containerNames));
  });
  return errs;
}

function validateRule(spec: JsonObject, rule: JsonObject, path: Path, containers: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const actionPath = child(path, 'action');
  const action = str(rule.action);
  if (action === '') errs.push(required(actionPath, `valid values: ${quotedList(ACTIONS)}`));
  else if (action === 'FailIndex') {
    if (num(spec.backoffLimitPerIndex) === undefined)
      errs.push(invalid(actionPath, action, 'requires the backoffLimitPerIndex to be set'));
  } else if (!ACTIONS.includes(action)) errs.push(notSupported(actionPath, action, ACTIONS));
  const onExitCodes = obj(rule.onExitCodes);
  const patterns = list(rule.onPodConditions);
  if (onExitCodes) errs.push(...validateOnExitCodes(onExitCodes, child(path, 'onExitCodes'), containers));
  if (patterns.length > 0) errs.push(...validateOnPodConditions(patterns, child(path, 'onPodConditions')));
  if (onExitCodes && patterns.length > 0)
    errs.push(invalidOmitValue(path, 'specifying both OnExitCodes and OnPodConditions is not supported'));
  if (!onExitCodes && patterns.length === 0)
    errs.push(invalidOmitValue(path, 'specifying one of OnExitCodes and OnPodConditions is required'));
  return errs;
}

function validateOnPodConditions(patterns: unknown[], path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (patterns.length > MAX_CONDITION_PATTERNS)
    errs.push(tooMany(path, patterns.length, MAX_CONDITION_PATTERNS));
  patterns.forEach((p, j) => {
    const pattern = objOrEmpty(p);
    const patternPath = index(path, j);
    const type = str(pattern.type);
    for (const msg of isQualifiedName(type)) errs.push(invalid(child(patternPath, 'type'), type, msg));
    const status = str(pattern.status);
    const statusPath = child(patternPath, 'status');
    if (status === '') errs.push(required(statusPath, `valid values: ${quotedList(CONDITION_STATUSES)}`));
    else if (!CONDITION_STATUSES.includes(status))
      errs.push(notSupported(statusPath, status, CONDITION_STATUSES));
  });
  return errs;
}

function validateOnExitCodes(req: JsonObject, path: Path, containers: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const operatorPath = child(path, 'operator');
  const operator = str(req.operator);
  if (operator === '') errs.push(required(operatorPath, `valid values: ${quotedList(OPERATORS)}`));
  else if (!OPERATORS.includes(operator)) errs.push(notSupported(operatorPath, operator, OPERATORS));
  if (typeof req.containerName === 'string' && !containers.has(req.containerName)) {
    errs.push(
      invalid(
        child(path, 'containerName'),
        req.containerName,
        'must be one of the container or initContainer names in the pod template',
      ),
    );
  }
  const valuesPath = child(path, 'values');
  const values = list(req.values).map((v) => num(v) ?? 0);
  if (values.length === 0) errs.push(invalid(valuesPath, values, 'at least one value is required'));
  else if (values.length > MAX_EXIT_CODE_VALUES)
    errs.push(tooMany(valuesPath, values.length, MAX_EXIT_CODE_VALUES));
  const seen = new Set<number>();
  let ordered = true;
  values.forEach((value, j) => {
    const valuePath = index(valuesPath, j);
    if (operator === 'In' && value === 0)
      errs.push(invalid(valuePath, value, 'must not be 0 for the In operator'));
    if (seen.has(value)) errs.push(duplicate(valuePath, value));
    else seen.add(value);
    if (j > 0 && values[j - 1]! > value) ordered = false;
  });
  if (!ordered) errs.push(invalid(valuesPath, values, 'must be ordered'));
  return errs;
}

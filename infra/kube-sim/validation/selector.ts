/**
 * metav1.LabelSelector: validation (apimachinery/pkg/apis/meta/v1/validation
 * ValidateLabelSelector), conversion success (metav1.LabelSelectorAsSelector) and matching.
 */
import type { FieldError } from '../errors.ts';
import { list, obj, str, stringMap } from './access.ts';
import { child, forbidden, index, invalid, type Path, required } from './field.ts';
import { isQualifiedName, isValidLabelValue } from './names.ts';

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** ValidateLabelName. */
export function validateLabelName(name: string, path: Path): FieldError[] {
  return isQualifiedName(name).map((msg) => invalid(path, name, msg));
}

/** ValidateLabels: every error of a map is reported on the map's own path. */
export function validateLabels(labels: unknown, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(stringMap(labels))) {
    errs.push(...validateLabelName(k, path));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(path, v, msg));
  }
  return errs;
}

/** ValidateLabelSelector with LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector}. */
export function validateLabelSelector(
  selector: unknown,
  path: Path,
  allowInvalidLabelValue = false,
): FieldError[] {
  const sel = obj(selector);
  if (!sel) return [];
  const errs = validateLabels(sel.matchLabels, child(path, 'matchLabels'));
  list(sel.matchExpressions).forEach((raw, i) => {
    const expr = obj(raw) ?? {};
    const exprPath = index(child(path, 'matchExpressions'), i);
    const values = list(expr.values).map(str);
    const operator = str(expr.operator);
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) {
        errs.push(
          required(child(exprPath, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"),
        );
      }
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) {
        errs.push(
          forbidden(
            child(exprPath, 'values'),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          ),
        );
      }
    } else {
      errs.push(invalid(child(exprPath, 'operator'), operator, 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(str(expr.key), child(exprPath, 'key')));
    if (!allowInvalidLabelValue) {
      values.forEach((value, vi) => {
        for (const msg of isValidLabelValue(value))
          errs.push(invalid(index(child(exprPath, 'values'), vi), value, msg));
      });
    }
  });
  return errs;
}

/** Whether LabelSelectorAsSelector succeeds: every requirement passes labels.NewRequirement. */
export function selectorConverts(selector: unknown): boolean {
  const sel = obj(selector);
  if (!sel) return true;
  for (const [k, v] of Object.entries(stringMap(sel.matchLabels))) {
    if (isQualifiedName(k).length > 0 || isValidLabelValue(v).length > 0) return false;
  }
  for (const raw of list(sel.matchExpressions)) {
    const expr = obj(raw) ?? {};
    const operator = str(expr.operator);
    const values = list(expr.values).map(str);
    if (!OPERATORS.includes(operator)) return false;
    if (isQualifiedName(str(expr.key)).length > 0) return false;
    if ((operator === 'In' || operator === 'NotIn') && values.length === 0) return false;
    if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) return false;
    if (values.some((v) => isValidLabelValue(v).length > 0)) return false;
  }
  return true;
}

/** A selector with neither matchLabels nor matchExpressions (Everything()). */
export function selectorIsEmpty(selector: unknown): boolean {
  const sel = obj(selector);
  return (
    !!sel && Object.keys(stringMap(sel.matchLabels)).length === 0 && list(sel.matchExpressions).length === 0
  );
}

/** labels.Selector.Matches of the converted selector; a nil selector is Nothing() and matches nothing. */
export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  const sel = obj(selector);
  if (!sel) return false;
  for (const [k, v] of Object.entries(stringMap(sel.matchLabels))) if (labels[k] !== v) return false;
  for (const raw of list(sel.matchExpressions)) {
    const expr = obj(raw) ?? {};
    const k = str(expr.key);
    const values = list(expr.values).map(str);
    const has = Object.hasOwn(labels, k);
    const value = labels[k];
    switch (str(expr.operator)) {
      case 'In':
        if (!has || value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (has && value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/**
 * Probes and lifecycle hooks (pkg/apis/core/validation validateProbe, validateHandler and the
 * action validators, ValidatePortNumOrName).
 */
import type { FieldError } from '../errors.ts';
import { list, num, obj, objOrEmpty, str } from './access.ts';
import { child, forbidden, invalid, notSupported, type Path, required } from './field.ts';
import { validateNonnegative } from './metadata.ts';
import { isHTTPHeaderName, isValidPortName, isValidPortNum } from './names.ts';

/** ValidatePortNumOrName: an IntOrString port. */
export function validatePortNumOrName(port: unknown, path: Path): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((msg) => invalid(path, port, msg));
  if (typeof port === 'string') return isValidPortName(port).map((msg) => invalid(path, port, msg));
  // An absent IntOrString is the integer 0.
  return isValidPortNum(0).map((msg) => invalid(path, 0, msg));
}

function validateHTTPGet(action: Record<string, unknown>, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (str(action.path).length === 0) errs.push(required(child(path, 'path')));
  errs.push(...validatePortNumOrName(action.port, child(path, 'port')));
  const scheme = str(action.scheme);
  if (scheme !== 'HTTP' && scheme !== 'HTTPS')
    errs.push(notSupported(child(path, 'scheme'), scheme, ['HTTP', 'HTTPS']));
  for (const header of list(action.httpHeaders)) {
    const name = str(objOrEmpty(header).name);
    for (const msg of isHTTPHeaderName(name)) errs.push(invalid(child(path, 'httpHeaders'), name, msg));
  }
  return errs;
}

/**
 * validateHandler: exactly one action. `sleep` only exists on lifecycle hooks; PodLifecycleSleepActionAllowZero
 * is on in 1.33, so a zero sleep is accepted.
 */
function validateHandler(
  handler: Record<string, unknown>,
  kinds: readonly string[],
  gracePeriod: number | undefined,
  path: Path,
): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const kind of kinds) {
    const action = obj(handler[kind]);
    if (!action) continue;
    const actionPath = child(path, kind);
    if (count > 0) {
      errs.push(forbidden(actionPath, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    switch (kind) {
      case 'exec':
        if (list(action.command).length === 0) errs.push(required(child(actionPath, 'command')));
        break;
      case 'httpGet':
        errs.push(...validateHTTPGet(action, actionPath));
        break;
      case 'tcpSocket':
        errs.push(...validatePortNumOrName(action.port, child(actionPath, 'port')));
        break;
      case 'grpc':
        errs.push(...validatePortNumOrName(num(action.port) ?? 0, child(actionPath, 'port')));
        break;
      case 'sleep': {
        const seconds = num(action.seconds) ?? 0;
        if (gracePeriod !== undefined && (seconds < 0 || seconds > gracePeriod)) {
          errs.push(
            invalid(
              actionPath,
              seconds,
              `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`,
            ),
          );
        }
        break;
      }
    }
  }
  if (count === 0) errs.push(required(path, 'must specify a handler type'));
  return errs;
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

/** validateProbe. */
function validateProbe(
  probe: Record<string, unknown>,
  gracePeriod: number | undefined,
  path: Path,
): FieldError[] {
  const errs = validateHandler(probe, PROBE_HANDLERS, gracePeriod, path);
  for (const f of [
    'initialDelaySeconds',
    'timeoutSeconds',
    'periodSeconds',
    'successThreshold',
    'failureThreshold',
  ]) {
    errs.push(...validateNonnegative(num(probe[f]) ?? 0, child(path, f)));
  }
  const tgps = num(probe.terminationGracePeriodSeconds);
  if (tgps !== undefined && tgps <= 0) {
    errs.push(invalid(child(path, 'terminationGracePeriodSeconds'), tgps, 'must be greater than 0'));
  }
  return errs;
}

export type ProbeKind = 'livenessProbe' | 'readinessProbe' | 'startupProbe';

/** validateLivenessProbe / validateReadinessProbe / validateStartupProbe. */
export function validateProbeOf(
  kind: ProbeKind,
  value: unknown,
  gracePeriod: number | undefined,
  path: Path,
): FieldError[] {
  const probe = obj(value);
  if (!probe) return [];
  const errs = validateProbe(probe, gracePeriod, path);
  if (kind === 'readinessProbe') {
    if (probe.terminationGracePeriodSeconds !== undefined && probe.terminationGracePeriodSeconds !== null) {
      errs.push(
        invalid(
          child(path, 'terminationGracePeriodSeconds'),
          probe.terminationGracePeriodSeconds,
          'must not be set for readinessProbes',
        ),
      );
    }
  } else {
    const threshold = num(probe.successThreshold) ?? 0;
    if (threshold !== 1) errs.push(invalid(child(path, 'successThreshold'), threshold, 'must be 1'));
  }
  return errs;
}

/** validateLifecycle. */
export function validateLifecycle(value: unknown, gracePeriod: number | undefined, path: Path): FieldError[] {
  const lifecycle = objOrEmpty(value);
  const errs: FieldError[] = [];
  for (const hook of ['postStart', 'preStop']) {
    const handler = obj(lifecycle[hook]);
    if (handler) errs.push(...validateHandler(handler, LIFECYCLE_HANDLERS, gracePeriod, child(path, hook)));
  }
  return errs;
}

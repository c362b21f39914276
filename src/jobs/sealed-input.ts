/**
 * Turning plaintext secret input (from a command line, a file, stdin) into sealed payload fields.
 * Sizes and key names are checked on the plaintext, before sealing, so the error names the real
 * problem ("set: values total 1.2 MiB") rather than the sealed size.
 */
import { isTriggerAuthKey, TRIGGER_AUTH_KEY_MESSAGE } from '../../rules/trigger-auth.ts';
import { InvalidInputError } from '../core/errors.ts';
import { envKey } from './schemas/common.ts';
import { CONFIG_MAX_BYTES } from './schemas/config.ts';
import { type SealedValue, type Sealer, sealContext } from './sealing.ts';

export function sealEnvMap(
  sealer: Sealer,
  plain: Record<string, string>,
  context: (key: string) => string,
  field: string,
): Record<string, SealedValue> {
  const issues = Object.keys(plain)
    .map((key) => ({ key, result: envKey.safeParse(key) }))
    .filter(({ result }) => !result.success)
    .map(({ key, result }) => ({
      path: `${field}.${key}`,
      message: result.error?.issues[0]?.message ?? 'invalid name',
    }));
  if (issues.length > 0) throw new InvalidInputError(issues);
  const total = Object.entries(plain).reduce(
    (n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v),
    0,
  );
  if (total > CONFIG_MAX_BYTES) {
    throw new InvalidInputError([
      {
        path: field,
        message: `names and values total ${total} bytes; a Secret holds at most ${CONFIG_MAX_BYTES} bytes`,
      },
    ]);
  }
  return Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, sealer.seal(v, context(k))]));
}

/** Config values for `app`, sealed for its `config-{app}` release; `field` names them in errors. */
export function sealConfigSet(
  sealer: Sealer,
  app: string,
  plain: Record<string, string>,
  field = 'set',
): Record<string, SealedValue> {
  return sealEnvMap(sealer, plain, (key) => sealContext.config(app, key), field);
}

export function sealRunEnv(
  sealer: Sealer,
  app: string,
  plain: Record<string, string>,
): Record<string, SealedValue> {
  return sealEnvMap(sealer, plain, (key) => sealContext.runEnv(app, key), 'env');
}

/**
 * Trigger authentication parameters of `trigger` for `app`, sealed for its Secret: names checked
 * as Secret keys (rules/trigger-auth.ts) and the total against a Secret's limit, on the plaintext.
 */
export function sealAutoscalingAuth(
  sealer: Sealer,
  app: string,
  trigger: string,
  plain: Record<string, string>,
): Record<string, SealedValue> {
  const issues = Object.keys(plain)
    .filter((key) => !isTriggerAuthKey(key))
    .map((key) => ({ path: `--metadata ${key}`, message: TRIGGER_AUTH_KEY_MESSAGE }));
  if (issues.length > 0) throw new InvalidInputError(issues);
  const total = Object.entries(plain).reduce(
    (n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v),
    0,
  );
  if (total > CONFIG_MAX_BYTES)
    throw new InvalidInputError([
      {
        path: '--metadata',
        message: `names and values total ${total} bytes; a Secret holds at most ${CONFIG_MAX_BYTES} bytes`,
      },
    ]);
  return Object.fromEntries(
    Object.entries(plain).map(([k, v]) => [k, sealer.seal(v, sealContext.autoscalingAuth(app, trigger, k))]),
  );
}

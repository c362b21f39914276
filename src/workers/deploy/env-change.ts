/**
 * An app's environment after a change that sets (sealed values) and unsets variables: what
 * `config` and a `deploy` carrying `env` both release in `config-{app}`. Values lost from the live
 * Secret must be given or dropped by the change itself (refuseLostConfig), before anything is
 * written, so the merged environment is complete.
 */
import type { SealedValue } from '../../jobs/sealing.ts';
import { sealContext } from '../../jobs/sealing.ts';
import type { LiveValues } from '../../releases/index.ts';
import type { HandlerContext } from '../handler.ts';
import { refuseLostConfig } from './lost-secrets.ts';

export interface EnvChange {
  set: Record<string, SealedValue>;
  unset: readonly string[];
}

export function changedEnv(
  ctx: Pick<HandlerContext<unknown>, 'services'>,
  app: string,
  state: { env: Record<string, string>; configLost?: LiveValues | undefined },
  change: EnvChange,
): Record<string, string> {
  refuseLostConfig(app, state.configLost, Object.keys(change.set), change.unset);
  const env = { ...state.env };
  for (const [key, sealed] of Object.entries(change.set))
    env[key] = ctx.services.sealer.open(sealed, sealContext.config(app, key));
  for (const key of change.unset) delete env[key];
  return env;
}

/** `set GREETING, PORT; unset OLD`: the names a change touches, for the job's log and summary. */
export function describeEnvChange(change: EnvChange): string {
  return [
    Object.keys(change.set).length > 0 ? `set ${Object.keys(change.set).sort().join(', ')}` : '',
    change.unset.length > 0 ? `unset ${[...change.unset].sort().join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

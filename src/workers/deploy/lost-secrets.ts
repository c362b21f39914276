/**
 * What a job says when values it needs are gone from the live Secrets. Release history keeps a
 * digest of each Secret value, never the value (docs/releases.md, "Secret values"), so a value
 * removed or changed by hand in `config-{app}`, or a deleted `pull-secret-{app}`, cannot be
 * restored by longshore: the job names what is lost and the command that gives it again.
 */
import { PermanentError } from '../../core/errors.ts';
import { describeLost, type LiveValues } from '../../releases/index.ts';

const WHY = 'release history keeps a digest of each value, never the value';

/** What is lost and why, and the commands that repair it. */
function lostConfig(app: string, lost: LiveValues): { what: string; fix: string } {
  const keys = lost.lost.map((l) => l.key);
  const them = keys.length > 1 ? 'them' : 'it';
  return {
    what: `config-${app}: cannot restore ${describeLost(lost)}: ${WHY}`,
    fix:
      `give ${them} again with \`longshore config:set ${app} ${keys.map((k) => `${k}=…`).join(' ')}\`` +
      ` or drop ${them} with \`longshore config:unset ${app} ${keys.join(' ')}\``,
  };
}

/** The job log line of a job that leaves `config-{app}` as it is because values are lost. */
export function lostConfigMessage(app: string, lost: LiveValues): string {
  const { what, fix } = lostConfig(app, lost);
  return `${what}; config-${app} is left as it is: ${fix}`;
}

/**
 * A config change must not silently drop (or keep unverified) values that are lost: unless it sets
 * or unsets each of them, it is refused before any write.
 */
export function refuseLostConfig(
  app: string,
  lost: LiveValues | undefined,
  set: readonly string[],
  unset: readonly string[],
): void {
  const unresolved = (lost?.lost ?? []).filter((l) => !set.includes(l.key) && !unset.includes(l.key));
  if (!lost || unresolved.length === 0) return;
  const { what, fix } = lostConfig(app, { ...lost, lost: unresolved });
  throw new PermanentError(`${what}; nothing was changed: ${fix} (in this command or before it)`);
}

/** The job log line of a deploy that cannot keep the registry credentials: the password is gone. */
export function lostPullSecretMessage(app: string, lost: LiveValues): string {
  const where = `${lost.ref.namespace ? `${lost.ref.namespace}/` : ''}${lost.ref.name}`;
  const what = lost.lost.every((l) => l.reason === 'secret-gone')
    ? `Secret ${where} is gone`
    : `Secret ${where} was changed by hand`;
  return (
    `pull-secret-${app}: cannot restore the registry credentials (${what}): release history keeps a digest of the docker config, never the password; ` +
    `give them again: \`longshore deploy ${app} --image … --registry-server … --registry-username … --registry-password-stdin\``
  );
}

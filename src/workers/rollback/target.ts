/**
 * Which app revision a `rollback` job restores, decided from history before anything is written:
 * the one named, else Helm's default (the newest superseded revision before the deployed one). A
 * retry of a job that already made its rollback revision keeps that revision's target, so the
 * default does not move to the revision the job itself superseded.
 */
import { PermanentError } from '../../core/errors.ts';
import { rollbackTargetOf } from '../../releases/index.ts';
import type { RevisionInfo } from '../../storage/types.ts';

export function rollbackTarget(
  app: string,
  history: readonly RevisionInfo[],
  requested: number | undefined,
  holder: string,
): RevisionInfo {
  if (history.length === 0) throw new PermanentError(`app ${app} has no release history: deploy it first`);
  const last = history.at(-1)!;
  const resumed = last.holder === holder ? rollbackTargetOf(last) : undefined;
  const wanted = resumed ?? requested;
  if (wanted !== undefined) {
    const found = history.find((r) => r.revision === wanted);
    if (!found)
      throw new PermanentError(
        `app ${app} has no revision ${wanted} (its revisions: ${history.map((r) => r.revision).join(', ')})`,
      );
    if (found.unreadable)
      throw new PermanentError(`revision ${wanted} of app ${app} cannot be read (${found.unreadable})`);
    return found;
  }
  const deployed = [...history].reverse().find((r) => r.status === 'deployed');
  const previous = [...history]
    .reverse()
    .find((r) => r.revision < (deployed?.revision ?? Number.POSITIVE_INFINITY) && r.status === 'superseded');
  if (!previous)
    throw new PermanentError(
      `app ${app} has no earlier deployed revision to roll back to; name one: longshore releases ${app}`,
    );
  return previous;
}

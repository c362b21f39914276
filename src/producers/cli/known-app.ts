/**
 * An app Redis has never heard of (a typo) or that was destroyed is refused before enqueueing
 * (exit 2), so a command leaves no lane behind for a name that is no app (apps:list would list it).
 */
import type { Redis } from 'ioredis';
import { NotFoundError } from '../../core/errors.ts';
import { laneId } from '../../jobs/lane.ts';
import { readLaneStatus } from '../../jobs/status.ts';

export async function refuseUnknownApp(redis: Redis, app: string): Promise<void> {
  const status = await readLaneStatus(redis, laneId({ kind: 'app', name: app }));
  if (!status) throw new NotFoundError(`no app ${app} known to the fleet (apps:list lists the apps)`);
  if (status.destroyed) throw new NotFoundError(`app ${app} was destroyed (apps:list --all lists it)`);
}

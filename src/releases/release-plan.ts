/**
 * A dry run of an upgrade or an uninstall: what each object would become, read through the same
 * caches an upgrade reads (the history cache, the informer caches of live objects; an object new
 * to the release is read from the API server, as the ownership check before an upgrade reads it,
 * observe.ts), and nothing written. Per object:
 * - `create`: not live;
 * - `update`: live, and its owned fields differ from the render (object-diff.ts: a unified diff of
 *   the YAML, Secret values per key by digest) or its pod template lists a leaked pull secret;
 * - `delete`: live, of a possibly-live revision (plan.ts) and not rendered any more (kept when its
 *   live copy belongs to another release, as an upgrade keeps it);
 * - `unchanged`: live and the same.
 */
import type { ReleaseHistoryReader } from '../storage/release-history.ts';
import type { ObjectRef, ReleaseObject } from '../storage/types.ts';
import { sortForDelete } from './apply-order.ts';
import { findDrift } from './drift.ts';
import { type ObjectDiff, objectDiff, type ValueChange } from './object-diff.ts';
import { keyOf, refOf } from './objects.ts';
import type { Observed } from './observe.ts';
import { type DesiredObject, planObjects, possiblyLive } from './plan.ts';
import { describeLeak, findPullSecretLeak } from './pull-secret-leaks.ts';
import type { LiveReader } from './release-cluster.ts';
import { otherRelease } from './revision-runner.ts';
import type { ValueDigester } from './secret-values.ts';

export type PlanAction = 'create' | 'update' | 'delete' | 'unchanged';

export interface PlannedObject extends ObjectRef {
  action: PlanAction;
  /** `update`: unified diff of the owned fields' YAML (live → rendered), without Secret values. */
  diff?: string;
  /** `update` of a Secret: the keys whose value would be added, changed or removed. */
  values?: Record<string, ValueChange>;
  /** Why an object is updated when the YAML does not show it (a leaked pull secret, drift). */
  note?: string;
}

export interface ReleasePlan {
  release: string;
  /** The deployed revision the plan compares with (absent: the release is not installed). */
  deployedRevision?: number;
  /** Whether the upgrade would make a new revision (its content differs from the deployed one's). */
  newRevision: boolean;
  /** The plan of an uninstall: every object goes, and the history with them. */
  uninstall?: true;
  /** In apply order, then the deletes in delete order. */
  objects: PlannedObject[];
}

export interface PlanParts {
  history: ReleaseHistoryReader;
  live: LiveReader;
  digester: ValueDigester;
  observe(release: string, objects: readonly ReleaseObject[], signal?: AbortSignal): Promise<Observed[]>;
}

/**
 * `prepared`: the objects as the engine would apply them (labelled, namespaced, in apply order)
 * with the digests of their stored forms, which decide the deletes as an upgrade decides them.
 */
export async function planUpgrade(
  parts: PlanParts,
  release: string,
  prepared: readonly (DesiredObject & { object: ReleaseObject })[],
  newRevision: boolean,
  signal?: AbortSignal,
): Promise<ReleasePlan> {
  const history = parts.history.history(release);
  const previous = await previousObjects(parts.history, release);
  const observed = await parts.observe(
    release,
    prepared.map((d) => d.object),
    signal,
  );
  const objects: PlannedObject[] = prepared.map((d, i) =>
    classify(d.object, previous.get(d.key), observed[i]?.live, parts.digester),
  );
  const dropped = sortForDelete(planObjects(prepared, possiblyLive(history)).dropped);
  objects.push(...(await liveDeletes(parts.live, release, dropped, signal)));
  const deployed = parts.history.deployed(release);
  return {
    release,
    ...(deployed ? { deployedRevision: deployed.revision } : {}),
    newRevision,
    objects,
  };
}

/** Every object of the release that is live (and not another release's): all deletes. */
export async function planUninstall(
  parts: Pick<PlanParts, 'history' | 'live'>,
  release: string,
  signal?: AbortSignal,
): Promise<ReleasePlan> {
  const refs = new Map<string, ObjectRef>();
  for (const revision of possiblyLive(parts.history.history(release)))
    for (const o of revision.objects) refs.set(keyOf(o), refOf(o));
  const deployed = parts.history.deployed(release);
  return {
    release,
    ...(deployed ? { deployedRevision: deployed.revision } : {}),
    newRevision: false,
    uninstall: true,
    objects: await liveDeletes(parts.live, release, sortForDelete([...refs.values()]), signal),
  };
}

/** One rendered object against its live copy. */
export function classify(
  desired: ReleaseObject,
  previous: ReleaseObject | undefined,
  live: unknown,
  digester: ValueDigester,
): PlannedObject {
  const ref = refOf(desired);
  if (live === undefined || live === null) return { ...ref, action: 'create' };
  const shown: ObjectDiff = objectDiff(desired, previous, live, digester);
  const leak = findPullSecretLeak(desired, live);
  const drift = findDrift(desired, live);
  const valuesChange = Object.keys(shown.values ?? {}).length > 0;
  if (!shown.diff && !valuesChange && !leak && drift === undefined) return { ...ref, action: 'unchanged' };
  const note = leak
    ? `removes leaked ${describeLeak(leak)}`
    : !shown.diff && !valuesChange && drift !== undefined
      ? `drifted: ${drift}`
      : undefined;
  return {
    ...ref,
    action: 'update',
    ...(shown.diff ? { diff: shown.diff } : {}),
    ...(valuesChange ? { values: shown.values } : {}),
    ...(note ? { note } : {}),
  };
}

/** The stored objects of the deployed revision (else the last one), by key: what was applied. */
async function previousObjects(
  history: ReleaseHistoryReader,
  release: string,
): Promise<Map<string, ReleaseObject>> {
  const revision = history.deployed(release) ?? history.last(release);
  if (!revision) return new Map();
  const content = await history.read(release, revision.revision).catch(() => undefined);
  return new Map((content?.objects ?? []).map((o) => [keyOf(refOf(o)), o]));
}

async function liveDeletes(
  live: LiveReader,
  release: string,
  refs: readonly ObjectRef[],
  signal?: AbortSignal,
): Promise<PlannedObject[]> {
  const deletes: PlannedObject[] = [];
  for (const ref of refs) {
    if (!(await live.get(ref, signal))) continue;
    if (await otherRelease(live, ref, release, signal)) continue;
    deletes.push({ ...ref, action: 'delete' });
  }
  return deletes;
}

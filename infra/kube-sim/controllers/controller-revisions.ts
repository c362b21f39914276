/**
 * ControllerRevisions of StatefulSets and DaemonSets (pkg/controller/history/controller_history.go,
 * statefulset/stateful_set_utils.go newRevision/getPatch, daemon/update.go constructHistory): each
 * distinct pod template is one revision named `<owner>-<hash>`, labelled with the template's labels
 * and `controller.kubernetes.io/hash`, owned by its controller, whose `data` is the strategic
 * patch `{"spec":{"template":{…,"$patch":"replace"}}}` that `kubectl rollout undo` applies and
 * whose `revision` numbers them. A template equal to an older revision's reuses that revision,
 * renumbered as the newest (a rollback). Old revisions beyond revisionHistoryLimit that no live
 * Pod uses are deleted, oldest first. The hash is computeHash's (pod-template-hash.ts) over the
 * data, so values differ from a real cluster's while keeping upstream's shape.
 */
import { typeKey } from '../api/service.ts';
import { findByKind } from '../resources.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import { computeHash } from './pod-template-hash.ts';
import type { SimClient } from './sim-client.ts';
import { controllerRef, type PodTemplateSpec } from './workload-types.ts';

export const CONTROLLER_REVISION = findByKind('apps/v1', 'ControllerRevision')!;
const CR_KEY = typeKey(CONTROLLER_REVISION);
export const HASH_LABEL = 'controller.kubernetes.io/hash';
/** The Pod label naming the revision a Pod was made from (apps/v1 ControllerRevisionHashLabelKey). */
export const REVISION_LABEL = 'controller-revision-hash';

export interface ControllerRevision extends KubeObject {
  data?: { spec?: { template?: PodTemplateSpec & { $patch?: string } } };
  revision: number;
}

interface Owner extends KubeObject {
  spec: { template: PodTemplateSpec; revisionHistoryLimit?: number };
  status?: { collisionCount?: number };
}

/** The revisions `owner` controls, oldest first. */
export function ownedRevisions(store: ObjectStore, owner: KubeObject): ControllerRevision[] {
  return (store.list(CR_KEY, owner.metadata.namespace) as ControllerRevision[])
    .filter((cr) => cr.metadata.ownerReferences?.some((r) => r.controller && r.uid === owner.metadata.uid))
    .sort((a, b) => a.revision - b.revision || a.metadata.name!.localeCompare(b.metadata.name!));
}

/** getPatch: the template, replacing the whole of the owner's on undo. */
function revisionData(owner: Owner): ControllerRevision['data'] {
  return { spec: { template: { ...clone(owner.spec.template), $patch: 'replace' } } };
}

/** The template a revision holds (ApplyRevision, without the directive). */
export function revisionTemplate(cr: ControllerRevision): PodTemplateSpec {
  const { $patch: _directive, ...template } = clone(cr.data?.spec?.template ?? {});
  return template;
}

/**
 * The revision for the owner's current template — found (renumbered if a newer one exists) or
 * created — and the owner's revisions after that.
 */
export function ensureUpdateRevision(
  store: ObjectStore,
  client: SimClient,
  owner: Owner,
): { update: ControllerRevision; revisions: ControllerRevision[] } {
  const revisions = ownedRevisions(store, owner);
  const data = revisionData(owner);
  const latest = revisions.at(-1)?.revision ?? 0;
  const equal = revisions.filter((cr) => semanticEqual(cr.data, data));
  if (equal.length > 0) {
    const found = equal.at(-1)!;
    if (found.revision === latest) return { update: found, revisions };
    const next = clone(found);
    next.revision = latest + 1;
    const stored = client.update(CONTROLLER_REVISION, next) as ControllerRevision;
    return { update: stored, revisions: ownedRevisions(store, owner) };
  }
  const hash = computeHash(data as PodTemplateSpec, owner.status?.collisionCount);
  const prefix = owner.metadata.name!.slice(0, 223);
  const created = client.create(CONTROLLER_REVISION, {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${prefix}-${hash}`,
      namespace: owner.metadata.namespace!,
      labels: { ...(owner.spec.template.metadata?.labels ?? {}), [HASH_LABEL]: hash },
      ownerReferences: [controllerRef(owner)],
    },
    data,
    revision: latest + 1,
  }) as ControllerRevision;
  return { update: created, revisions: ownedRevisions(store, owner) };
}

/** truncateHistory: revisions neither live nor current beyond the limit go, oldest first. */
export function truncateHistory(
  client: SimClient,
  owner: Owner,
  revisions: ControllerRevision[],
  live: Set<string>,
): void {
  const limit = owner.spec.revisionHistoryLimit ?? 10;
  const history = revisions.filter((cr) => !live.has(cr.metadata.name!));
  for (const cr of history.slice(0, Math.max(0, history.length - limit))) {
    try {
      client.delete(CONTROLLER_REVISION, cr.metadata.namespace, cr.metadata.name!);
    } catch {
      // Already gone: nothing to truncate.
    }
  }
}

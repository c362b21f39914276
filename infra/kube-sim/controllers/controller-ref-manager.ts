/**
 * controller.ClaimObject (pkg/controller/controller_ref_manager.go): a controller owns the objects
 * whose controller reference names it; it adopts orphans its selector matches and releases owned
 * objects it no longer matches. Neither happens while the owner is being deleted, and objects
 * being deleted are not adopted.
 */
import { clone, type KubeObject } from '../types.ts';
import { controllerOf, controllerRef } from './workload-types.ts';

export function claimObjects<T extends KubeObject>(
  owner: KubeObject,
  candidates: T[],
  matches: (object: T) => boolean,
  write: (next: T) => T,
): T[] {
  const ownerDeleting = !!owner.metadata.deletionTimestamp;
  const claimed: T[] = [];
  for (const object of candidates) {
    const ref = controllerOf(object);
    if (ref) {
      if (ref.uid !== owner.metadata.uid) continue;
      if (matches(object)) claimed.push(object);
      else if (!ownerDeleting) {
        const next = clone(object);
        next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter(
          (r) => r.uid !== owner.metadata.uid,
        );
        write(next);
      }
      continue;
    }
    if (ownerDeleting || object.metadata.deletionTimestamp || !matches(object)) continue;
    const next = clone(object);
    next.metadata.ownerReferences = [...(next.metadata.ownerReferences ?? []), controllerRef(owner)];
    claimed.push(write(next));
  }
  return claimed;
}

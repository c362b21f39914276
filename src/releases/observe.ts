/**
 * Reads of live objects for checks made before a release writes anything (who owns an object
 * about to be applied). Objects the release may already have applied are read from the informer
 * caches, which hold everything longshore applied, so a redeploy of known objects costs no
 * request once the caches are warm (the drift check reads the same caches right after). Objects
 * new to the release are read from the API server: one longshore never applied (made by hand, or
 * by another tool) lacks the managed-by label the caches select on.
 */
import type * as k8s from '@kubernetes/client-node';
import type { ReleaseHistoryReader } from '../storage/release-history.ts';
import type { ObjectRef, ReleaseObject } from '../storage/types.ts';
import { keyOf, refOf } from './objects.ts';
import { possiblyLive } from './plan.ts';
import type { ReleaseCluster } from './release-cluster.ts';

export interface Observed {
  ref: ObjectRef;
  /** The live object, or undefined when there is none. */
  live: k8s.KubernetesObject | undefined;
}

export class LiveObserver {
  constructor(
    private readonly store: ReleaseHistoryReader,
    private readonly cluster: Pick<ReleaseCluster, 'live' | 'fromServer'>,
  ) {}

  /** The live copy of each object (objects with their namespace set, as charts render them). */
  async observe(
    release: string,
    objects: readonly ReleaseObject[],
    signal?: AbortSignal,
  ): Promise<Observed[]> {
    const known = new Set<string>();
    for (const revision of possiblyLive(this.store.history(release)))
      for (const o of revision.objects) known.add(keyOf(o));
    return Promise.all(
      objects.map(async (object) => {
        const ref = refOf(object);
        const live = known.has(keyOf(ref))
          ? await this.cluster.live.get(ref, signal)
          : await this.cluster.fromServer(ref, signal);
        return { ref, live };
      }),
    );
  }

  /** Every object longshore manages of a namespaced kind, in all namespaces (a cluster-wide cache). */
  managedEverywhere(apiVersion: string, kind: string, signal?: AbortSignal): Promise<k8s.KubernetesObject[]> {
    return this.cluster.live.listEverywhere(apiVersion, kind, signal);
  }
}

/** A kube-sim, the real SecretReleaseStore and a ReleaseEngine over HTTP, for release tests. */

import type { RequestRecord } from '../../../infra/kube-sim/server/request-log.ts';
import { WRITE_VERBS } from '../../../infra/kube-sim/server/request-log.ts';
import type { SimOptions } from '../../../infra/kube-sim/sim.ts';
import {
  createReleaseEngine,
  type KubeReleaseEngineOptions,
  type ReleaseEngine,
} from '../../../src/releases/index.ts';
import { SecretReleaseStore } from '../../../src/storage/index.ts';
import { TEST_SECRET_DIGEST_KEY } from '../../fixtures/digest-key.ts';

export { appRelease } from '../../fixtures/releases/app-objects.ts';

import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';

export interface Harness {
  c: SimClients;
  store: SecretReleaseStore;
  engine: ReleaseEngine;
  /** A second engine and store, as another worker process would have (cold caches). */
  coldEngine(
    options?: Partial<KubeReleaseEngineOptions>,
  ): Promise<{ engine: ReleaseEngine; store: SecretReleaseStore }>;
  stop(): Promise<void>;
}

export async function startHarness(
  simOptions: SimOptions = {},
  engineOptions: Partial<KubeReleaseEngineOptions> = {},
): Promise<Harness> {
  const c = await startSimWithClients(simOptions);
  const stoppers: (() => Promise<void>)[] = [];
  const make = async (options: Partial<KubeReleaseEngineOptions>) => {
    const store = new SecretReleaseStore({ kube: c.kc, retry: { baseMs: 20 } });
    await store.start();
    const engine = createReleaseEngine({
      kube: c.kc,
      history: store,
      retry: { baseMs: 20 },
      secretDigestKey: TEST_SECRET_DIGEST_KEY,
      ...options,
    });
    stoppers.push(async () => {
      await engine.stop();
      await store.stop();
    });
    return { engine, store };
  };
  const { engine, store } = await make(engineOptions);
  return {
    c,
    store,
    engine,
    coldEngine: (options = {}) => make({ ...engineOptions, ...options }),
    stop: async () => {
      for (const stop of stoppers) await stop();
      await c.sim.stop();
    },
  };
}

export interface RequestCounts {
  total: number;
  reads: number;
  writes: number;
  secretGets: number;
  /** `verb resource` → count (e.g. `patch apps/deployments`). */
  byKind: Record<string, number>;
}

/** Counts of the requests in the log (optionally from `records`), by verb and resource. */
export function countRequests(records: RequestRecord[]): RequestCounts {
  const byKind: Record<string, number> = {};
  let reads = 0;
  let writes = 0;
  let secretGets = 0;
  for (const r of records) {
    if (r.verb === 'other') continue;
    const key = `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
    byKind[key] = (byKind[key] ?? 0) + 1;
    if (WRITE_VERBS.includes(r.verb)) writes++;
    else reads++;
    if (r.verb === 'get' && r.resource === '/secrets') secretGets++;
  }
  return { total: reads + writes, reads, writes, secretGets, byKind };
}

/**
 * Which spec a job builds on (src/workers/app-state.ts), read through AppRecords<AppSpec> with the
 * AppSpec codec: on the in-memory drivers, so no cluster is needed.
 */
import { describe, expect, it } from 'vitest';
import { type AppSpec, emptySpec } from '../../../src/apps/spec.ts';
import { PermanentError } from '../../../src/core/errors.ts';
import { ReleaseEngine } from '../../../src/releases/index.ts';
import { MemoryAppRecords, MemoryReleaseHistory } from '../../../src/storage/index.ts';
import { appSpecCodec, loadAppState } from '../../../src/workers/app-state.ts';
import type { Cluster } from '../../../src/workers/cluster.ts';
import { KnownNamespaces } from '../../../src/workers/deploy/known-namespaces.ts';
import { TEST_SECRET_DIGEST_KEY } from '../../fixtures/digest-key.ts';
import { MemoryCluster } from '../../fixtures/releases/memory-cluster.ts';

function cluster(): Cluster {
  const apps = new MemoryAppRecords<AppSpec>({ spec: appSpecCodec });
  const history = new MemoryReleaseHistory({ apps });
  const engine = new ReleaseEngine({
    cluster: new MemoryCluster(),
    history,
    secretDigestKey: TEST_SECRET_DIGEST_KEY,
  });
  // The jobs' code reads no Kubernetes client here.
  return {
    kube: undefined as never,
    history,
    apps,
    engine,
    namespaces: new KnownNamespaces(),
    sweepOrphans: async () => 0,
  };
}

describe('loadAppState', () => {
  it('an app without a record builds on the empty spec', async () => {
    const state = await loadAppState(cluster(), 'web');
    expect(state).toEqual({ spec: emptySpec('web'), env: {}, known: false });
  });

  it('builds on the spec the last successful job saved, typed by the AppSpec codec', async () => {
    const c = cluster();
    const saved: AppSpec = { ...emptySpec('web'), image: 'nginx:1.27', domains: ['web.example.com'] };
    await c.apps.saveSpec('web', saved);
    const state = await loadAppState(c, 'web');
    expect(state.known).toBe(true);
    expect(state.spec).toEqual(saved);
  });

  it('refuses to build on a saved spec that no longer reads, naming the record to fix', async () => {
    const c = cluster();
    await c.apps.saveSpec('web', { ...emptySpec('web'), processes: 'not a map' } as unknown as AppSpec);
    expect(c.apps.get('web')?.unreadableSpec).toBeDefined();
    const err = await loadAppState(c, 'web').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toMatch(
      /^the saved spec of app web cannot be read \(.+\); fix or delete the settings of Secret longshore\.app\.web in the system namespace$/,
    );
  });
});

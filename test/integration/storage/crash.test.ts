/**
 * A writer process killed with SIGKILL after each write step (between chunk writes, before and
 * after the index, between ownerReference patches, between prune's deletes). Then a fresh store
 * in this process carries on as the job's retry would: the next write succeeds, no revision is
 * lost, history is consistent, and sweepOrphans removes what the crash left.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseStatus, SecretReleaseStore } from '../../../src/storage/index.ts';
import { makeContent } from '../../fixtures/storage/content.ts';
import { CRASH_SPEC } from '../../fixtures/storage/crash-spec.ts';
import {
  expectConsistentStorage,
  type StorageHarness,
  startStorageHarness,
} from '../../fixtures/storage/harness.ts';
import { ROOT, startProcess } from '../../helpers/processes.ts';

interface Scenario {
  /** Also the namespace: each scenario has its own, so one's sweep cannot touch another's leftovers. */
  release: string;
  crashAt: string;
  op: 'create' | 'prune';
  /** Revisions written (by this process) before the writer runs. */
  setup: ReleaseStatus[];
}

const SCENARIOS: Scenario[] = [
  { release: 'crash-app', crashAt: 'app:1', op: 'create', setup: ['deployed'] },
  { release: 'crash-chunk', crashAt: 'chunk:1', op: 'create', setup: ['deployed'] },
  { release: 'crash-chunks', crashAt: 'chunks:1', op: 'create', setup: ['deployed'] },
  { release: 'crash-index', crashAt: 'index:1', op: 'create', setup: ['deployed'] },
  { release: 'crash-owner', crashAt: 'owner:1', op: 'create', setup: ['deployed'] },
  { release: 'crash-index-prune', crashAt: 'index:1', op: 'create', setup: ['superseded'] },
  {
    release: 'crash-prune',
    crashAt: 'prune-index:1',
    op: 'prune',
    setup: [...Array<ReleaseStatus>(11).fill('superseded'), 'deployed'],
  },
];

const contentOf = (release: string, tag: string) =>
  makeContent({ ...CRASH_SPEC.content, seed: release, changed: { indexes: [0, 1, 2], tag } });

describe('release storage after a writer is killed between write steps', () => {
  let h: StorageHarness;
  const outputs = new Map<string, string>();

  beforeAll(async () => {
    h = await startStorageHarness();
    for (const s of SCENARIOS) {
      const store = await h.store({ chunkBytes: CRASH_SPEC.chunkBytes, namespace: s.release });
      for (const [i, status] of s.setup.entries()) {
        await store.create({
          app: s.release,
          release: s.release,
          revision: i + 1,
          status,
          content: contentOf(s.release, `v${i + 1}`),
          description: `rev ${i + 1}`,
          holder: `h${i + 1}`,
        });
      }
    }
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'longshore-crash-')), 'kubeconfig');
    h.sim.writeKubeconfig(kubeconfig);
    // The writers run side by side, one release each.
    await Promise.all(
      SCENARIOS.map(async (s) => {
        const next = s.setup.length + 1;
        const proc = startProcess(`${ROOT}test/fixtures/storage/crash-writer.ts`, [], {
          STORAGE_KUBECONFIG: kubeconfig,
          STORAGE_NAMESPACE: s.release,
          STORAGE_RELEASE: s.release,
          STORAGE_OP: s.op,
          STORAGE_KEEP: '10',
          STORAGE_REVISION: String(next),
          STORAGE_TAG: `v${next}`,
          STORAGE_HOLDER: `h${next}`,
          STORAGE_CRASH_AT: s.crashAt,
        });
        const exit = await proc.exited;
        outputs.set(s.release, proc.output());
        expect(exit.signal, proc.output()).toBe('SIGKILL');
      }),
    );
  }, 90_000);
  afterAll(() => h.stop());

  /**
   * Carries on after the crash (`retry`), then checks history (`expected`: the tag of each
   * revision, by number), contents, orphans and ownership. Returns how many chunks the sweep removed.
   */
  const carryOn = async (
    s: Scenario,
    retry: (fresh: SecretReleaseStore) => Promise<void>,
    expected: Record<number, string>,
  ) => {
    expect(outputs.get(s.release)).toContain(`crashing after ${s.crashAt.split(':')[0]} #1`);
    const fresh = await h.store({ chunkBytes: CRASH_SPEC.chunkBytes, namespace: s.release });
    await retry(fresh);
    expect(fresh.history(s.release).map((r) => r.revision)).toEqual(Object.keys(expected).map(Number));
    await h.sim.settle();
    const swept = await fresh.sweepOrphans({ minAgeMs: 0 });
    await h.sim.settle();
    await expectConsistentStorage(h, s.release);
    const reader = await h.store({ namespace: s.release });
    for (const [revision, tag] of Object.entries(expected)) {
      expect(await reader.read(s.release, Number(revision))).toEqual(contentOf(s.release, tag));
    }
    return swept;
  };

  const retrySame = (s: Scenario) => async (fresh: SecretReleaseStore) => {
    const info = await fresh.create({
      app: s.release,
      release: s.release,
      revision: 2,
      status: 'pending-upgrade',
      content: contentOf(s.release, 'v2'),
      description: 'Upgrade',
      holder: 'h2',
    });
    expect(info).toMatchObject({ revision: 2, holder: 'h2', status: 'pending-upgrade' });
  };

  it('after the app record: the retried write succeeds', async () => {
    const s = SCENARIOS[0]!;
    expect(await carryOn(s, retrySame(s), { 1: 'v1', 2: 'v2' })).toBe(0);
  });

  it('between chunk writes: the retried write finds its chunks and completes them', async () => {
    const s = SCENARIOS[1]!;
    expect(await carryOn(s, retrySame(s), { 1: 'v1', 2: 'v2' })).toBe(0);
  });

  it('after the chunks, before the index: a newer write succeeds and the crashed chunks are swept', async () => {
    const s = SCENARIOS[2]!;
    const swept = await carryOn(
      s,
      async (fresh) => {
        // Not a retry but the next deploy, with other content: the crashed attempt's chunks are orphans.
        await fresh.create({
          app: s.release,
          release: s.release,
          revision: 2,
          status: 'pending-upgrade',
          content: contentOf(s.release, 'v3'),
          description: 'Upgrade',
          holder: 'h3',
        });
      },
      { 1: 'v1', 2: 'v3' },
    );
    expect(swept).toBeGreaterThan(0);
  });

  it('after the index: the retry adopts its own index and completes the ownerReferences', async () => {
    const s = SCENARIOS[3]!;
    const before = await h.store({ namespace: s.release });
    expect(before.history(s.release).at(-1)).toMatchObject({
      revision: 2,
      holder: 'h2',
      status: 'pending-upgrade',
    });
    expect(await carryOn(s, retrySame(s), { 1: 'v1', 2: 'v2' })).toBe(0);
  });

  it('between ownerReference patches: the retry completes them', async () => {
    const s = SCENARIOS[4]!;
    expect(await carryOn(s, retrySame(s), { 1: 'v1', 2: 'v2' })).toBe(0);
  });

  it('after the index, then a prune: shared chunks get the surviving index as owner first', async () => {
    const s = SCENARIOS[5]!;
    await carryOn(
      s,
      async (fresh) => {
        // The job is abandoned; pruning to one revision deletes revision 1, whose chunks
        // revision 2 shares without being listed as their owner yet.
        expect(await fresh.prune(s.release, 1)).toMatchObject({ revisions: 1 });
      },
      { 2: 'v2' },
    );
  });

  it('between prune deletes: the next prune finishes, surviving revisions intact', async () => {
    const s = SCENARIOS[6]!;
    await carryOn(
      s,
      async (fresh) => {
        expect(fresh.history(s.release)).toHaveLength(11);
        expect(await fresh.prune(s.release, 10)).toMatchObject({ revisions: 1 });
      },
      Object.fromEntries(Array.from({ length: 10 }, (_, i) => [i + 3, `v${i + 3}`])),
    );
  });
});

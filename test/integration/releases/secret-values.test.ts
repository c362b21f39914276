/**
 * Secret values and the release engine, against kube-sim over HTTP with the real store: history
 * holds digests only; a value changed in the live Secret is drift; the migration of history stored
 * with values keeps the no-op check working and is free to repeat.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withReleaseLabels } from '../../../src/releases/objects.ts';
import type { ReleaseObject } from '../../../src/storage/types.ts';
import { valuesFoundIn } from '../../helpers/stored-secrets.ts';
import { until } from '../../helpers/wait.ts';
import { countRequests, type Harness, startHarness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.c.core.createNamespace({ body: { metadata: { name: 'sv' } } });
});
afterAll(async () => {
  await h?.stop();
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
const secret = (name: string, data: Record<string, string>) =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'sv' },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  }) as ReleaseObject;
const upgrade = (release: string, holder: string, data: Record<string, string>) =>
  h.engine.upgrade({
    app: 'sv',
    release,
    chart: { name: 'config', version: '1.0.0' },
    values: { keys: Object.keys(data).sort() },
    objects: [secret(release, data)],
    holder,
    wait: false,
  });

describe('Secret values in history', () => {
  it('are stored as digests; a value changed in the live Secret is drift, repaired from the rendered one', async () => {
    expect((await upgrade('sv-a', 'j1', { TOKEN: 'first-token-value' })).outcome).toBe('deployed');
    expect((await upgrade('sv-a', 'j2', { TOKEN: 'second-token-value' })).outcome).toBe('deployed');
    expect(
      await valuesFoundIn(h.c.core, 'longshore-system', ['first-token-value', 'second-token-value']),
    ).toEqual([]);
    h.c.sim.requests.reset();
    expect((await upgrade('sv-a', 'j3', { TOKEN: 'second-token-value' })).outcome).toBe('noop');
    expect(countRequests(h.c.sim.requests.entries()).writes).toBe(0);

    await h.c.core.patchNamespacedSecret({
      name: 'sv-a',
      namespace: 'sv',
      body: [{ op: 'replace', path: '/data/TOKEN', value: b64('edited-by-hand') }],
    });
    // Once this worker's informer has seen the edit (a no-op until then writes nothing).
    await until(
      async () =>
        (await upgrade('sv-a', 'j4', { TOKEN: 'second-token-value' })).outcome === 'repaired' || undefined,
      'the edited value to be repaired',
    );
    const live = await h.c.core.readNamespacedSecret({ name: 'sv-a', namespace: 'sv' });
    expect(Buffer.from(live.data?.TOKEN ?? '', 'base64').toString()).toBe('second-token-value');
  });

  it('migrates history stored with values; the next upgrade of the same content is a no-op; again is free', async () => {
    // As the engine stored it before: labelled objects, values in clear, no marker.
    const old = withReleaseLabels(secret('sv-b', { TOKEN: 'old-stored-token' }), 'sv-b');
    await h.store.create({
      app: 'sv',
      release: 'sv-b',
      revision: 1,
      status: 'deployed',
      content: { chart: { name: 'config', version: '1.0.0' }, values: { keys: ['TOKEN'] }, objects: [old] },
      description: 'Install complete',
      holder: 'old-job',
    });
    await h.c.core.createNamespacedSecret({ namespace: 'sv', body: old as never });
    expect(await valuesFoundIn(h.c.core, 'longshore-system', ['old-stored-token'])).not.toEqual([]);

    const report = await h.engine.redactHistory();
    expect(report).toEqual({ revisions: 1, unreadable: [] });
    expect(await valuesFoundIn(h.c.core, 'longshore-system', ['old-stored-token'])).toEqual([]);
    expect(h.store.history('sv-b').map((r) => [r.revision, r.status, r.holder, r.redacted])).toEqual([
      [1, 'deployed', 'old-job', true],
    ]);

    h.c.sim.requests.reset();
    expect(await h.engine.redactHistory()).toEqual({ revisions: 0, unreadable: [] });
    expect((await upgrade('sv-b', 'new-job', { TOKEN: 'old-stored-token' })).outcome).toBe('noop');
    expect(countRequests(h.c.sim.requests.entries()).writes).toBe(0);
  });
});

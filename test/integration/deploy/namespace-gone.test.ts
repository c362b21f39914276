/**
 * How a write says its namespace is gone (src/workers/deploy/known-namespaces.ts), on kube-sim's
 * real answers through client-node: a missing namespace (404 naming the namespace), a terminating
 * one (403 NamespaceTerminating), and errors that are neither (a 404 of an object in it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  forgetIfGone,
  KnownNamespaces,
  NamespaceGoneError,
  namespaceGone,
} from '../../../src/workers/deploy/known-namespaces.ts';
import { ensureNamespace } from '../../../src/workers/deploy/namespace.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

let k: SimClients;

beforeAll(async () => {
  k = await startSimWithClients();
});

afterAll(async () => {
  await k?.sim.stop();
});

const writeSecret = (namespace: string) =>
  k.core.createNamespacedSecret({ namespace, body: { metadata: { name: 'probe' }, stringData: { a: 'b' } } });

const namespaceGets = (name: string) =>
  k.sim.requests.entries({ verb: 'get', resource: '/namespaces', name }).length;

describe('ensureNamespace with a memo', () => {
  it('reads or creates a namespace once, then answers from the memo', async () => {
    const known = new KnownNamespaces();
    expect(await ensureNamespace(k.core, known, 'memo-a')).toBe('created');
    expect(await ensureNamespace(k.core, known, 'memo-a')).toBe('exists');
    expect(await ensureNamespace(k.core, known, 'default')).toBe('exists');
    expect(await ensureNamespace(k.core, known, 'default')).toBe('exists');
    expect(namespaceGets('memo-a')).toBe(1);
    expect(namespaceGets('default')).toBe(1);
  });
});

describe('namespaceGone and forgetIfGone', () => {
  it('a write into a missing namespace: forgotten, and a transient NamespaceGoneError', async () => {
    const known = new KnownNamespaces();
    known.add('never-made');
    const err = await forgetIfGone(known, 'never-made', () => writeSecret('never-made')).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NamespaceGoneError);
    expect((err as Error).message).toMatch(/namespace never-made no longer exists .* creates it again/);
    expect(namespaceGone((err as Error).cause, 'never-made')).toBe('missing');
    expect(known.has('never-made')).toBe(false);
    // The next ensureNamespace reads it, and creates it.
    expect(await ensureNamespace(k.core, known, 'never-made')).toBe('created');
    await writeSecret('never-made');
  });

  it('a write into a terminating namespace: forgotten, the API server refusal as it was', async () => {
    await k.core.createNamespace({ body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    await k.core.deleteNamespace({ name: 'held' });
    await until(
      async () => (await k.core.readNamespace({ name: 'held' })).metadata?.deletionTimestamp,
      'the namespace to be terminating',
    );
    const known = new KnownNamespaces();
    known.add('held');
    const err = await forgetIfGone(known, 'held', () => writeSecret('held')).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(NamespaceGoneError);
    expect(namespaceGone(err, 'held')).toBe('terminating');
    expect(known.has('held')).toBe(false);
  });

  it('leaves every other failure alone, a 404 of an object in the namespace included', async () => {
    const known = new KnownNamespaces();
    known.add('default');
    const err = await forgetIfGone(known, 'default', () =>
      k.core.readNamespacedSecret({ namespace: 'default', name: 'no-such-secret' }),
    ).catch((e: unknown) => e);
    expect(namespaceGone(err, 'default')).toBeUndefined();
    expect(err).not.toBeInstanceOf(NamespaceGoneError);
    expect(known.has('default')).toBe(true);
    // Another namespace's NotFound does not name this one.
    const other = await writeSecret('elsewhere').catch((e: unknown) => e);
    expect(namespaceGone(other, 'default')).toBeUndefined();
    expect(namespaceGone(other, 'elsewhere')).toBe('missing');
  });
});

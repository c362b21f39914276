/**
 * No controller loops on any object the API accepts: for every served kind, its typical object
 * and its edge cases (replicas 0, the largest int32s, optional fields left out, schedules that
 * never come) are stored over HTTP with every controller running, and once the controllers have
 * settled the store's resourceVersion stays where it is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  builtInTypes,
  collectionPath,
  fixtureFor,
  fixtureKey,
  KIND_FIXTURES,
  objectFor,
  typeLabel,
} from '../../helpers/kind-fixtures.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { stays, until } from '../../helpers/wait.ts';

const ns = 'settle';

describe('every served kind settles with the controllers running', () => {
  let c: SimClients;
  /** What the controllers failed at: a controller whose own writes are refused is a bug too. */
  const controllerErrors: string[] = [];

  beforeAll(async () => {
    c = await startSimWithClients({
      onControllerError: (what, err) => controllerErrors.push(`${what}: ${(err as Error).message}`),
    });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  it('has a fixture for every served kind', () => {
    const missing = builtInTypes()
      .map(fixtureKey)
      .filter((key) => !(key in KIND_FIXTURES));
    expect(missing, 'add these kinds to KIND_FIXTURES in test/helpers/kind-fixtures.ts').toEqual([]);
  });

  /** Which objects moved since `rv`, for the failure message. */
  function movedSince(rv: number): string {
    const events = c.sim.store.eventsAfter(rv) ?? [];
    return events
      .slice(0, 10)
      .map(
        (e) =>
          `${e.type} ${e.object.kind} ${e.object.metadata.namespace ?? ''}/${e.object.metadata.name} rv ${e.object.metadata.resourceVersion}`,
      )
      .join('; ');
  }

  // Every kind's objects go in first (one test each, so a refused fixture names its kind), then one
  // observation window covers them all: a loop in any controller moves the shared resourceVersion,
  // and the failure names the objects that moved. One window instead of one per kind keeps the
  // file at seconds rather than a minute.
  it.each(builtInTypes().map((t) => [fixtureKey(t), t] as const))(
    '%s: typical and edge objects are accepted',
    async (kind, type) => {
      const fixture = fixtureFor(type, ns);
      const bodies = [fixture.valid, ...fixture.edges];
      for (const [i, body] of bodies.entries()) {
        const object = objectFor(type, `settle-${typeLabel(type)}-${i}`, ns, body);
        const res = await fetch(`${c.sim.url}${collectionPath(type, ns)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(object),
        });
        expect(res.status, `${kind} fixture ${i} should be accepted: ${await res.text()}`).toBe(201);
      }
    },
  );

  it('and once the controllers are done with them, the resourceVersion stays where it is', async () => {
    await c.sim.settle();
    // Pods start, become ready and Jobs finish on the simulated clocks (tens of ms): wait for
    // the writes to stop for a while (a loop never does), then watch a longer window.
    const unmoved = (rv: number, ms: number) =>
      stays(() => c.sim.store.currentRv === rv, ms, 'no writes').then(
        () => true,
        () => false,
      );
    await until(() => unmoved(c.sim.store.currentRv, 300), 'writes to stop', {
      timeoutMs: 20_000,
    }).catch((err: Error) => {
      throw new Error(`${err.message}; writes: ${movedSince(c.sim.store.currentRv - 10)}`);
    });
    const rv = c.sim.store.currentRv;
    let moved = '';
    await stays(
      () => {
        if (c.sim.store.currentRv === rv) return true;
        moved = movedSince(rv);
        return false;
      },
      1_500,
      `the resourceVersion to stay at ${rv} after storing every kind's objects`,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; writes: ${moved}`);
    });
    expect(controllerErrors).toEqual([]);
  });
});

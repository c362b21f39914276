/**
 * Randomly mistyped objects of every served kind, over real HTTP with the controllers running:
 * each is refused (400 or 422) or stored, never a 500; whatever was stored decodes into its Go
 * types again unchanged (no wrong type got in, quantities are canonical); and the cluster settles.
 * The PRNG is seeded, so a failing case reproduces from the seed in the message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFor } from '../../../infra/kube-sim/schema/go-types.ts';
import { decodeTyped } from '../../../infra/kube-sim/schema/strict-decode.ts';
import {
  type Body,
  builtInTypes,
  collectionPath,
  fixtureFor,
  objectFor,
  typeLabel,
} from '../../helpers/kind-fixtures.ts';
import { prng } from '../../helpers/prng.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { stays, until } from '../../helpers/wait.ts';

const ns = 'fuzz';
const SEED = 16;
const TOTAL_REQUESTS = 300;

type Path = (string | number)[];

/** Every leaf and subtree path of `value`, apart from what names the object. */
function paths(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (prefix.length > 0) out.push(prefix);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) paths(v, [...prefix, i], out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = [...prefix, k];
      const named = p.join('.');
      if (['apiVersion', 'kind', 'metadata.name', 'metadata.namespace'].includes(named)) continue;
      paths(v, p, out);
    }
  }
  return out;
}

function parentOf(root: Body, path: Path): Record<string | number, unknown> {
  let node: unknown = root;
  for (const part of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[part];
  return node as Record<string | number, unknown>;
}

/** Another JSON value of a different type than `value`. */
function otherType(value: unknown, random: () => number): unknown {
  const choices: unknown[] = ['3', 'x', 1.5, 7, -1, true, false, { a: 1 }, [1, 'b'], '', 2147483648, '512MB'];
  for (let i = 0; i < 10; i++) {
    const candidate = choices[Math.floor(random() * choices.length)];
    if (typeof candidate !== typeof value || Array.isArray(candidate) !== Array.isArray(value))
      return candidate;
  }
  return null;
}

/** One random mutation: swap a value's type, null it, drop it, or insert a field. */
function mutate(object: Body, random: () => number): string {
  const all = paths(object);
  if (all.length === 0) {
    object.fuzzed = otherType(undefined, random);
    return 'insert fuzzed';
  }
  const path = all[Math.floor(random() * all.length)]!;
  const parent = parentOf(object, path);
  const key = path.at(-1)!;
  const op = random();
  if (op < 0.55) {
    parent[key] = otherType(parent[key], random);
    return `swap ${path.join('.')} → ${JSON.stringify(parent[key])}`;
  }
  if (op < 0.7) {
    parent[key] = null;
    return `null ${path.join('.')}`;
  }
  if (op < 0.85) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
    return `drop ${path.join('.')}`;
  }
  const target = parent[key];
  if (target && typeof target === 'object' && !Array.isArray(target)) {
    (target as Body).fuzzed = otherType(undefined, random);
    return `insert ${path.join('.')}.fuzzed`;
  }
  parent[key] = { fuzzed: 1 };
  return `replace ${path.join('.')} with an object`;
}

describe('fuzzed request bodies of every served kind', () => {
  let c: SimClients;
  /** What the controllers failed at on the objects that were stored. */
  const controllerErrors: string[] = [];

  beforeAll(async () => {
    c = await startSimWithClients({
      onControllerError: (what, err) => controllerErrors.push(`${what}: ${(err as Error).message}`),
    });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  it(`answers ${TOTAL_REQUESTS} mistyped objects with 201, 400 or 422, stores only well-typed ones, and settles`, async () => {
    const random = prng(SEED);
    const perKind = Math.floor(TOTAL_REQUESTS / builtInTypes().length);
    const outcomes = { stored: 0, refused: 0 };
    for (const type of builtInTypes()) {
      const fixture = fixtureFor(type, ns);
      // A live object the merge patches go to.
      const target = `fuzz-${typeLabel(type)}-target`;
      const live = objectFor(type, target, ns, fixture.valid);
      // Its name as stored (a CustomResourceDefinition's is made of its spec).
      const targetName = (live.metadata as { name: string }).name;
      const created = await fetch(`${c.sim.url}${collectionPath(type, ns)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(live),
      });
      expect(created.status, `${type.kind} fixture: ${await created.text()}`).toBe(201);
      for (let i = 0; i < perKind; i++) {
        // Two in three are created, one in three is a merge patch of the live object.
        const patch = random() < 1 / 3 && type.verbs.includes('patch');
        const object = objectFor(type, patch ? target : `fuzz-${typeLabel(type)}-${i}`, ns, fixture.valid);
        const mutations = [mutate(object, random)];
        if (random() < 0.4) mutations.push(mutate(object, random));
        const res = await fetch(`${c.sim.url}${collectionPath(type, ns)}${patch ? `/${targetName}` : ''}`, {
          method: patch ? 'PATCH' : 'POST',
          headers: { 'content-type': patch ? 'application/merge-patch+json' : 'application/json' },
          body: JSON.stringify(object),
        });
        const text = await res.text();
        const what = `seed ${SEED}, ${type.kind} #${i} ${patch ? 'patch' : 'create'} (${mutations.join('; ')}): ${res.status} ${text.slice(0, 300)}`;
        expect(patch ? [200, 400, 422] : [201, 400, 422], what).toContain(res.status);
        if (res.status < 300) outcomes.stored++;
        else outcomes.refused++;
      }
    }
    // The fuzz exercised both outcomes.
    expect(outcomes.stored).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);

    // Everything stored decodes into its Go types again, to itself.
    for (const type of builtInTypes()) {
      for (const object of c.sim.store.list(`${type.group}/${type.plural}`)) {
        const model = modelFor(type);
        expect(model, `client-node models ${type.kind}`).toBeDefined();
        expect(decodeTyped(model!, object), `${type.kind} ${object.metadata.name}`).toEqual(object);
      }
    }

    await c.sim.settle();
    const unmoved = (rv: number, ms: number) =>
      stays(() => c.sim.store.currentRv === rv, ms, 'no writes').then(
        () => true,
        () => false,
      );
    await until(() => unmoved(c.sim.store.currentRv, 300), 'the fuzzed cluster to stop writing', {
      timeoutMs: 15_000,
    });
    const rv = c.sim.store.currentRv;
    await stays(() => c.sim.store.currentRv === rv, 750, `the resourceVersion to stay at ${rv}`);
    expect(controllerErrors).toEqual([]);
  });
});

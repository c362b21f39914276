/**
 * The store's per-type indexes (infra/kube-sim/store/type-bucket.ts): a namespace's list and a
 * controller's claimable objects stay what a scan of the whole type would give, in key order,
 * through adoption, release, owner changes and deletion.
 */
import { describe, expect, it } from 'vitest';
import { TypeBucket } from '../../../infra/kube-sim/store/type-bucket.ts';
import type { KubeObject } from '../../../infra/kube-sim/types.ts';
import { prng } from '../../helpers/prng.ts';

const pod = (namespace: string | undefined, name: string, controller?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    ...(namespace ? { namespace } : {}),
    ...(controller
      ? {
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: controller,
              uid: controller,
              controller: true,
            },
          ],
        }
      : {}),
  },
});
const key = (o: KubeObject) =>
  o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name!;
const names = (objects: KubeObject[]) => objects.map((o) => o.metadata.name);

/** What a scan of every object gives: the reference the indexes must agree with. */
function scanClaimable(all: KubeObject[], namespace: string, uid: string): (string | undefined)[] {
  const owner = (o: KubeObject) => o.metadata.ownerReferences?.find((r) => r.controller)?.uid;
  return all
    .filter((o) => o.metadata.namespace === namespace && (owner(o) === uid || owner(o) === undefined))
    .sort((a, b) => (key(a) < key(b) ? -1 : 1))
    .map((o) => o.metadata.name);
}

describe('kube-sim TypeBucket', () => {
  it('lists a namespace in key order, and everything when no namespace is given', () => {
    const b = new TypeBucket();
    for (const o of [pod('b', 'z'), pod('a', 'y'), pod('a', 'x'), pod(undefined, 'node-1'), pod('ab', 'w')])
      b.set(key(o), o);
    expect(names(b.list('a'))).toEqual(['x', 'y']);
    expect(names(b.list('ab'))).toEqual(['w']);
    expect(names(b.list())).toEqual(['x', 'y', 'w', 'z', 'node-1']);
    expect(b.list('none')).toEqual([]);
    expect(b.size).toBe(5);
  });

  it('keeps claimable equal to a scan through adoption, release, owner changes and deletion', () => {
    const b = new TypeBucket();
    const live = new Map<string, KubeObject>();
    const put = (o: KubeObject) => {
      b.set(key(o), o);
      live.set(key(o), o);
    };
    const check = () => {
      for (const ns of ['a', 'b'])
        for (const uid of ['rs1', 'rs2', 'rs3'])
          expect(names(b.claimable(ns, uid))).toEqual(scanClaimable([...live.values()], ns, uid));
    };
    put(pod('a', 'p1', 'rs1'));
    put(pod('a', 'p2', 'rs2'));
    put(pod('a', 'p3'));
    put(pod('b', 'p4', 'rs1'));
    put(pod('b', 'p5'));
    check();
    expect(names(b.claimable('a', 'rs1'))).toEqual(['p1', 'p3']);
    put(pod('a', 'p3', 'rs2')); // adopted
    check();
    put(pod('a', 'p1')); // released
    check();
    put(pod('a', 'p2', 'rs3')); // moved to another controller
    check();
    b.delete('a/p2');
    live.delete('a/p2');
    b.delete('b/p5');
    live.delete('b/p5');
    check();
    b.delete('a/missing');
    check();
    expect(b.size).toBe(live.size);
  });

  it('answers label selectors and controller lookups as a scan would, through random changes', () => {
    const random = prng(11);
    const b = new TypeBucket();
    const live = new Map<string, KubeObject>();
    const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
    const labelled = (): KubeObject => {
      const o = pod(pick(['a', 'b']), `p${Math.floor(random() * 40)}`, pick(['rs1', 'rs2', undefined]));
      const labels: Record<string, string> = {};
      if (random() < 0.8) labels.app = pick(['shop', 'blog']);
      if (random() < 0.6) labels.process = pick(['web', 'worker']);
      if (Object.keys(labels).length) o.metadata.labels = labels;
      return o;
    };
    const scan = (keep: (o: KubeObject) => boolean) =>
      [...live.entries()]
        .filter(([, o]) => keep(o))
        .sort(([x], [y]) => (x < y ? -1 : 1))
        .map(([, o]) => o);
    const selectors: Record<string, string>[] = [
      { app: 'shop' },
      { app: 'shop', process: 'web' },
      { process: 'worker' },
      { app: 'none' },
    ];
    for (let step = 0; step < 1_500; step++) {
      const o = labelled();
      if (random() < 0.25) {
        b.delete(key(o));
        live.delete(key(o));
      } else {
        b.set(key(o), o);
        live.set(key(o), o);
      }
      if (step % 30 !== 0) continue;
      for (const ns of ['a', 'b'])
        for (const sel of selectors)
          expect(b.withLabels(ns, sel)).toEqual(
            scan(
              (x) =>
                x.metadata.namespace === ns &&
                Object.entries(sel).every(([k, v]) => x.metadata.labels?.[k] === v),
            ),
          );
      for (const uid of ['rs1', 'rs2'])
        expect(b.controlledBy(uid)).toEqual(
          scan((x) => x.metadata.ownerReferences?.some((r) => r.controller && r.uid === uid) === true),
        );
    }
    expect(b.withLabels('a', {})).toEqual(b.list('a'));
  });

  it('keeps lists in key order through random creates, updates and deletions', () => {
    const random = prng(7);
    const b = new TypeBucket();
    const live = new Map<string, KubeObject>();
    const scan = (namespace?: string) =>
      [...live.entries()]
        .filter(([, o]) => namespace === undefined || o.metadata.namespace === namespace)
        .sort(([a], [z]) => (a < z ? -1 : a > z ? 1 : 0))
        .map(([, o]) => o);
    for (let step = 0; step < 2_000; step++) {
      const namespace = ['a', 'ab', 'b', undefined][Math.floor(random() * 4)];
      const o = pod(namespace, `p${Math.floor(random() * 60)}`, random() < 0.5 ? 'rs1' : undefined);
      if (random() < 0.3) {
        b.delete(key(o));
        live.delete(key(o));
      } else {
        b.set(key(o), o);
        live.set(key(o), o);
      }
      if (step % 50 === 0) for (const ns of ['a', 'ab', 'b', undefined]) expect(b.list(ns)).toEqual(scan(ns));
    }
    expect(b.size).toBe(live.size);
  });
});

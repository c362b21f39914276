/**
 * The endpoints controller's Service index (infra/kube-sim/controllers/service-selector-index.ts):
 * the candidates for a Pod always include every Service whose selector matches it, through
 * selector changes and deletions, and never a Service of another namespace.
 */
import { describe, expect, it } from 'vitest';
import { ServiceSelectorIndex } from '../../../infra/kube-sim/controllers/service-selector-index.ts';
import type { KubeObject } from '../../../infra/kube-sim/types.ts';
import { prng } from '../../helpers/prng.ts';

const service = (namespace: string, name: string, selector?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace },
  spec: selector ? { selector } : {},
});

describe('kube-sim ServiceSelectorIndex', () => {
  it('finds every selecting Service of the namespace through random changes', () => {
    const random = prng(5);
    const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
    const index = new ServiceSelectorIndex();
    const live = new Map<string, KubeObject>();
    const labelSets: Record<string, string>[] = [
      { app: 'shop', process: 'web' },
      { app: 'shop', process: 'worker' },
      { app: 'blog', process: 'web' },
      { tier: 'front' },
    ];
    for (let step = 0; step < 1_000; step++) {
      const namespace = pick(['a', 'b']);
      const key = `${namespace}/s${Math.floor(random() * 12)}`;
      if (random() < 0.2) {
        index.update(key, undefined);
        live.delete(key);
      } else {
        const selector = random() < 0.15 ? undefined : { ...pick(labelSets) };
        if (selector && random() < 0.5) delete selector[Object.keys(selector)[0]!];
        const svc = service(namespace, key.split('/')[1]!, selector);
        index.update(key, svc);
        live.set(key, svc);
      }
      for (const ns of ['a', 'b'])
        for (const labels of labelSets) {
          const found = new Set<string>();
          index.candidates(ns, labels, found);
          for (const [k, svc] of live) {
            const selector = (svc.spec as { selector?: Record<string, string> }).selector ?? {};
            const selects =
              Object.keys(selector).length > 0 && Object.entries(selector).every(([l, v]) => labels[l] === v);
            if (svc.metadata.namespace === ns && selects)
              expect(found.has(k), `${k} for ${JSON.stringify(labels)}`).toBe(true);
            if (svc.metadata.namespace !== ns) expect(found.has(k)).toBe(false);
          }
          for (const k of found) expect(live.has(k)).toBe(true);
        }
    }
  });
});

import { describe, expect, it } from 'vitest';
import { clone } from '../../../infra/kube-sim/types.ts';

describe('kube-sim clone', () => {
  it('copies nested objects and arrays so that no part is shared', () => {
    const original = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' }, finalizers: ['a', 'b'] },
      spec: {
        replicas: 2,
        template: { spec: { containers: [{ name: 'web', ports: [{ containerPort: 80 }] }] } },
      },
      status: null,
    };
    const copy = clone(original);
    expect(copy).toEqual(original);
    expect(copy).not.toBe(original);
    copy.metadata.labels.app = 'changed';
    copy.metadata.finalizers.push('c');
    copy.spec.template.spec.containers[0]!.ports[0]!.containerPort = 81;
    expect(original.metadata.labels.app).toBe('web');
    expect(original.metadata.finalizers).toEqual(['a', 'b']);
    expect(original.spec.template.spec.containers[0]!.ports[0]!.containerPort).toBe(80);
  });

  it('gives the same result as structuredClone on JSON values, key order included', () => {
    const values: unknown[] = [
      null,
      0,
      -1.5,
      'text',
      true,
      [],
      {},
      [1, [2, [3, { a: [] }]]],
      { b: 1, a: 2, '0': 'x', nested: { z: [null, false, ''] } },
      { present: undefined },
    ];
    for (const value of values) {
      const copy = clone(value);
      expect(copy).toStrictEqual(structuredClone(value));
      expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
      if (value && typeof value === 'object') expect(Object.keys(copy as object)).toEqual(Object.keys(value));
    }
  });

  it('keeps a __proto__ key as an own property instead of setting the prototype', () => {
    const parsed = JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}') as {
      metadata: { labels: Record<string, unknown> };
    };
    const copy = clone(parsed);
    expect(Object.getPrototypeOf(copy.metadata.labels)).toBe(Object.prototype);
    expect(Object.hasOwn(copy.metadata.labels, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(copy.metadata.labels, '__proto__')?.value).toEqual({
      polluted: 'yes',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('copies values that are not plain JSON as structuredClone does', () => {
    const when = new Date('2026-12-07T00:00:00Z');
    const bytes = new Uint8Array([1, 2, 3]);
    const copy = clone({ when, bytes, map: new Map([['k', 1]]) });
    expect(copy.when).toBeInstanceOf(Date);
    expect(copy.when).not.toBe(when);
    expect(copy.when.getTime()).toBe(when.getTime());
    expect(copy.bytes).not.toBe(bytes);
    expect([...copy.bytes]).toEqual([1, 2, 3]);
    expect(copy.map.get('k')).toBe(1);
  });
});

/** The stored form of Secrets (src/releases/secret-values.ts): digests in place of values. */
import { describe, expect, it } from 'vitest';
import {
  redactObject,
  ValueDigester,
  valuesFromLive,
  withValues,
} from '../../../src/releases/secret-values.ts';
import type { ReleaseObject } from '../../../src/storage/types.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const digester = new ValueDigester(Buffer.alloc(32, 1));
const secret = (data: Record<string, string>, extra: object = {}) =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'config-web', namespace: 'web' },
    type: 'Opaque',
    data,
    ...extra,
  }) as ReleaseObject;

describe('secret value digests', () => {
  it('are deterministic, keyed, and bound to the Secret and the key', () => {
    const d = digester.digest('config-web', 'A', b64('1'));
    expect(d).toMatch(/^hmac-sha256:[0-9a-f]{8}:[0-9a-f]{64}$/);
    expect(digester.digest('config-web', 'A', b64('1'))).toBe(d);
    expect(new ValueDigester(Buffer.alloc(32, 2)).digest('config-web', 'A', b64('1'))).not.toBe(d);
    expect(digester.digest('config-web', 'B', b64('1'))).not.toBe(d);
    expect(digester.digest('config-api', 'A', b64('1'))).not.toBe(d);
    expect(() => new ValueDigester(Buffer.alloc(16))).toThrow(/at least 32 bytes/);
  });

  it('replace data and stringData in the stored form; other objects are kept as they are', () => {
    const stored = redactObject(
      secret({ A: b64('alpha') }, { stringData: { B: 'beta' } }),
      digester,
    ) as unknown as {
      data?: unknown;
      stringData?: unknown;
      redactedData: Record<string, string>;
    };
    expect(stored.data).toBeUndefined();
    expect(stored.stringData).toBeUndefined();
    expect(stored.redactedData).toEqual({
      A: digester.digest('config-web', 'A', b64('alpha')),
      B: digester.digest('config-web', 'B', b64('beta')),
    });
    expect(JSON.stringify(stored)).not.toContain(b64('alpha'));
    expect(redactObject(stored as unknown as ReleaseObject, digester)).toBe(stored);
    const map = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'm' },
      data: { A: 'x' },
    } as ReleaseObject;
    expect(redactObject(map, digester)).toBe(map);
  });

  it('take values back from the live Secret where they match, and name the others', () => {
    const stored = redactObject(secret({ A: b64('alpha'), B: b64('beta'), C: b64('gamma') }), digester);
    const live = { data: { A: b64('alpha'), B: b64('edited') } };
    const values = valuesFromLive(stored, live, digester);
    expect(values.data).toEqual({ A: b64('alpha') });
    expect(values.lost).toEqual([
      { key: 'B', reason: 'changed' },
      { key: 'C', reason: 'removed' },
    ]);
    expect(valuesFromLive(stored, undefined, digester).lost.map((l) => l.reason)).toEqual([
      'secret-gone',
      'secret-gone',
      'secret-gone',
    ]);
    expect(withValues(stored, values.data)).toEqual(secret({ A: b64('alpha') }));
  });

  it('take a live value as it is when its digest was made under another fleet secret', () => {
    const before = new ValueDigester(Buffer.alloc(32, 7));
    expect(before.keyId).not.toBe(digester.keyId);
    const stored = redactObject(secret({ A: b64('alpha'), B: b64('beta') }), before);
    const values = valuesFromLive(stored, { data: { A: b64('alpha') } }, digester);
    // Unverifiable, not lost: the next write digests it under the current key (one new revision).
    expect(values.data).toEqual({ A: b64('alpha') });
    expect(values.lost).toEqual([{ key: 'B', reason: 'removed' }]);
  });

  it('take a value a later (failed or interrupted) revision wrote as the live truth, not a loss', () => {
    const deployed = redactObject(secret({ A: b64('old'), B: b64('kept') }), digester);
    const failed = redactObject(secret({ A: b64('new'), B: b64('kept'), N: b64('added') }), digester);
    const live = { data: { A: b64('new'), B: b64('kept'), N: b64('added') } };
    expect(valuesFromLive(deployed, live, digester).lost).toEqual([{ key: 'A', reason: 'changed' }]);
    const values = valuesFromLive(deployed, live, digester, [failed]);
    expect(values).toMatchObject({ data: live.data, lost: [] });
    // A key only the failed revision had, and that is not live, was never deployed: no loss.
    const partial = valuesFromLive(deployed, { data: { A: b64('old'), B: b64('kept') } }, digester, [failed]);
    expect(partial).toMatchObject({ data: { A: b64('old'), B: b64('kept') }, lost: [] });
    // A value neither revision had is still a change made by hand.
    const edited = valuesFromLive(deployed, { data: { A: b64('hand'), B: b64('kept') } }, digester, [failed]);
    expect(edited.lost).toEqual([{ key: 'A', reason: 'changed' }]);
  });
});

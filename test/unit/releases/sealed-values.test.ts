/** Secret values sealed in release history (src/releases/sealed-values.ts) and their use by the stored form. */
import { describe, expect, it } from 'vitest';
import { HistoryValueSealer } from '../../../src/releases/sealed-values.ts';
import {
  REDACTED_FIELD,
  redactObject,
  SEALED_FIELD,
  sealedValuesOf,
  ValueDigester,
  withValues,
} from '../../../src/releases/secret-values.ts';
import type { ReleaseObject } from '../../../src/storage/types.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const sealer = new HistoryValueSealer(Buffer.alloc(32, 7));
const digester = new ValueDigester(Buffer.alloc(32, 1));
const secret = (data: Record<string, string>) =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'config-web', namespace: 'web' },
    type: 'Opaque',
    data,
  }) as ReleaseObject;
type Stored = Record<string, Record<string, string> | undefined>;

describe('history value sealing', () => {
  it('is deterministic for one value and place, and opens back to the value', () => {
    const sealed = sealer.seal('config-web', 'A', b64('alpha'));
    expect(sealed).toMatch(/^lsh1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(sealer.seal('config-web', 'A', b64('alpha'))).toBe(sealed);
    expect(sealed).not.toContain(b64('alpha'));
    expect(sealer.open('config-web', 'A', sealed)).toBe(b64('alpha'));
    // Empty values and binary values round-trip.
    expect(sealer.open('config-web', 'E', sealer.seal('config-web', 'E', ''))).toBe('');
    const binary = Buffer.from([0, 255, 10, 13]).toString('base64');
    expect(sealer.open('config-web', 'B', sealer.seal('config-web', 'B', binary))).toBe(binary);
  });

  it('gives distinct values distinct IVs, and is bound to its Secret and key', () => {
    const iv = (s: string) => s.split('.')[2];
    const a = sealer.seal('config-web', 'A', b64('one'));
    expect(iv(sealer.seal('config-web', 'A', b64('two')))).not.toBe(iv(a));
    expect(iv(sealer.seal('config-web', 'B', b64('one')))).not.toBe(iv(a));
    expect(sealer.open('config-web', 'B', a)).toBeUndefined();
    expect(sealer.open('config-api', 'A', a)).toBeUndefined();
  });

  it('opens nothing sealed under another key, tampered with, or malformed', () => {
    const a = sealer.seal('config-web', 'A', b64('one'));
    expect(new HistoryValueSealer(Buffer.alloc(32, 8)).open('config-web', 'A', a)).toBeUndefined();
    const parts = a.split('.');
    parts[3] = `${parts[3]!.startsWith('A') ? 'B' : 'A'}${parts[3]!.slice(1)}`;
    expect(sealer.open('config-web', 'A', parts.join('.'))).toBeUndefined();
    expect(sealer.open('config-web', 'A', 'not sealed')).toBeUndefined();
    expect(() => new HistoryValueSealer(Buffer.alloc(16))).toThrow(/at least 32 bytes/);
  });
});

describe('the stored form with a sealer', () => {
  it('keeps each value sealed beside its digest; applying it drops both', () => {
    const stored = redactObject(secret({ A: b64('alpha'), B: b64('beta') }), digester, sealer);
    const fields = stored as unknown as Stored;
    expect(Object.keys(fields[REDACTED_FIELD] ?? {})).toEqual(['A', 'B']);
    expect(Object.keys(fields[SEALED_FIELD] ?? {})).toEqual(['A', 'B']);
    expect(JSON.stringify(stored)).not.toContain(b64('alpha'));
    // Deterministic, so an unchanged Secret stores the same form (and a redeploy stays a no-op).
    expect(redactObject(secret({ A: b64('alpha'), B: b64('beta') }), digester, sealer)).toEqual(stored);
    expect(sealedValuesOf(stored, sealer)).toEqual({
      data: { A: b64('alpha'), B: b64('beta') },
      missing: [],
    });
    const applied = withValues(stored, { A: b64('alpha') }) as unknown as Stored;
    expect(applied[REDACTED_FIELD]).toBeUndefined();
    expect(applied[SEALED_FIELD]).toBeUndefined();
    expect(applied.data).toEqual({ A: b64('alpha') });
  });

  it('names the keys it keeps no openable value for: digests only, or another fleet secret', () => {
    const digestsOnly = redactObject(secret({ A: b64('alpha') }), digester);
    expect((digestsOnly as unknown as Stored)[SEALED_FIELD]).toBeUndefined();
    expect(sealedValuesOf(digestsOnly, sealer)).toEqual({ data: {}, missing: ['A'] });
    const other = redactObject(
      secret({ A: b64('alpha') }),
      digester,
      new HistoryValueSealer(Buffer.alloc(32, 9)),
    );
    expect(sealedValuesOf(other, sealer)).toEqual({ data: {}, missing: ['A'] });
    expect(sealedValuesOf(redactObject(secret({ A: b64('alpha') }), digester, sealer), undefined)).toEqual({
      data: {},
      missing: ['A'],
    });
  });
});

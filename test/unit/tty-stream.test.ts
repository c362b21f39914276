/** The entries of an interactive run's tty streams (src/jobs/tty-stream.ts) round-trip. */
import { describe, expect, it } from 'vitest';
import { loadFleetConfig } from '../../src/core/env.ts';
import { parseTtyIn, parseTtyOut, ttyInFields, ttyOutFields } from '../../src/jobs/tty-stream.ts';

describe('tty stream entries', () => {
  it('output: bytes (any, base64), heartbeats, the end with and without an exit code', () => {
    const data = Buffer.from([0, 3, 27, 255, 10]);
    expect(parseTtyOut(ttyOutFields({ kind: 'data', data }))).toEqual({ kind: 'data', data });
    expect(parseTtyOut(ttyOutFields({ kind: 'beat' }))).toEqual({ kind: 'beat' });
    expect(parseTtyOut(ttyOutFields({ kind: 'end', reason: 'exited 4', exitCode: 4 }))).toEqual({
      kind: 'end',
      reason: 'exited 4',
      exitCode: 4,
    });
    expect(parseTtyOut(ttyOutFields({ kind: 'end', reason: 'failed' }))).toEqual({
      kind: 'end',
      reason: 'failed',
    });
    expect(parseTtyOut(['unknown', 'x'])).toBeUndefined();
  });

  it('input: keystrokes, sizes, heartbeats, a detach; a size that does not decode is dropped', () => {
    const data = Buffer.from('\u0003');
    expect(parseTtyIn(ttyInFields({ kind: 'data', data }))).toEqual({ kind: 'data', data });
    expect(parseTtyIn(ttyInFields({ kind: 'resize', width: 120, height: 30 }))).toEqual({
      kind: 'resize',
      width: 120,
      height: 30,
    });
    expect(parseTtyIn(ttyInFields({ kind: 'beat' }))).toEqual({ kind: 'beat' });
    expect(parseTtyIn(ttyInFields({ kind: 'detach', reason: 'left' }))).toEqual({
      kind: 'detach',
      reason: 'left',
    });
    expect(parseTtyIn(['r', '{bad'])).toBeUndefined();
    expect(parseTtyIn(['r', '{"width":"a"}'])).toBeUndefined();
  });
});

describe('LONGSHORE_RUN_IDLE_TIMEOUT_MS', () => {
  it('defaults to 30 s and refuses a value that is not whole ms in range', () => {
    const idle = (value: string | undefined) =>
      loadFleetConfig(value === undefined ? {} : { LONGSHORE_RUN_IDLE_TIMEOUT_MS: value }).runIdleTimeoutMs;
    expect(idle(undefined)).toBe(30_000);
    expect(idle('2000')).toBe(2_000);
    for (const bad of ['abc', '999', '1.5', '-1', '86400001'])
      expect(() => idle(bad)).toThrow(/LONGSHORE_RUN_IDLE_TIMEOUT_MS/);
  });
});

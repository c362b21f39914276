/** The pure parts of `logs`: pod numbering, line splitting, stream entries and the printed form. */
import { describe, expect, it } from 'vitest';
import { formatLogLine, LOG_LINE_MAX, logEntryFields, parseLogEntry } from '../../../src/jobs/log-stream.ts';
import { numberPods, type PodRef, splitLines } from '../../../src/workers/logs/pod-numbering.ts';

const pod = (process: string, name: string, createdAt: string, extra: Partial<PodRef> = {}): PodRef => ({
  process,
  name,
  createdAt,
  phase: 'Running',
  container: process,
  ...extra,
});

describe('numberPods', () => {
  it('numbers each process from 1, oldest first, ties by name; processes in name order', () => {
    const numbered = numberPods([
      pod('worker', 'shop-worker-b', '2026-01-01T00:00:05.000Z'),
      pod('web', 'shop-web-z', '2026-01-01T00:00:01.000Z'),
      pod('web', 'shop-web-b', '2026-01-01T00:00:03.000Z'),
      pod('web', 'shop-web-a', '2026-01-01T00:00:03.000Z'),
      pod('worker', 'shop-worker-a', '2026-01-01T00:00:09.000Z'),
    ]);
    expect(numbered.map((p) => [p.prefix, p.name])).toEqual([
      ['web.1', 'shop-web-z'],
      ['web.2', 'shop-web-a'],
      ['web.3', 'shop-web-b'],
      ['worker.1', 'shop-worker-b'],
      ['worker.2', 'shop-worker-a'],
    ]);
  });

  it('leaves out pods that are not running or are being deleted', () => {
    const numbered = numberPods([
      pod('web', 'pending', '2026-01-01T00:00:01.000Z', { phase: 'Pending' }),
      pod('web', 'going', '2026-01-01T00:00:02.000Z', { terminating: true }),
      pod('web', 'done', '2026-01-01T00:00:03.000Z', { phase: 'Succeeded' }),
      pod('web', 'up', '2026-01-01T00:00:04.000Z'),
    ]);
    expect(numbered.map((p) => [p.prefix, p.name])).toEqual([['web.1', 'up']]);
    expect(numberPods([])).toEqual([]);
  });
});

describe('splitLines', () => {
  it('keeps an unfinished line for the next chunk and drops carriage returns', () => {
    const first = splitLines('', 'one\r\ntw');
    expect(first).toEqual({ lines: ['one'], rest: 'tw' });
    expect(splitLines(first.rest, 'o\nthree\n')).toEqual({ lines: ['two', 'three'], rest: '' });
    expect(splitLines('', '')).toEqual({ lines: [], rest: '' });
  });
});

describe('log stream entries', () => {
  it('round-trip a line and an end; unknown entries are skipped', () => {
    expect(parseLogEntry(logEntryFields({ kind: 'line', prefix: 'web.1', line: 'hello | world' }))).toEqual({
      kind: 'line',
      prefix: 'web.1',
      line: 'hello | world',
    });
    expect(parseLogEntry(logEntryFields({ kind: 'end', reason: 'done' }))).toEqual({
      kind: 'end',
      reason: 'done',
    });
    expect(parseLogEntry(['x', 'y'])).toBeUndefined();
  });

  it('cuts a runaway line', () => {
    const [, , , line] = logEntryFields({
      kind: 'line',
      prefix: 'web.1',
      line: 'x'.repeat(LOG_LINE_MAX + 10),
    });
    expect(line).toBe(`${'x'.repeat(LOG_LINE_MAX)} …(cut)`);
  });

  it('prints as Dokku does', () => {
    expect(formatLogLine('web.1', 'listening on :5000')).toBe('web.1 | listening on :5000');
  });
});

import { describe, expect, it } from 'vitest';
import {
  columns,
  formatTime,
  isoSeconds,
  keyValues,
  relativeTime,
  stripAnsi,
  table,
  visibleWidth,
} from '../../../src/producers/cli/output.ts';
import { colourEnabled, createStyle } from '../../../src/producers/cli/style.ts';

const NOW = Date.parse('2026-12-01T11:00:42.700Z');

describe('formatTime', () => {
  it('prints relative and ISO time to the second in UTC', () => {
    expect(formatTime(Date.parse('2026-12-01T10:58:42.123Z'), NOW)).toBe(
      '2 minutes ago (2026-12-01T10:58:42Z)',
    );
    expect(formatTime('2026-12-01T11:00:42.100Z', NOW)).toBe('just now (2026-12-01T11:00:42Z)');
    // Counted in the whole seconds the ISO form shows, so the two always agree.
    expect(formatTime('2026-12-01T11:00:41.900Z', NOW)).toBe('1 second ago (2026-12-01T11:00:41Z)');
    expect(formatTime('2026-12-01T10:58:42.999Z', NOW)).toBe('2 minutes ago (2026-12-01T10:58:42Z)');
    expect(formatTime(new Date('2026-11-30T10:00:00Z'), NOW)).toBe('1 day ago (2026-11-30T10:00:00Z)');
  });

  it('prints - for no time, and text it cannot read as it is', () => {
    expect(formatTime(undefined, NOW)).toBe('-');
    expect(formatTime(0, NOW)).toBe('-');
    expect(formatTime('', NOW)).toBe('-');
    expect(formatTime('yesterday', NOW)).toBe('yesterday');
  });

  it('names each unit, singular and plural, and a time ahead of the clock', () => {
    const s = 1000;
    expect(relativeTime(NOW - 1 * s, NOW)).toBe('1 second ago');
    expect(relativeTime(NOW - 59 * s, NOW)).toBe('59 seconds ago');
    expect(relativeTime(NOW - 60 * s, NOW)).toBe('1 minute ago');
    expect(relativeTime(NOW - 3 * 3600 * s, NOW)).toBe('3 hours ago');
    expect(relativeTime(NOW - 45 * 86_400 * s, NOW)).toBe('1 month ago');
    expect(relativeTime(NOW - 800 * 86_400 * s, NOW)).toBe('2 years ago');
    expect(relativeTime(NOW + 5 * 60 * s, NOW)).toBe('in 5 minutes');
    expect(isoSeconds(Date.parse('2026-01-02T03:04:05.999Z'))).toBe('2026-01-02T03:04:05Z');
  });
});

describe('visible width', () => {
  it('does not count colour codes or combining marks; counts wide characters and emoji twice', () => {
    expect(visibleWidth('\u001b[32mcompleted\u001b[39m')).toBe(9);
    expect(visibleWidth('日本語')).toBe(6);
    expect(visibleWidth('e\u0301')).toBe(1);
    expect(visibleWidth('ship 🚢')).toBe(7);
    expect(visibleWidth('👩‍💻')).toBe(2);
    expect(visibleWidth('café')).toBe(4);
    expect(stripAnsi('\u001b[1mAPP\u001b[22m')).toBe('APP');
  });
});

describe('tables', () => {
  it('aligns columns with coloured and wide cells as plain ones', () => {
    const style = createStyle({ isTTY: true }, {});
    const out = table(
      ['APP', 'OUTCOME', 'IMAGE'],
      [
        ['日本', style.status('completed'), 'nginx:1'],
        ['shop', style.status('failed'), 'nginx:2'],
      ],
      style.bold,
    );
    const plain = stripAnsi(out).split('\n');
    expect(plain).toEqual(['APP   OUTCOME    IMAGE', '日本  completed  nginx:1', 'shop  failed     nginx:2']);
    // Every IMAGE cell starts in the same terminal column.
    const column = (line: string) => visibleWidth(line.slice(0, line.lastIndexOf('nginx')));
    const lines = out.split('\n');
    expect(column(lines[1]!)).toBe(column(lines[2]!));
    expect(out).toContain('\u001b[32mcompleted\u001b[39m');
    expect(out).toContain('\u001b[1mAPP\u001b[22m');
  });

  it('does not pad the last column, and leaves no trailing space', () => {
    expect(
      columns([
        ['a', 'b'],
        ['long', ''],
      ]),
    ).toEqual(['a     b', 'long']);
  });

  it('aligns key/value blocks; an empty key continues the row above, later lines stay under the first', () => {
    expect(
      keyValues([
        ['app', 'shop'],
        ['release', 'revision 2 deployed'],
        ['', 'revision 3 failed'],
        ['logs', 'one\ntwo'],
      ]),
    ).toEqual([
      'app      shop',
      'release  revision 2 deployed',
      '         revision 3 failed',
      'logs     one\n         two',
    ]);
  });
});

describe('colour', () => {
  it('is on only on a terminal', () => {
    expect(colourEnabled({ isTTY: true }, {})).toBe(true);
    expect(colourEnabled({ isTTY: false }, {})).toBe(false);
    expect(colourEnabled({}, {})).toBe(false);
    expect(colourEnabled({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });

  it('is off with NO_COLOR set to anything non-empty, even on a terminal or forced', () => {
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: 'yes', FORCE_COLOR: '1' })).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
  });

  it('is on without a terminal when FORCE_COLOR asks (not 0)', () => {
    expect(colourEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colourEnabled({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
  });

  it('colours states by meaning, and prints plain text when off', () => {
    const on = createStyle({ isTTY: true }, {});
    expect(on.status('completed')).toBe('\u001b[32mcompleted\u001b[39m');
    expect(on.status('failed')).toBe('\u001b[31mfailed\u001b[39m');
    expect(on.status('waiting')).toBe('\u001b[33mwaiting\u001b[39m');
    expect(on.status('unknown-word')).toBe('unknown-word');
    const off = createStyle({ isTTY: false }, {});
    expect(off.status('failed')).toBe('failed');
    expect(off.bold('APP')).toBe('APP');
  });
});

import { describe, expect, it } from 'vitest';
import { diffLines, unifiedDiff } from '../../../src/releases/line-diff.ts';
import { prng } from '../../helpers/prng.ts';

/** Length of a longest common subsequence, by dynamic programming (the reference for minimality). */
function lcs(a: string[], b: string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = a[i - 1] === b[j - 1] ? diag + 1 : Math.max(row[j]!, row[j - 1]!);
      diag = up;
    }
  }
  return row[b.length]!;
}

describe('diffLines', () => {
  it('rebuilds both sides and is minimal (as long a common part as any), on random texts', () => {
    const random = prng(15);
    for (let round = 0; round < 300; round++) {
      const words = ['a', 'b', 'c', 'd'];
      const text = () =>
        Array.from({ length: Math.floor(random() * 12) }, () => words[Math.floor(random() * words.length)]!);
      const a = text();
      const b = text();
      const edits = diffLines(a, b);
      expect(edits.filter((e) => e.op !== '+').map((e) => e.line)).toEqual(a);
      expect(edits.filter((e) => e.op !== '-').map((e) => e.line)).toEqual(b);
      expect(edits.filter((e) => e.op === ' ').length).toBe(lcs(a, b));
    }
  });

  it('handles empty sides', () => {
    expect(diffLines([], [])).toEqual([]);
    expect(diffLines([], ['x'])).toEqual([{ op: '+', line: 'x' }]);
    expect(diffLines(['x'], [])).toEqual([{ op: '-', line: 'x' }]);
  });
});

describe('unifiedDiff', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

  it('is empty for equal texts', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n')).toBe('');
  });

  it('writes one hunk with three lines of context, as diff -u', () => {
    const a = lines(10);
    const b = [...a];
    b[4] = 'changed 5';
    expect(unifiedDiff(`${a.join('\n')}\n`, `${b.join('\n')}\n`, { from: 'live', to: 'rendered' })).toBe(
      [
        '--- live',
        '+++ rendered',
        '@@ -2,7 +2,7 @@',
        ' line 2',
        ' line 3',
        ' line 4',
        '-line 5',
        '+changed 5',
        ' line 6',
        ' line 7',
        ' line 8',
        '',
      ].join('\n'),
    );
  });

  it('merges changes closer than twice the context, and splits the others', () => {
    const a = lines(30);
    const b = [...a];
    b[2] = 'x3';
    b[7] = 'x8'; // 4 unchanged lines after line 3: same hunk
    b[25] = 'x26'; // far away: a hunk of its own
    const out = unifiedDiff(a.join('\n'), b.join('\n'));
    expect(out.split('\n').filter((l) => l.startsWith('@@'))).toEqual([
      '@@ -1,11 +1,11 @@',
      '@@ -23,7 +23,7 @@',
    ]);
  });

  it('names the line before an empty side, for pure insertions and deletions', () => {
    expect(unifiedDiff('', 'a\nb\n')).toBe('@@ -0,0 +1,2 @@\n+a\n+b\n');
    expect(unifiedDiff('a\nb\n', '')).toBe('@@ -1,2 +0,0 @@\n-a\n-b\n');
    expect(unifiedDiff('a\nb\n', 'a\nb\nc\n', { context: 0 })).toBe('@@ -2,0 +3,1 @@\n+c\n');
  });
});

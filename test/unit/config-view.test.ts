import { describe, expect, it } from 'vitest';
import { alignedLines, maskedObject, maskValue } from '../../src/producers/cli/config-view.ts';

describe('config view', () => {
  it('never shows a whole value when masked', () => {
    expect(maskValue('')).toBe('(empty)');
    expect(maskValue('short')).toBe('********');
    expect(maskValue('postgres://user:pw@db/app')).toBe('pos…');
    expect(maskValue('\nline two of a long value')).toBe('·li…');
    expect(maskValue('🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀')).toBe('🚀🚀🚀…');
    expect(maskedObject({ A: 'secret', B: '' })).toEqual({ A: '********', B: '(empty)' });
  });

  it('aligns KEY and value, and quotes revealed values that are not one plain line', () => {
    const config = { LONG_NAME: 'plain', A: 'two\nlines', E: '', S: ' padded' };
    expect(alignedLines(config, true)).toEqual([
      'A          "two\\nlines"',
      'E          ""',
      'LONG_NAME  plain',
      'S          " padded"',
    ]);
    expect(alignedLines(config, false)).toEqual([
      'A          ********',
      'E          (empty)',
      'LONG_NAME  ********',
      'S          ********',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { ENV_NAME_MESSAGE, envName, isEnvName } from '../../../rules/env-names.ts';

describe('environment variable names', () => {
  it.each([
    ['A', true],
    ['_', true],
    ['DATABASE_URL', true],
    ['lower_case1', true],
    ['A'.repeat(253), true],
    ['A'.repeat(254), false],
    ['', false],
    ['1ABC', false],
    ['A-B', false],
    ['A.B', false],
    ['A B', false],
    ['É', false],
  ])('%j → %s', (name, valid) => {
    expect(isEnvName(name)).toBe(valid);
    expect(envName.safeParse(name).success).toBe(valid);
  });

  it('says what is accepted', () => {
    expect(envName.safeParse('1X').error?.issues.map((i) => i.message)).toEqual([ENV_NAME_MESSAGE]);
    expect(envName.safeParse('').error?.issues.map((i) => i.message)).toContain('must not be empty');
  });
});

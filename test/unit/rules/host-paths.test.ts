import { describe, expect, it } from 'vitest';
import { HOST_PATH_MAX, hostPath } from '../../../rules/host-paths.ts';

describe('host paths', () => {
  it.each([
    ['/data', undefined],
    ['/', undefined],
    ['/srv/a..b/c', undefined],
    [`/${'a'.repeat(HOST_PATH_MAX - 1)}`, undefined],
    [`/${'a'.repeat(HOST_PATH_MAX)}`, `must be at most ${HOST_PATH_MAX} characters`],
    ['data', 'must be an absolute path'],
    ['', 'must be an absolute path'],
    ['/srv/../etc', 'must not contain ".."'],
    ['/srv/..', 'must not contain ".."'],
  ])('%j', (path, message) => {
    expect(hostPath.safeParse(path).error?.issues.map((i) => i.message)[0]).toBe(message);
  });
});

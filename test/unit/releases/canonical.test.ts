import { describe, expect, it } from 'vitest';
import { contentDigest, objectDigest } from '../../../src/releases/canonical.ts';
import { withReleaseLabels } from '../../../src/releases/objects.ts';
import type { ReleaseObject } from '../../../src/storage/types.ts';

const a = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'n' },
  data: { x: '1', y: '2' },
} as ReleaseObject;
const b = {
  data: { y: '2', x: '1' },
  metadata: { namespace: 'n', name: 'c' },
  kind: 'ConfigMap',
  apiVersion: 'v1',
} as ReleaseObject;

describe('digests', () => {
  it('ignore key order but not list order or values', () => {
    expect(objectDigest(a)).toBe(objectDigest(b));
    expect(objectDigest(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(objectDigest({ ...a, data: { x: '1', y: '3' } } as ReleaseObject)).not.toBe(objectDigest(a));
    const chart = { name: 'app', version: '1' };
    expect(contentDigest({ chart, values: { l: [1, 2] }, objects: [a] })).toBe(
      contentDigest({ chart, values: { l: [1, 2] }, objects: [b] }),
    );
    expect(contentDigest({ chart, values: { l: [1, 2] }, objects: [a] })).not.toBe(
      contentDigest({ chart, values: { l: [2, 1] }, objects: [a] }),
    );
  });

  it('labels objects without touching the caller’s copy', () => {
    const labeled = withReleaseLabels(a, 'web');
    expect(labeled.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'longshore',
      'longshore.dev/release': 'web',
    });
    expect(a.metadata.labels).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { keyOf } from '../../../src/releases/objects.ts';
import {
  type DesiredObject,
  decideRecovery,
  INTERRUPTED,
  planObjects,
  possiblyLive,
  RETRIED_OTHERWISE,
} from '../../../src/releases/plan.ts';
import type { ObjectRef, ReleaseStatus, RevisionInfo } from '../../../src/storage/types.ts';

const ref = (kind: string, name: string): ObjectRef => ({
  apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
  kind,
  namespace: 'ns',
  name,
});

function revision(
  n: number,
  status: ReleaseStatus,
  objects: [ObjectRef, string][],
  extra: Partial<RevisionInfo> = {},
): RevisionInfo {
  return {
    release: 'web',
    app: 'web',
    revision: n,
    status,
    chart: { name: 'app', version: '1' },
    digest: `content-${n}`,
    description: '',
    createdAt: '',
    modifiedAt: '',
    objects: objects.map(([r, digest]) => ({ ...r, digest })),
    ...extra,
  };
}

const desired = (entries: [ObjectRef, string][]): DesiredObject[] =>
  entries.map(([r, digest]) => ({ ref: r, key: keyOf(r), digest }));

describe('possiblyLive', () => {
  it('is the deployed revision and everything after it', () => {
    const history = [
      revision(1, 'superseded', []),
      revision(2, 'deployed', []),
      revision(3, 'failed', []),
      revision(4, 'failed', []),
    ];
    expect(possiblyLive(history).map((r) => r.revision)).toEqual([2, 3, 4]);
  });

  it('is the whole history when nothing is deployed', () => {
    const history = [revision(1, 'failed', []), revision(2, 'uninstalling', [])];
    expect(possiblyLive(history).map((r) => r.revision)).toEqual([1, 2]);
  });
});

describe('planObjects', () => {
  const secret = ref('Secret', 'config');
  const web = ref('Deployment', 'web');
  const worker = ref('Deployment', 'worker');

  it('marks new and changed objects, and drops what the new content leaves out', () => {
    const live = [
      revision(1, 'deployed', [
        [secret, 's1'],
        [web, 'w1'],
        [worker, 'k1'],
      ]),
    ];
    const plan = planObjects(
      desired([
        [secret, 's1'],
        [web, 'w2'],
      ]),
      live,
    );
    expect(plan.changed.map((o) => o.ref.name)).toEqual(['web']);
    expect(plan.unchanged.map((o) => o.ref.name)).toEqual(['config']);
    expect(plan.dropped).toEqual([worker]);
  });

  it('treats an object as changed when any possibly-live revision had it otherwise', () => {
    // Revision 2 failed after applying web:w9; going back to w1 must re-apply it.
    const live = [
      revision(1, 'deployed', [[web, 'w1']]),
      revision(2, 'failed', [
        [web, 'w9'],
        [worker, 'k1'],
      ]),
    ];
    const plan = planObjects(desired([[web, 'w1']]), live);
    expect(plan.changed.map((o) => o.ref.name)).toEqual(['web']);
    expect(plan.dropped).toEqual([worker]); // Helm would leak what the failed revision created
  });

  it('ignores the revision being continued as a baseline', () => {
    const live = [revision(1, 'deployed', [[web, 'w1']]), revision(2, 'pending-upgrade', [[web, 'w2']])];
    expect(planObjects(desired([[web, 'w2']]), live, 2).changed).toHaveLength(1);
    expect(planObjects(desired([[web, 'w2']]), live).changed).toHaveLength(1);
  });

  it('changes everything on a first install', () => {
    expect(planObjects(desired([[web, 'w1']]), []).changed).toHaveLength(1);
  });

  it('keeps the group in identity but not the version', () => {
    const v1beta1 = { ...web, apiVersion: 'apps/v1beta1' };
    const live = [revision(1, 'deployed', [[v1beta1, 'w1']])];
    expect(planObjects(desired([[web, 'w1']]), live).dropped).toEqual([]);
  });
});

describe('decideRecovery', () => {
  const pending = revision(3, 'pending-upgrade', [], { holder: 'job-1', digest: 'd3' });
  const kinds: ReleaseStatus[] = ['pending-install', 'pending-upgrade'];

  it('does nothing when the last revision is not pending', () => {
    expect(decideRecovery(undefined, 'job-1', 'd3', kinds)).toEqual({ action: 'none' });
    expect(decideRecovery(revision(3, 'deployed', []), 'job-1', 'd3', kinds)).toEqual({ action: 'none' });
  });

  it('continues the same job’s revision with the same content', () => {
    expect(decideRecovery(pending, 'job-1', 'd3', kinds)).toEqual({ action: 'continue', revision: pending });
  });

  it('fails a revision another holder left, whatever its content', () => {
    expect(decideRecovery(pending, 'job-2', 'd3', kinds)).toEqual({
      action: 'fail',
      revision: pending,
      reason: INTERRUPTED,
    });
  });

  it('fails the same job’s revision when the content or the kind of operation differs', () => {
    expect(decideRecovery(pending, 'job-1', 'other', kinds)).toMatchObject({
      action: 'fail',
      reason: RETRIED_OTHERWISE,
    });
    expect(decideRecovery(pending, 'job-1', 'd3', ['pending-rollback'])).toMatchObject({ action: 'fail' });
  });
});

/** Which revision a rollback restores, and what an app revision records for it. */
import { describe, expect, it } from 'vitest';
import { recordOf, withRecord } from '../../../src/apps/revision-record.ts';
import { emptySpec } from '../../../src/apps/spec.ts';
import type { ReleaseStatus, RevisionInfo } from '../../../src/storage/types.ts';
import { rollbackTarget } from '../../../src/workers/rollback/target.ts';

function rev(revision: number, status: ReleaseStatus, extra: Partial<RevisionInfo> = {}): RevisionInfo {
  return {
    release: 'web',
    app: 'web',
    revision,
    status,
    chart: { name: 'app', version: '1' },
    digest: `d${revision}`,
    description: 'Upgrade complete',
    createdAt: '',
    modifiedAt: '',
    objects: [],
    ...extra,
  };
}

describe('rollbackTarget', () => {
  const history = [rev(1, 'superseded'), rev(2, 'superseded'), rev(3, 'failed'), rev(4, 'deployed')];

  it('defaults to the newest superseded revision before the deployed one', () => {
    expect(rollbackTarget('web', history, undefined, 'job-9').revision).toBe(2);
  });

  it('takes the revision named, and names the ones there are when it does not exist', () => {
    expect(rollbackTarget('web', history, 1, 'job-9').revision).toBe(1);
    expect(() => rollbackTarget('web', history, 7, 'job-9')).toThrow(
      'app web has no revision 7 (its revisions: 1, 2, 3, 4)',
    );
  });

  it('keeps the target of the rollback revision this same job made (a retry after it finished)', () => {
    const after = [
      rev(1, 'superseded'),
      rev(2, 'superseded'),
      rev(3, 'deployed', { holder: 'job-9', description: 'Rollback to 1' }),
    ];
    expect(rollbackTarget('web', after, undefined, 'job-9').revision).toBe(1);
    // Another job's default is the revision that rollback superseded.
    expect(rollbackTarget('web', after, undefined, 'job-10').revision).toBe(2);
  });

  it('refuses an app without history, or without an earlier deployed revision', () => {
    expect(() => rollbackTarget('web', [], undefined, 'j')).toThrow('app web has no release history');
    expect(() => rollbackTarget('web', [rev(1, 'deployed')], undefined, 'j')).toThrow(
      'app web has no earlier deployed revision to roll back to',
    );
  });

  it('refuses a revision whose index cannot be read', () => {
    const broken = [rev(1, 'superseded', { unreadable: 'bad manifest' }), rev(2, 'deployed')];
    expect(() => rollbackTarget('web', broken, 1, 'j')).toThrow('revision 1 of app web cannot be read');
  });
});

describe('revision record', () => {
  it('round-trips the spec and config revision next to the chart values', () => {
    const spec = { ...emptySpec('web'), image: 'nginx:1' };
    const values = withRecord({ image: 'nginx:1' }, { spec, configRevision: 3 });
    expect(values.image).toBe('nginx:1');
    expect(recordOf(values)).toEqual({ spec, configRevision: 3 });
  });

  it('is absent from values written before it existed, or unreadable', () => {
    expect(recordOf({ image: 'nginx:1' })).toBeUndefined();
    expect(recordOf({ recorded: { spec: { app: 'Bad' } } })).toBeUndefined();
  });
});

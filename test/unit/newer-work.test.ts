/** Which job types count as newer work, and the supersession arguments each contract yields. */
import { describe, expect, it } from 'vitest';
import { JOB_TYPES } from '../../src/jobs/contract.ts';
import {
  contractFor,
  countsAsNewerWork,
  NEUTRAL_TYPES,
  PASSABLE_TYPES,
  supersessionOf,
} from '../../src/jobs/contracts.ts';

describe('newer work', () => {
  it('is every job type except the reads (config-read, logs, releases, report, storage-list, storage-status), dry runs, reconcile and sync', () => {
    expect([...NEUTRAL_TYPES].sort()).toEqual([
      'config-read',
      'dry-run',
      'logs',
      'reconcile',
      'releases',
      'report',
      'storage-list',
      'storage-status',
      'sync',
    ]);
    expect(countsAsNewerWork('config')).toBe(true);
    // A type this build does not know may be anything.
    expect(countsAsNewerWork('from-a-newer-build')).toBe(true);
  });

  it('gives deploys the adjacent rule across neutral jobs but dry runs, and reconcile and sync the newest-wins rule', () => {
    expect(supersessionOf(contractFor('deploy'))).toEqual({
      supersedeKey: 'deploy',
      supersedeRule: 'adjacent',
      passable: PASSABLE_TYPES,
    });
    // A dry run shows the state at its place in the lane: a deploy before it is never merged into one after it.
    expect(PASSABLE_TYPES).not.toContain('dry-run');
    expect(PASSABLE_TYPES).toEqual(NEUTRAL_TYPES.filter((t) => t !== 'dry-run'));
    expect(supersessionOf(contractFor('dry-run'))).toEqual({});
    expect(supersessionOf(contractFor('reconcile'))).toEqual({
      supersedeKey: 'reconcile',
      supersedeRule: 'any',
    });
    expect(supersessionOf(contractFor('sync'))).toEqual({ supersedeKey: 'sync', supersedeRule: 'any' });
    expect(supersessionOf(contractFor('config'))).toEqual({});
  });

  it('keeps each supersede key to one job type (the script matches peers by type)', () => {
    const keys = JOB_TYPES.map((t) => contractFor(t).supersedeKey).filter((k) => k !== undefined);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

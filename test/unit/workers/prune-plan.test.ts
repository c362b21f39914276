/** The rules of `prune` (src/workers/prune/plan.ts): which run Jobs and which apps' data go. */
import { describe, expect, it } from 'vitest';
import type { AppRecord } from '../../../src/storage/app-records.ts';
import type { RevisionInfo } from '../../../src/storage/index.ts';
import { expiredRunJobs, finishedAt, goneApps } from '../../../src/workers/prune/plan.ts';

const NOW = Date.parse('2026-01-02T00:00:00Z');
const MANAGED = { 'app.kubernetes.io/managed-by': 'longshore' };

function job(
  name: string,
  opts: {
    labels?: Record<string, string>;
    ttl?: number;
    finished?: string;
    condition?: 'Complete' | 'Failed';
    deleting?: boolean;
  } = {},
) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: 'default',
      labels: opts.labels ?? { ...MANAGED, 'longshore.dev/job': 'run', 'app.kubernetes.io/part-of': 'web' },
      ...(opts.deleting ? { deletionTimestamp: new Date(NOW) } : {}),
    },
    spec: opts.ttl === undefined ? {} : { ttlSecondsAfterFinished: opts.ttl },
    status: opts.finished
      ? {
          conditions: [
            { type: opts.condition ?? 'Complete', status: 'True', lastTransitionTime: opts.finished },
          ],
        }
      : { conditions: [] },
  };
}

describe('expiredRunJobs', () => {
  it('keeps run Jobs that still run, have no TTL, or finished less than their TTL ago', () => {
    const jobs = [
      job('running', { ttl: 60 }),
      job('no-ttl', { finished: '2026-01-01T00:00:00Z' }),
      job('young', { ttl: 3600, finished: '2026-01-01T23:30:00Z' }),
      job('expired', { ttl: 3600, finished: '2026-01-01T22:00:00Z' }),
      job('failed-expired', { ttl: 60, finished: '2026-01-01T23:00:00Z', condition: 'Failed' }),
      job('exactly', { ttl: 60, finished: '2026-01-01T23:59:00Z' }),
      job('already-deleting', { ttl: 60, finished: '2026-01-01T20:00:00Z', deleting: true }),
    ];
    expect(expiredRunJobs(jobs, NOW).map((j) => j.metadata.name)).toEqual([
      'expired',
      'failed-expired',
      'exactly',
    ]);
  });

  it('touches only Jobs labelled as longshore run Jobs, of the app asked for', () => {
    const old = { ttl: 1, finished: '2026-01-01T00:00:00Z' };
    const jobs = [
      job('unmanaged', { ...old, labels: { 'longshore.dev/job': 'run' } }),
      job('other-manager', {
        ...old,
        labels: { 'app.kubernetes.io/managed-by': 'helm', 'longshore.dev/job': 'run' },
      }),
      job('not-a-run', { ...old, labels: { ...MANAGED, 'app.kubernetes.io/part-of': 'web' } }),
      job('cron-run', { ...old, labels: { ...MANAGED, 'longshore.dev/job': 'cron' } }),
      job('web-run', old),
      job('api-run', {
        ...old,
        labels: { ...MANAGED, 'longshore.dev/job': 'run', 'app.kubernetes.io/part-of': 'api' },
      }),
    ];
    expect(expiredRunJobs(jobs, NOW).map((j) => j.metadata.name)).toEqual(['web-run', 'api-run']);
    expect(expiredRunJobs(jobs, NOW, 'api').map((j) => j.metadata.name)).toEqual(['api-run']);
  });

  it('reads the finish time from the Complete/Failed condition that is True', () => {
    expect(finishedAt(job('x'))).toBeUndefined();
    expect(finishedAt(job('x', { finished: '2026-01-01T00:00:00Z' }))).toBe(
      Date.parse('2026-01-01T00:00:00Z'),
    );
    const suspended = job('x', { finished: '2026-01-01T00:00:00Z' });
    suspended.status.conditions[0]!.status = 'False';
    expect(finishedAt(suspended)).toBeUndefined();
  });
});

const record = (app: string, createdAt = '2026-01-01T00:00:00Z'): AppRecord => ({
  app,
  uid: `uid-${app}`,
  createdAt,
});
const last = (app: string) => ({ app }) as RevisionInfo;

describe('goneApps', () => {
  const GRACE = 10 * 60_000;

  it('finds releases whose app record is gone and records no release belongs to', () => {
    const gone = goneApps({
      records: [record('web'), record('empty'), record('young', '2026-01-01T23:55:00Z')],
      releases: [
        { release: 'web', last: last('web') },
        { release: 'config-web', last: last('web') },
        { release: 'ghost', last: last('ghost') },
        { release: 'config-ghost', last: last('ghost') },
        { release: 'vanished', last: undefined },
      ],
      nowMs: NOW,
      graceMs: GRACE,
    });
    expect(gone).toEqual({
      releases: [
        { release: 'ghost', app: 'ghost' },
        { release: 'config-ghost', app: 'ghost' },
      ],
      // `young` may be a first deploy between its record and its first revision.
      records: ['empty'],
    });
  });

  it('keeps everything of an app that has both, and narrows to one app', () => {
    const input = {
      records: [record('web'), record('empty')],
      releases: [
        { release: 'web', last: last('web') },
        { release: 'ghost', last: last('ghost') },
      ],
      nowMs: NOW,
      graceMs: GRACE,
    };
    expect(goneApps({ ...input, app: 'web' })).toEqual({ releases: [], records: [] });
    expect(goneApps({ ...input, app: 'ghost' })).toEqual({
      releases: [{ release: 'ghost', app: 'ghost' }],
      records: [],
    });
    expect(goneApps({ ...input, app: 'empty' })).toEqual({ releases: [], records: ['empty'] });
  });

  it('keeps a record that holds a spec: an app configured before its first deploy', () => {
    const configured = { ...record('configured'), spec: { domains: ['shop.example.com'] } };
    const unreadable = { ...record('unreadable'), unreadableSpec: 'not an AppSpec' };
    expect(
      goneApps({
        records: [configured, unreadable, record('empty')],
        releases: [],
        nowMs: NOW,
        graceMs: GRACE,
      }),
    ).toEqual({ releases: [], records: ['empty'] });
  });
});

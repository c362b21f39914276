/**
 * `releases APP` (a read job: the worker reads history, the CLI holds no cluster credentials) and
 * `releases:rollback APP [REVISION]` (a queued job in the app's lane). See docs/apps.md.
 */
import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import type { JobClient } from '../../../jobs/client.ts';
import type { ReleaseEntry } from '../../../jobs/schemas/releases.ts';
import { DRY_RUN_OPTION, submitAppJob } from '../dry-run.ts';
import { formatTime, table } from '../output.ts';
import { action, type CommonOptions, type ResultView, submit } from '../runtime.ts';
import { stdoutStyle } from '../style.ts';
import { withSubmitOptions } from './common.ts';

/** A release entry with who enqueued the job that made it (when Redis still keeps that job). */
export type ReleaseRow = ReleaseEntry & { by?: string };

export function registerReleases(program: Command): void {
  program
    .command('releases')
    .description("An app release's history: revision, status, image, change, when, by whom")
    .argument('<app>', 'app name')
    .option('--timeout <seconds>', 'stop waiting after this many seconds')
    .option('--json', 'print JSON')
    .action(
      action(async (app: string, options: CommonOptions) =>
        submit('releases', { app }, { ...options, wait: true }, undefined, releasesView),
      ),
    );

  withSubmitOptions(
    program
      .command('releases:rollback')
      .description('Restore an earlier app revision (default: the previous deployed one) as a new revision')
      .argument('<app>', 'app name')
      .argument('[revision]', 'the revision to restore (see `releases APP`)')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, revision: string | undefined, options: CommonOptions) => {
      if (revision !== undefined && !/^[1-9]\d*$/.test(revision))
        throw new InvalidInputError([
          { path: 'revision', message: `"${revision}" is not a revision number` },
        ]);
      return submitAppJob('rollback', { app, ...(revision ? { revision: Number(revision) } : {}) }, options);
    }),
  );
}

const releasesView: ResultView = {
  async enrich(result, client) {
    const entries = (result as { releases?: ReleaseEntry[] } | undefined)?.releases ?? [];
    return { releases: await Promise.all(entries.map((e) => withEnqueuer(e, client))) };
  },
  print(result, output) {
    const rows = (result as { releases: ReleaseRow[] }).releases;
    if (rows.length === 0) {
      output.out('no releases');
      return;
    }
    const style = stdoutStyle();
    const now = Date.now();
    output.out(
      table(
        ['REVISION', 'STATUS', 'IMAGE', 'CHANGE', 'WHEN', 'BY'],
        rows.map((r) => [
          String(r.revision),
          style.status(r.status),
          r.image ?? '-',
          r.change,
          formatTime(r.at, now),
          [r.job, r.by].filter(Boolean).join(' ') || '-',
        ]),
        style.bold,
      ),
    );
  },
};

async function withEnqueuer(entry: ReleaseEntry, client: JobClient): Promise<ReleaseRow> {
  if (!entry.job) return entry;
  const job = await client
    .queueFor(entry.job)
    .getJob(entry.job)
    .catch(() => undefined);
  const by = (job?.data as { enqueuedBy?: unknown } | undefined)?.enqueuedBy;
  return typeof by === 'string' ? { ...entry, by } : entry;
}

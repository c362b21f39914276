import type { Command } from 'commander';
import { InvalidInputError, NotFoundError } from '../../../core/errors.ts';
import { laneId } from '../../../jobs/lane.ts';
import {
  type DeployedRevisionRecord,
  type LaneStatus,
  listLaneStatuses,
  readLaneStatus,
} from '../../../jobs/status.ts';
import { confirmByName } from '../confirm.ts';
import { DRY_RUN_OPTION, type DryRunOptions, submitAppJob } from '../dry-run.ts';
import { EXIT } from '../exit-codes.ts';
import { createOutput, formatTime, keyValues, table } from '../output.ts';
import { action, type CommonOptions, withRedis } from '../runtime.ts';
import { type Style, stdoutStyle } from '../style.ts';
import { withSubmitOptions } from './common.ts';

export function registerApps(program: Command): void {
  withSubmitOptions(
    program
      .command('apps:rename')
      .description('Rename an app (resumable: install under the new name, then remove the old releases)')
      .argument('<app>', 'current name')
      .argument('<new-name>', 'new name')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, newName: string, options: CommonOptions) =>
      submitAppJob('rename', { app, newName }, options),
    ),
  );

  withSubmitOptions(
    program
      .command('apps:destroy')
      .description(
        'Uninstall every release of an app and delete its record (asks for the name on a terminal)',
      )
      .argument('<app>', 'app name')
      .option('--force', 'confirm without asking: destroying an app cannot be undone')
      .option('--with-storage', 'also destroy the storage entries the app mounts (kept by default)')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, options: DryRunOptions & { force?: boolean; withStorage?: boolean }) => {
      const { validateJobLazily } = await import('../../../jobs/validate-lazily.ts');
      await validateJobLazily('destroy', { app, withStorage: Boolean(options.withStorage) });
      // A dry run destroys nothing: no name to confirm.
      if (!options.dryRun) await confirmByName(`destroying ${app}`, app, options.force);
      return submitAppJob('destroy', { app, withStorage: Boolean(options.withStorage) }, options);
    }),
  );

  program
    .command('apps:list')
    .description('Apps known to the fleet, from the status projection workers keep in Redis')
    .option('--json', 'print JSON')
    .option('--all', 'also list destroyed and renamed apps (their job history stays readable)')
    .action(
      action(async (options: { json?: boolean; all?: boolean }) => {
        const output = createOutput(Boolean(options.json));
        const known = await withRedis((redis) => listLaneStatuses(redis, 'app'));
        const apps = options.all ? known : known.filter((a) => !a.destroyed && !a.renamedTo);
        if (output.json) {
          output.data(apps);
          return EXIT.ok;
        }
        if (apps.length === 0) {
          output.out('no apps yet (deploy one: longshore deploy APP --image IMAGE)');
          return EXIT.ok;
        }
        const style = stdoutStyle();
        const now = Date.now();
        output.out(
          table(
            ['APP', 'LAST JOB', 'OUTCOME', 'REVISION', 'IMAGE', 'PENDING', 'RUNNING', 'UPDATED'],
            apps.map((a) => [
              a.name ?? a.lane,
              a.lastJobId ? `${a.lastType} ${a.lastJobId}` : '-',
              a.lastOutcome ? style.status(a.lastOutcome) : '-',
              a.revision !== undefined ? String(a.revision) : '-',
              a.image ?? '-',
              String(a.pending),
              a.activeJobId ? style.yellow(a.activeJobId) : '-',
              formatTime(a.updatedAt, now),
            ]),
            style.bold,
          ),
        );
        return EXIT.ok;
      }),
    );

  program
    .command('apps:status')
    .description("An app's status from the projection: last job, outcome, revision, image, running job")
    .argument('<app>', 'app name')
    .option('--json', 'print JSON')
    .action(
      action(async (app: string, options: { json?: boolean }) => {
        // The contracts (zod) load only here: apps:list starts without them.
        const { appName } = await import('../../../jobs/schemas/common.ts');
        const { issuesOf } = await import('../../../jobs/payload-checks.ts');
        const valid = appName.safeParse(app);
        if (!valid.success)
          throw new InvalidInputError(issuesOf(valid.error).map((i) => ({ ...i, path: 'app' })));
        const output = createOutput(Boolean(options.json));
        const status = await withRedis((redis) => readLaneStatus(redis, laneId({ kind: 'app', name: app })));
        if (!status) throw new NotFoundError(`no app ${app} known to the fleet`);
        if (output.json) output.data(status);
        else for (const line of statusLines(status, stdoutStyle())) output.out(line);
        return EXIT.ok;
      }),
    );
}

/**
 * The projection as a key/value block: each job with its type, outcome and time (relative and ISO),
 * the release's deployed and failed revisions last. `--json` prints the record itself.
 */
export function statusLines(s: LaneStatus, style: Style, now: number = Date.now()): string[] {
  const rows: [string, string][] = [];
  const add = (key: string, value: string | number | undefined) => {
    if (value !== undefined && value !== '') rows.push([key, String(value)]);
  };
  const job = (id: string | undefined, type: string | undefined, seq?: number) =>
    id
      ? [type, id, seq !== undefined ? `(position ${seq})` : undefined].filter(Boolean).join(' ')
      : undefined;
  add('app', s.name);
  add('lane', s.lane);
  if (s.destroyed) add('destroyed', 'yes: its last change was a destroy (its job history stays readable)');
  add('renamed to', s.renamedTo);
  add('pending', `${s.pending} job${s.pending === 1 ? '' : 's'}`);
  add('running', s.activeJobId ? style.yellow(s.activeJobId) : undefined);
  if (s.lastJobId) {
    add('last job', job(s.lastJobId, s.lastType));
    add('  outcome', s.lastOutcome ? style.status(s.lastOutcome) : undefined);
    add('  error', s.lastError ? style.red(s.lastError) : undefined);
    add('  finished', s.lastFinishedAt ? formatTime(s.lastFinishedAt, now) : undefined);
  }
  if (s.lastSuccessJobId) {
    add('last success', job(s.lastSuccessJobId, s.lastSuccessType, s.lastSuccessSeq));
    add('  at', s.lastSuccessAt ? formatTime(s.lastSuccessAt, now) : undefined);
  }
  if (s.lastChangeJobId) {
    add('last change', job(s.lastChangeJobId, s.lastChangeType, s.lastChangeSeq));
    add('  at', s.lastChangeAt ? formatTime(s.lastChangeAt, now) : undefined);
  }
  add('revision', s.revision);
  add('image', s.image);
  if (s.deployedRevision) add('release', describeDeployed(s.deployedRevision, style));
  if (s.failedRevision)
    rows.push([
      s.deployedRevision ? '' : 'release',
      `revision ${s.failedRevision.revision} ${style.red('failed')}: ${s.failedRevision.reason}`,
    ]);
  add('updated', s.updatedAt ? formatTime(s.updatedAt, now) : undefined);
  return keyValues(rows.map(([k, v]) => [k.startsWith(' ') ? k : style.bold(k), v]));
}

/** `revision 5 deployed (nginx:1.27, rollback to 3)`. */
function describeDeployed(d: DeployedRevisionRecord, style: Style): string {
  const details = [
    ...(d.image ? [d.image] : []),
    ...(d.rollbackTo !== undefined ? [`rollback to ${d.rollbackTo}`] : []),
  ];
  return `revision ${d.revision} ${style.green('deployed')}${details.length ? ` (${details.join(', ')})` : ''}`;
}

import type { Command } from 'commander';
import { InvalidInputError, NotFoundError } from '../../../core/errors.ts';
import { laneId } from '../../../jobs/lane.ts';
import { type DeployedRevisionRecord, listLaneStatuses, readLaneStatus } from '../../../jobs/status.ts';
import { confirmByName } from '../confirm.ts';
import { EXIT } from '../exit-codes.ts';
import { ago, createOutput, table } from '../output.ts';
import { action, type CommonOptions, submit, withRedis } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

export function registerApps(program: Command): void {
  withSubmitOptions(
    program
      .command('apps:rename')
      .description('Rename an app (resumable: install under the new name, then remove the old releases)')
      .argument('<app>', 'current name')
      .argument('<new-name>', 'new name'),
  ).action(
    action(async (app: string, newName: string, options: CommonOptions) =>
      submit('rename', { app, newName }, options),
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
      .option('--with-storage', 'also destroy the storage entries the app mounts (kept by default)'),
  ).action(
    action(async (app: string, options: CommonOptions & { force?: boolean; withStorage?: boolean }) => {
      const { validateJob } = await import('../../../jobs/validate.ts');
      validateJob('destroy', { app, withStorage: Boolean(options.withStorage) });
      await confirmByName(`destroying ${app}`, app, options.force);
      return submit('destroy', { app, withStorage: Boolean(options.withStorage) }, options);
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
        output.out(
          table(
            ['APP', 'LAST JOB', 'OUTCOME', 'REVISION', 'IMAGE', 'PENDING', 'RUNNING', 'UPDATED'],
            apps.map((a) => [
              a.name ?? a.lane,
              a.lastJobId ? `${a.lastType} ${a.lastJobId}` : '-',
              a.lastOutcome ?? '-',
              a.revision !== undefined ? String(a.revision) : '-',
              a.image ?? '-',
              String(a.pending),
              a.activeJobId ?? '-',
              ago(a.updatedAt),
            ]),
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
        const { issuesOf } = await import('../../../jobs/validate.ts');
        const valid = appName.safeParse(app);
        if (!valid.success)
          throw new InvalidInputError(issuesOf(valid.error).map((i) => ({ ...i, path: 'app' })));
        const output = createOutput(Boolean(options.json));
        const status = await withRedis((redis) => readLaneStatus(redis, laneId({ kind: 'app', name: app })));
        if (!status) throw new NotFoundError(`no app ${app} known to the fleet`);
        if (output.json) output.data(status);
        else {
          const { deployedRevision, failedRevision, ...rest } = status;
          for (const [key, value] of Object.entries(rest)) {
            if (value !== '' && value !== undefined) output.out(`${key.padEnd(18)} ${value}`);
          }
          if (deployedRevision) output.out(`${'release'.padEnd(18)} ${describeDeployed(deployedRevision)}`);
          if (failedRevision)
            output.out(
              `${(deployedRevision ? '' : 'release').padEnd(18)} revision ${failedRevision.revision} failed: ${failedRevision.reason}`,
            );
        }
        return EXIT.ok;
      }),
    );
}

/** `revision 5 deployed (nginx:1.27, rollback to 3)`. */
function describeDeployed(d: DeployedRevisionRecord): string {
  const details = [
    ...(d.image ? [d.image] : []),
    ...(d.rollbackTo !== undefined ? [`rollback to ${d.rollbackTo}`] : []),
  ];
  return `revision ${d.revision} deployed${details.length ? ` (${details.join(', ')})` : ''}`;
}

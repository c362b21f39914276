import type { Command } from 'commander';
import { action, type CommonOptions, submit } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

export function registerPrune(program: Command): void {
  withSubmitOptions(
    program
      .command('prune')
      .description(
        'Remove leaked pull secrets, history over the limit, orphan chunks, finished run Jobs and releases of apps that are gone',
      )
      .argument('[app]', 'only this app (default: every app)')
      .option('--dry-run', 'list what would be removed, remove nothing'),
  ).action(
    action(async (app: string | undefined, options: CommonOptions & { dryRun?: boolean }) =>
      submit('prune', { ...(app ? { app } : {}), ...(options.dryRun ? { dryRun: true } : {}) }, options),
    ),
  );

  withSubmitOptions(
    program.command('sync').description('Enqueue a sync now: a reconcile for every app (normally scheduled)'),
  ).action(action(async (options: CommonOptions) => submit('sync', {}, options)));
}

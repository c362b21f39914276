import type { Command } from 'commander';
import { action, type CommonOptions, submit } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

export function registerPrune(program: Command): void {
  withSubmitOptions(
    program
      .command('prune')
      .description('Remove leaked pull secrets, history over the limit, orphan chunks and finished run Jobs')
      .argument('[app]', 'only this app (default: every app)'),
  ).action(
    action(async (app: string | undefined, options: CommonOptions) =>
      submit('prune', app ? { app } : {}, options),
    ),
  );

  withSubmitOptions(
    program.command('sync').description('Enqueue a sync now: a reconcile for every app (normally scheduled)'),
  ).action(action(async (options: CommonOptions) => submit('sync', {}, options)));
}

import type { Command } from 'commander';
import { sealConfigSet } from '../../../jobs/sealed-input.ts';
import { DRY_RUN_OPTION, type DryRunOptions, submitAppJob } from '../dry-run.ts';
import { action, parseAssignments, sealer } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

interface ConfigOptions extends DryRunOptions {
  restart: boolean;
}

export function registerConfig(program: Command): void {
  withSubmitOptions(
    program
      .command('config:set')
      .description('Set environment variables (values are sealed before they reach Redis)')
      .argument('<app>', 'app name')
      .argument('<assignments...>', 'KEY=VALUE pairs')
      .option('--no-restart', 'do not roll the pods (they see the values on their next restart)')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, assignments: string[], options: ConfigOptions) => {
      const plain = parseAssignments(assignments, 'set');
      return submitAppJob(
        'config',
        { app, set: sealConfigSet(sealer(), app, plain), unset: [], restart: options.restart },
        options,
      );
    }),
  );

  withSubmitOptions(
    program
      .command('config:unset')
      .description('Unset environment variables')
      .argument('<app>', 'app name')
      .argument('<keys...>', 'variable names')
      .option('--no-restart', 'do not roll the pods')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, keys: string[], options: ConfigOptions) =>
      submitAppJob('config', { app, set: {}, unset: keys, restart: options.restart }, options),
    ),
  );
}

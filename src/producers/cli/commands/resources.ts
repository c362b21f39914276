/** `resource:limit` and `resource:reserve`: containers' CPU and memory limits and requests (docs/apps.md). */
import type { Command } from 'commander';
import { DRY_RUN_OPTION, submitAppJob } from '../dry-run.ts';
import { action, type CommonOptions } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

interface ResourceOptions extends CommonOptions {
  process?: string;
  cpu?: string;
  memory?: string;
  clear?: boolean;
}

export function registerResources(program: Command): void {
  for (const [kind, what] of [
    ['limit', 'limits'],
    ['reserve', 'requests'],
  ] as const) {
    withSubmitOptions(
      program
        .command(`resource:${kind}`)
        .description(
          `Set (or --clear) the CPU and memory ${what} of every process type, or of --process TYPE`,
        )
        .argument('<app>', 'app name')
        .option('--process <type>', 'only this process type')
        .option('--cpu <quantity>', 'CPU, e.g. 250m or 1.5')
        .option('--memory <quantity>', 'memory, e.g. 512Mi')
        .option('--clear', `remove the ${what} (back to the defaults)`)
        .option(...DRY_RUN_OPTION),
    ).action(
      action(async (app: string, options: ResourceOptions) =>
        submitAppJob(
          'resources',
          {
            app,
            kind,
            ...(options.process ? { process: options.process } : {}),
            ...(options.cpu !== undefined ? { cpu: options.cpu } : {}),
            ...(options.memory !== undefined ? { memory: options.memory } : {}),
            clear: Boolean(options.clear),
          },
          options,
        ),
      ),
    );
  }
}

import type { Command } from 'commander';
import { sealRunEnv } from '../../../jobs/sealed-input.ts';
import { action, type CommonOptions, parseAssignments, sealer, submit } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

interface RunOptions extends CommonOptions {
  env: string[];
  ttl?: string;
  process?: string;
  tty?: boolean;
  detach?: boolean;
}

export function registerRun(program: Command): void {
  withSubmitOptions(
    program
      .command('run')
      .description('Run a one-off command in a Kubernetes Job: longshore run APP -- CMD ARGS…')
      .argument('<app>', 'app name')
      .argument('<command...>', 'command and arguments (after --)')
      .option(
        '-e, --env <KEY=VALUE>',
        'extra environment for this run (repeatable; sealed)',
        (v: string, acc: string[]) => [...acc, v],
        [],
      )
      .option('--ttl <seconds>', 'keep the finished Job this long (default 3600)')
      .option('--process <type>', 'process type whose image and config to use (default web)')
      .option('--tty', 'allocate a TTY')
      .option('--detach', 'enqueue and return instead of streaming the output'),
  ).action(
    action(async (app: string, command: string[], options: RunOptions) => {
      const env =
        options.env.length > 0 ? sealRunEnv(sealer(), app, parseAssignments(options.env, 'env')) : {};
      const payload: Record<string, unknown> = { app, command, env, tty: Boolean(options.tty) };
      if (options.ttl !== undefined)
        payload.ttlSeconds = /^\d+$/.test(options.ttl) ? Number(options.ttl) : options.ttl;
      if (options.process) payload.process = options.process;
      return submit('run', payload, { ...options, wait: !options.detach });
    }),
  );
}

import type { Command } from 'commander';

/** Options every enqueueing command takes. */
export function withSubmitOptions(command: Command): Command {
  return command
    .option('--wait', 'stream progress and log lines until the job ends; exit 0 on success, 1 on failure')
    .option('--timeout <seconds>', 'with --wait: stop waiting after this many seconds (the job goes on)')
    .option('--json', 'print the job (and with --wait its outcome) as JSON on stdout');
}

/** Commander's argument parser for a repeatable option: each use appends to the list. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/**
 * `logs APP [--process TYPE] [--tail N] [-f]`: enqueues a `logs` job and prints the lines its
 * worker relays through Redis (src/producers/ops/log-reader.ts), as `web.1 | line`. The CLI holds
 * no cluster credentials. It keeps the job's reader heartbeat fresh (followLogStream), and Ctrl-C cancels
 * the job so its worker stops following; the command then exits 0 (stopping a follow is its
 * normal end). docs/apps.md, "logs".
 */
import type { Command } from 'commander';
import { formatLogLine } from '../../../jobs/log-stream.ts';
import { validateJobLazily } from '../../../jobs/validate-lazily.ts';
import { followLogStream } from '../../ops/log-reader.ts';
import { EXIT } from '../exit-codes.ts';
import { createOutput } from '../output.ts';
import { action, enqueuedBy, withClient } from '../runtime.ts';

interface LogsOptions {
  process?: string;
  tail?: string;
  follow?: boolean;
}

export function registerLogs(program: Command): void {
  program
    .command('logs')
    .description("Print an app's pod logs, each line prefixed with its process and pod (web.1 | …)")
    .argument('<app>', 'app name')
    .option('--process <type>', 'only the pods of this process type')
    .option('--tail <n>', 'lines of each pod to print first (default 100)')
    .option('-f, --follow', 'keep printing new lines until Ctrl-C')
    .action(
      action(async (app: string, options: LogsOptions) => {
        const output = createOutput(false);
        const payload: Record<string, unknown> = { app, follow: Boolean(options.follow) };
        if (options.process !== undefined) payload.process = options.process;
        if (options.tail !== undefined)
          payload.tail = /^\d+$/.test(options.tail) ? Number(options.tail) : options.tail;
        await validateJobLazily('logs', payload);
        return withClient(async (client, redis) => {
          let stopping = false;
          const onSigint = () => {
            stopping = true;
          };
          process.on('SIGINT', onSigint);
          try {
            const job = await client.enqueue('logs', payload, enqueuedBy());
            let printed = 0;
            // Also without -f: a Ctrl-C cancels the job, as it always did (the heartbeat is one SET).
            const end = await followLogStream(client, redis, job.id, {
              onLine: (prefix, line) => {
                printed += 1;
                output.out(formatLogLine(prefix, line));
              },
              stopped: () => stopping,
            });
            if (end.kind === 'failed') {
              output.error(`error: ${end.reason}`);
              return EXIT.failed;
            }
            // followLogStream cancelled the job: a follow stops at once.
            if (end.kind === 'stopped') return EXIT.ok;
            // Lines speak for themselves; no line at all (an app without running pods), or a follow
            // that ended by itself, says why.
            if (options.follow || printed === 0) output.info(end.reason);
            return EXIT.ok;
          } finally {
            process.off('SIGINT', onSigint);
          }
        });
      }),
    );
}

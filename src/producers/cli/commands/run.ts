/**
 * `run APP [--process T] [-e K=V]… [--timeout S] [--ttl S] [--detach] -- CMD ARGS…`: enqueues a
 * `run` job and prints the run's output raw as its worker relays it through Redis (the stream
 * `logs` uses, src/producers/ops/log-reader.ts), then exits with the container's exit code; 1 with
 * the reason on stderr when the run could not start or was stopped by its deadline. `--detach`
 * prints the Job's name and returns at once. Ctrl-C stops following (exit 130): the run goes on
 * in the cluster. docs/apps.md, "run".
 */
import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { settledProcessTypes, unknownScaleTypes } from '../../../jobs/app-processes.ts';
import { type RunPayload, runJobNameFor } from '../../../jobs/schemas/run.ts';
import { sealRunEnv } from '../../../jobs/sealed-input.ts';
import { validateJobLazily } from '../../../jobs/validate-lazily.ts';
import { waitForJob } from '../../ops/jobs-ops.ts';
import { followLogStream } from '../../ops/log-reader.ts';
import { EXIT } from '../exit-codes.ts';
import { createOutput } from '../output.ts';
import { action, enqueuedBy, parseAssignments, sealer, withClient } from '../runtime.ts';
import { runTtyClient } from './run-tty.ts';

interface RunOptions {
  env: string[];
  ttl?: string;
  timeout?: string;
  process?: string;
  tty?: boolean;
  interactive?: boolean;
  detach?: boolean;
}

/** How long the CLI waits for the job's result once its stream ended (the job ends right after). */
const RESULT_WAIT_MS = 30_000;

const seconds = (value: string | undefined) =>
  value === undefined ? undefined : /^\d+$/.test(value) ? Number(value) : value;

export function registerRun(program: Command): void {
  program
    .command('run')
    .description(
      "Run a one-off command in a Kubernetes Job from the app's image and config, print its output and exit with its status: longshore run APP -- CMD ARGS…",
    )
    .argument('<app>', 'app name')
    .argument('[command...]', 'command and arguments (after --)')
    .option(
      '-e, --env <KEY=VALUE>',
      'extra environment for this run (repeatable; sealed)',
      (v: string, acc: string[]) => [...acc, v],
      [],
    )
    .option('--process <type>', 'process type whose image, mounts and resources to use (default web)')
    .option(
      '--timeout <seconds>',
      "stop the run after this long (the Job's activeDeadlineSeconds; default 86400)",
    )
    .option('--ttl <seconds>', 'keep the finished Job this long (default 3600)')
    .option('--detach', 'start the run, print its Job name and return without waiting')
    .option('-i, --interactive', 'keep stdin open to the container (with -t: `-it`)')
    .option(
      '-t, --tty',
      'allocate a TTY and attach this terminal to it (with -i: `-it`); stdin not a TTY: runs without one',
    )
    .action(
      action(async (app: string, command: string[], options: RunOptions) => {
        const output = createOutput(false);
        if (options.interactive && !options.tty)
          throw new InvalidInputError(
            [
              {
                path: 'interactive',
                message: '-i without -t is not supported: use -it for an interactive session',
              },
            ],
            'run',
          );
        let tty = Boolean(options.tty);
        if (tty && options.detach)
          throw new InvalidInputError(
            [{ path: 'tty', message: '-it and --detach do not go together: a detached run has no terminal' }],
            'run',
          );
        if (tty && !process.stdin.isTTY) {
          // As `docker run -it` says; the command then runs as without -it.
          output.error('the input device is not a TTY: running without one');
          tty = false;
        }
        const env =
          options.env.length > 0 ? sealRunEnv(await sealer(), app, parseAssignments(options.env, 'env')) : {};
        const raw: Record<string, unknown> = {
          app,
          command,
          env,
          tty,
          detach: Boolean(options.detach),
        };
        if (options.ttl !== undefined) raw.ttlSeconds = seconds(options.ttl);
        if (options.timeout !== undefined) raw.timeoutSeconds = seconds(options.timeout);
        if (options.process !== undefined) raw.process = options.process;
        // Refused before connecting: exit 2, nothing enqueued.
        const payload = (await validateJobLazily('run', raw)).payload as RunPayload;
        return withClient(async (client, redis) => {
          // Refused here when the app's types are known and nothing is queued ahead; else the worker refuses.
          const known = await settledProcessTypes(redis, app);
          const issues = known ? unknownScaleTypes(app, [payload.process], known) : [];
          if (issues.length > 0)
            throw new InvalidInputError(
              issues.map((i) => ({ ...i, path: 'process' })),
              'run',
            );

          let stopping = false;
          const onSigint = () => {
            stopping = true;
          };
          process.on('SIGINT', onSigint);
          try {
            const job = await client.enqueue('run', raw, enqueuedBy());
            const jobName = runJobNameFor(app, job.id);
            if (payload.detach) {
              // stdout holds only the name, for scripts: JOB=$(longshore run --detach …).
              output.out(jobName);
              output.error(
                `enqueued run job ${job.id}; a worker starts Job ${jobName} and does not follow it`,
              );
              return EXIT.ok;
            }
            if (tty) {
              const outcome = await runTtyClient(client, redis, job.id);
              if (outcome.message) output.error(outcome.message);
              return outcome.exitCode;
            }
            const end = await followLogStream(client, redis, job.id, {
              onLine: (_prefix, line) => output.out(line),
              stopped: () => stopping,
            });
            if (end.kind === 'failed') {
              output.error(`error: ${end.reason}`);
              return EXIT.failed;
            }
            if (end.kind === 'stopped') {
              // followLogStream cancelled the job: the worker stops relaying at once.
              output.error(
                `stopped following; the run goes on in the cluster as Job ${jobName} (job ${job.id})`,
              );
              return EXIT.interrupted;
            }
            const final = await waitForJob(client, job.id, {}, { timeoutMs: RESULT_WAIT_MS });
            if (final.state === 'completed') {
              const result = final.result as { exitCode?: unknown; summary?: string } | undefined;
              if (typeof result?.exitCode === 'number') return result.exitCode;
              output.error(result?.summary ?? end.reason);
              return EXIT.failed;
            }
            output.error(`error: ${final.failedReason ?? end.reason}`);
            return EXIT.failed;
          } finally {
            process.off('SIGINT', onSigint);
          }
        });
      }),
    );
}

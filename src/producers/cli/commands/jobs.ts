import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { MAX_PAYLOAD_BYTES } from '../../../jobs/validate.ts';
import {
  cancelJob,
  LISTABLE_STATES,
  type ListableState,
  listJobs,
  retryAll,
  retryJob,
  showJob,
} from '../../ops/jobs-ops.ts';
import { readInputFile } from '../../sources/read-file.ts';
import { EXIT } from '../exit-codes.ts';
import { ago, createOutput, table } from '../output.ts';
import { action, type CommonOptions, submit, withClient } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

function states(value: string | undefined): ListableState[] | undefined {
  if (!value) return undefined;
  const list = value.split(',').map((s) => s.trim()) as ListableState[];
  const bad = list.filter((s) => !LISTABLE_STATES.includes(s));
  if (bad.length > 0) {
    throw new InvalidInputError([
      { path: '--state', message: `unknown state ${bad.join(', ')} (known: ${LISTABLE_STATES.join(', ')})` },
    ]);
  }
  return list;
}

function limit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidInputError([{ path: '--limit', message: 'must be a whole number, at least 1' }]);
  return Number(value);
}

export function registerJobs(program: Command): void {
  program
    .command('jobs:list')
    .description('Jobs, newest first')
    .option('--state <states>', `comma-separated: ${LISTABLE_STATES.join(', ')}`)
    .option('--app <app>', 'only jobs of this app')
    .option('--limit <n>', 'at most this many (default 50)')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { state?: string; app?: string; limit?: string; json?: boolean }) => {
        const output = createOutput(Boolean(options.json));
        const selected = states(options.state);
        const max = limit(options.limit);
        const jobs = await withClient((client) =>
          listJobs(client, {
            ...(selected ? { states: selected } : {}),
            ...(options.app ? { app: options.app } : {}),
            ...(max ? { limit: max } : {}),
          }),
        );
        if (output.json) output.data(jobs);
        else if (jobs.length === 0) output.out('no jobs');
        else {
          output.out(
            table(
              ['ID', 'STATE', 'ATTEMPTS', 'ENQUEUED', 'DESCRIPTION'],
              jobs.map((j) => [
                j.id,
                j.state,
                String(j.attemptsMade),
                ago(j.enqueuedAt),
                j.failedReason ? `${j.description} — ${j.failedReason}` : j.description,
              ]),
            ),
          );
        }
        return EXIT.ok;
      }),
    );

  program
    .command('jobs:show')
    .description('One job: payload (secrets redacted), state, attempts, error and log lines')
    .argument('<id>', 'job id')
    .option('--json', 'print JSON')
    .action(
      action(async (id: string, options: { json?: boolean }) => {
        const output = createOutput(Boolean(options.json));
        const details = await withClient((client, redis) => showJob(client, redis, id));
        if (output.json) {
          output.data(details);
          return EXIT.ok;
        }
        output.out(`${details.id}  ${details.type}  ${details.state}`);
        output.out(`description   ${details.description}`);
        if (details.lane) output.out(`lane          ${details.lane} (position ${details.seq ?? '-'})`);
        if (details.lanePosition)
          output.out(
            `waiting for   ${details.lanePosition.ahead} job(s) ahead; head ${details.lanePosition.head}`,
          );
        output.out(
          `enqueued      ${new Date(details.enqueuedAt).toISOString()} by ${details.enqueuedBy ?? '-'}`,
        );
        output.out(`attempts      ${details.attemptsMade} made of ${details.maxAttempts} allowed`);
        if (details.failedReason) output.out(`error         ${details.failedReason}`);
        output.out(`payload       ${JSON.stringify(details.payload)}`);
        if (details.returnValue !== null && details.returnValue !== undefined)
          output.out(`result        ${JSON.stringify(details.returnValue)}`);
        for (const attempt of details.attempts) {
          output.out(
            `attempt ${attempt.attemptNumber}     ${attempt.worker} ${new Date(attempt.startedAt).toISOString()} ${attempt.outcome ?? (attempt.endedAt ? '' : 'interrupted or running')}${attempt.error ? ` — ${attempt.error}` : ''}`,
          );
        }
        if (details.logs.length > 0) output.out(`logs:\n${details.logs.map((l) => `  ${l}`).join('\n')}`);
        return EXIT.ok;
      }),
    );

  program
    .command('jobs:retry')
    .description('Retry a failed job, or every failed job (of an app) with --all')
    .argument('[id]', 'job id')
    .option('--all', 'every failed job')
    .option('--app <app>', 'with --all: only this app')
    .option(
      '--force',
      'retry even when newer work of the app is queued, running or already succeeded (the retried job runs last: its older change wins)',
    )
    .option('--json', 'print JSON')
    .action(
      action(
        async (
          id: string | undefined,
          options: { all?: boolean; app?: string; force?: boolean; json?: boolean },
        ) => {
          const output = createOutput(Boolean(options.json));
          if (!id && !options.all)
            throw new InvalidInputError([{ path: 'id', message: 'give a job id, or --all' }]);
          if (id && options.all)
            throw new InvalidInputError([{ path: 'id', message: 'give a job id or --all, not both' }]);
          const outcomes = await withClient((client, redis) =>
            id
              ? retryJob(client, redis, id, Boolean(options.force)).then((o) => [o])
              : retryAll(client, redis, {
                  ...(options.app ? { app: options.app } : {}),
                  force: Boolean(options.force),
                }),
          );
          if (output.json) output.data(outcomes);
          for (const o of outcomes) {
            if (o.retried) output.info(`${o.id} retried${o.reason ? ` (${o.reason})` : ''}`);
            else output.error(`${o.id} not retried: ${o.reason}`);
          }
          if (outcomes.length === 0) output.info('no failed jobs');
          // Refusing a retry that would undo newer work is a usage problem the operator resolves with --force.
          return outcomes.some((o) => !o.retried) ? EXIT.invalid : EXIT.ok;
        },
      ),
    );

  program
    .command('jobs:cancel')
    .description('Cancel a queued job (removed) or a running one (its handler is aborted)')
    .argument('<id>', 'job id')
    .option('--json', 'print JSON')
    .action(
      action(async (id: string, options: { json?: boolean }) => {
        const output = createOutput(Boolean(options.json));
        const outcome = await withClient((client, redis) => cancelJob(client, redis, id));
        if (output.json) output.data(outcome);
        else if (outcome.action === 'removed') output.out(`${id} removed (it was ${outcome.previousState})`);
        else
          output.out(
            `${id} is running: cancel requested; its handler is aborted and the job fails as cancelled`,
          );
        return EXIT.ok;
      }),
    );

  withSubmitOptions(
    program
      .command('jobs:enqueue')
      .description('Enqueue a job from a JSON payload (validated like every other command)')
      .argument('<type>', 'job type')
      .requiredOption('--payload <json>', 'payload as JSON, or @file to read it from a file'),
  ).action(
    action(async (type: string, options: CommonOptions & { payload: string }) => {
      let text = options.payload;
      if (text.startsWith('@')) {
        // Bounded (and regular files only, so `@/dev/zero` cannot hang), but above the payload
        // limit, so a payload slightly too big is refused by validation with its exact size.
        text = readInputFile({ option: '--payload', path: text.slice(1), maxBytes: 4 * MAX_PAYLOAD_BYTES });
      }
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch (err) {
        throw new InvalidInputError([
          { path: '--payload', message: `is not valid JSON: ${(err as Error).message}` },
        ]);
      }
      return submit(type, payload, options);
    }),
  );
}

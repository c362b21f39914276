import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { MAX_PAYLOAD_BYTES } from '../../../jobs/payload-checks.ts';
import {
  cancelJob,
  type JobDetails,
  LISTABLE_STATES,
  type ListableState,
  listJobs,
  retryAll,
  retryJob,
  showJob,
} from '../../ops/jobs-ops.ts';
import { readInputFile } from '../../sources/read-file.ts';
import { EXIT } from '../exit-codes.ts';
import { createOutput, formatTime, keyValues, table } from '../output.ts';
import { action, type CommonOptions, submit, withClient } from '../runtime.ts';
import { type Style, stdoutStyle } from '../style.ts';
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
          const style = stdoutStyle();
          const now = Date.now();
          output.out(
            table(
              ['ID', 'STATE', 'ATTEMPTS', 'ENQUEUED', 'DESCRIPTION'],
              jobs.map((j) => [
                j.id,
                style.status(j.state),
                String(j.attemptsMade),
                formatTime(j.enqueuedAt, now),
                j.failedReason ? `${j.description} — ${style.red(j.failedReason)}` : j.description,
              ]),
              style.bold,
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
        for (const line of jobLines(details, stdoutStyle())) output.out(line);
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

/** `jobs:show` for people: a header line, then the job's fields aligned, times relative and ISO. */
export function jobLines(d: JobDetails, style: Style, now: number = Date.now()): string[] {
  const rows: [string, string][] = [['description', d.description]];
  if (d.lane) rows.push(['lane', `${d.lane} (position ${d.seq ?? '-'})`]);
  if (d.lanePosition)
    rows.push(['waiting for', `${d.lanePosition.ahead} job(s) ahead; head ${d.lanePosition.head}`]);
  rows.push(['enqueued', `${formatTime(d.enqueuedAt, now)} by ${d.enqueuedBy ?? '-'}`]);
  if (d.finishedAt) rows.push(['finished', formatTime(d.finishedAt, now)]);
  rows.push(['attempts', `${d.attemptsMade} made of ${d.maxAttempts} allowed`]);
  if (d.failedReason) rows.push(['error', style.red(d.failedReason)]);
  rows.push(['payload', JSON.stringify(d.payload)]);
  if (d.returnValue !== null && d.returnValue !== undefined)
    rows.push(['result', JSON.stringify(d.returnValue)]);
  for (const a of d.attempts) {
    const outcome = a.outcome
      ? style.status(a.outcome)
      : a.endedAt
        ? ''
        : style.yellow('interrupted or running');
    rows.push([
      `attempt ${a.attemptNumber}`,
      [a.worker, formatTime(a.startedAt, now), outcome].filter(Boolean).join('  ') +
        (a.error ? ` — ${a.error}` : ''),
    ]);
  }
  const lines = [
    `${style.bold(d.id)}  ${d.type}  ${style.status(d.state)}`,
    ...keyValues(rows.map(([k, v]) => [style.bold(k), v])),
  ];
  if (d.logs.length > 0) lines.push(`${style.bold('logs:')}\n${d.logs.map((l) => `  ${l}`).join('\n')}`);
  return lines;
}

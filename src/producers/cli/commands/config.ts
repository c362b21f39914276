/**
 * `config:set` (from KEY=VALUE words, dotenv files and stdin), `config:unset`, and the reads
 * `config:show` and `config:get` (docs/apps.md, "Config"). Values are sealed before they reach
 * Redis; the reads go through a `config-read` job whose answer is sealed for this process alone.
 */
import type { Command } from 'commander';
import { InvalidInputError, NotFoundError } from '../../../core/errors.ts';
import { ReaderKey } from '../../../jobs/reader-sealing.ts';
import { type ConfigReadAnswer, configReadContext } from '../../../jobs/schemas/config-read.ts';
import { sealConfigSet } from '../../../jobs/sealed-input.ts';
import { formatDotenv, parseDotenv } from '../../sources/dotenv.ts';
import { DOTENV_MAX_BYTES, readEnvFiles } from '../../sources/env-files.ts';
import { readStdinInput } from '../../sources/read-stdin.ts';
import { alignedLines, maskedObject } from '../config-view.ts';
import { DRY_RUN_OPTION, type DryRunOptions, submitAppJob } from '../dry-run.ts';
import { refuseUnknownApp } from '../known-app.ts';
import { action, type CommonOptions, parseAssignments, type ResultView, sealer, submit } from '../runtime.ts';
import { collect, withSubmitOptions } from './common.ts';

interface ConfigOptions extends DryRunOptions {
  restart: boolean;
  envFile?: string[];
}

interface ShowOptions extends CommonOptions {
  reveal?: boolean;
  dotenv?: boolean;
}

const STDIN = '-';

/**
 * The variables to set, lowest precedence first: each `--env-file` in the order given, then stdin
 * (`-`), then KEY=VALUE words — a word on the command line wins over a file.
 */
async function assignmentsOf(
  app: string,
  words: string[],
  options: ConfigOptions,
): Promise<Record<string, string>> {
  const fromStdin = words.includes(STDIN);
  const plain = readEnvFiles(options.envFile ?? []);
  if (fromStdin) {
    const text = await readStdinInput({
      option: STDIN,
      maxBytes: DOTENV_MAX_BYTES,
      pipeHint: `pipe dotenv text into it (config:set ${app} - < .env) or name a file with --env-file .env`,
    });
    Object.assign(plain, parseDotenv(text, 'stdin'));
  }
  Object.assign(
    plain,
    parseAssignments(
      words.filter((w) => w !== STDIN),
      'set',
    ),
  );
  if (Object.keys(plain).length === 0) {
    const from = [...(options.envFile ?? []), ...(fromStdin ? ['stdin'] : [])];
    throw new InvalidInputError([
      {
        path: 'set',
        message:
          from.length > 0
            ? `${from.join(', ')} hold no variables (KEY=VALUE lines)`
            : 'give KEY=VALUE pairs, --env-file FILE, or - to read dotenv text from stdin',
      },
    ]);
  }
  return plain;
}

export function registerConfig(program: Command): void {
  withSubmitOptions(
    program
      .command('config:set')
      .description(
        'Set environment variables from KEY=VALUE pairs, --env-file FILE or - (dotenv on stdin); values are sealed before they reach Redis',
      )
      .argument('<app>', 'app name')
      .argument('[assignments...]', 'KEY=VALUE pairs, and - to read dotenv text from stdin')
      .option(
        '--env-file <file>',
        'read variables from a dotenv file (repeatable; later files, then stdin, then KEY=VALUE pairs win)',
        collect,
      )
      .option('--no-restart', 'do not roll the pods (they see the values on their next restart)')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, assignments: string[], options: ConfigOptions) => {
      const plain = await assignmentsOf(app, assignments, options);
      return submitAppJob(
        'config',
        { app, set: sealConfigSet(await sealer(), app, plain), unset: [], restart: options.restart },
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

  program
    .command('config:show')
    .description("An app's config: KEY and masked value, aligned (--reveal shows the values)")
    .argument('<app>', 'app name')
    .option('--reveal', 'show the values in full')
    .option('--dotenv', 'with --reveal: KEY="value" lines that `config:set APP -` reads back byte for byte')
    .option('--timeout <seconds>', 'stop waiting after this many seconds')
    .option('--json', 'print an object of KEY: value (masked unless --reveal)')
    .action(
      action(async (app: string, options: ShowOptions) => {
        if (options.dotenv && !options.reveal)
          throw new InvalidInputError([
            { path: '--dotenv', message: 'prints values to set again, so it needs --reveal' },
          ]);
        const key = new ReaderKey();
        return submit(
          'config-read',
          { app, readerKey: key.publicKey },
          { ...options, wait: true },
          (redis) => refuseUnknownApp(redis, app),
          showView(app, key, options),
        );
      }),
    );

  program
    .command('config:get')
    .description("One variable's value, exactly as stored (no newline added unless stdout is a terminal)")
    .argument('<app>', 'app name')
    .argument('<key>', 'variable name')
    .option('--timeout <seconds>', 'stop waiting after this many seconds')
    .option('--json', 'print {"KEY": "value"}')
    .action(
      action(async (app: string, name: string, options: CommonOptions) => {
        const key = new ReaderKey();
        return submit(
          'config-read',
          { app, readerKey: key.publicKey, keys: [name] },
          { ...options, wait: true },
          (redis) => refuseUnknownApp(redis, app),
          getView(app, name, key, Boolean(options.json)),
        );
      }),
    );
}

/** Opens the job's answer with this process's key; the values exist in clear only from here on. */
function opened(app: string, key: ReaderKey, result: unknown): ConfigReadAnswer {
  const sealed = (result as { sealed?: unknown } | undefined)?.sealed;
  return JSON.parse(key.open(sealed, configReadContext(app))) as ConfigReadAnswer;
}

function warnLost(app: string, answer: ConfigReadAnswer): void {
  for (const { key, reason } of answer.lost)
    process.stderr.write(
      `warning: ${key} is not shown: its value was ${reason === 'changed' ? 'changed' : 'removed'} by hand in Secret config-${app} (config:set ${app} ${key}=… sets it again)\n`,
    );
}

function showView(app: string, key: ReaderKey, options: ShowOptions): ResultView {
  return {
    ownsStdout: true,
    async enrich(result) {
      return opened(app, key, result);
    },
    print(result, output) {
      const answer = result as ConfigReadAnswer;
      warnLost(app, answer);
      const { config } = answer;
      if (options.json) output.data(options.reveal ? config : maskedObject(config));
      else if (options.dotenv) process.stdout.write(formatDotenv(config));
      else if (Object.keys(config).length === 0) output.out(`app ${app} has no config variables`);
      else for (const line of alignedLines(config, Boolean(options.reveal))) output.out(line);
    },
  };
}

function getView(app: string, name: string, key: ReaderKey, json: boolean): ResultView {
  return {
    ownsStdout: true,
    async enrich(result) {
      const answer = opened(app, key, result);
      const lost = answer.lost.find((l) => l.key === name);
      if (lost)
        throw new NotFoundError(
          `${name} of app ${app} was ${lost.reason === 'changed' ? 'changed' : 'removed'} by hand in Secret config-${app}; config:set ${app} ${name}=… sets it again`,
        );
      if (!(name in answer.config))
        throw new NotFoundError(`app ${app} has no config variable ${name} (config:show ${app} lists them)`);
      return answer;
    },
    print(result, output) {
      const value = (result as ConfigReadAnswer).config[name] as string;
      if (json) output.data({ [name]: value });
      // Byte for byte; a terminal gets a line break so the prompt does not run on after the value.
      else process.stdout.write(process.stdout.isTTY && !value.endsWith('\n') ? `${value}\n` : value);
    },
  };
}

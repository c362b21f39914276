/**
 * The `longshore` command: producer commands (enqueue, ops), the worker process and the dev stack.
 * This file only composes; each command lives with its layer.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerApps } from './producers/cli/commands/apps.ts';
import { registerConfig } from './producers/cli/commands/config.ts';
import { registerDeploy } from './producers/cli/commands/deploy.ts';
import { registerDomains } from './producers/cli/commands/domains.ts';
import { registerJobs } from './producers/cli/commands/jobs.ts';
import { registerLogs } from './producers/cli/commands/logs.ts';
import { registerProperties } from './producers/cli/commands/properties.ts';
import { registerPrune } from './producers/cli/commands/prune.ts';
import { registerPs } from './producers/cli/commands/ps.ts';
import { registerRegistry } from './producers/cli/commands/registry.ts';
import { registerReleases } from './producers/cli/commands/releases.ts';
import { registerReport } from './producers/cli/commands/report.ts';
import { registerResources } from './producers/cli/commands/resources.ts';
import { registerRun } from './producers/cli/commands/run.ts';
import { registerStorage } from './producers/cli/commands/storage.ts';
import { EXIT } from './producers/cli/exit-codes.ts';
import { action, exitCodeFor } from './producers/cli/runtime.ts';

/** The package version, from src/ (checkout), dist/src/ (tsc) or dist/cli/<build>/ (the bundle). */
function version(): string {
  for (const path of ['../package.json', '../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as {
        name?: string;
        version: string;
      };
      if (pkg.name === 'longshore') return pkg.version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
}

/**
 * For commands that run until a signal (worker, scheduler, sim, dev): a failure while starting
 * prints its one line and ends the process at once, with whatever it had already started (Redis
 * connections, a listening server, a private redis-server) — instead of setting an exit code that
 * a process kept alive by those never reaches.
 */
function longRunning<A extends unknown[]>(
  fn: (...args: A) => Promise<number | undefined>,
): (...args: A) => Promise<void> {
  return action(async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(exitCodeFor(err));
    }
  });
}

export function buildProgram(): Command {
  const program = new Command('longshore')
    .description(
      'A queue-driven deploy fleet for Kubernetes. Configuration comes from the environment (see README).',
    )
    .version(version())
    .showHelpAfterError()
    .enablePositionalOptions();

  registerDeploy(program);
  registerConfig(program);
  registerPs(program);
  registerDomains(program);
  registerProperties(program);
  registerApps(program);
  registerPrune(program);
  registerStorage(program);
  registerRun(program);
  registerReleases(program);
  registerResources(program);
  registerReport(program);
  registerLogs(program);
  registerRegistry(program);
  registerJobs(program);

  program
    .command('worker')
    .description('Run a worker process of the fleet until SIGTERM/SIGINT')
    .option('--concurrency <n>', 'jobs run at once by this process (default LONGSHORE_CONCURRENCY, 8)')
    .action(
      longRunning(async (options: { concurrency?: string }) => {
        const concurrency = options.concurrency === undefined ? undefined : Number(options.concurrency);
        if (
          concurrency !== undefined &&
          (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
        ) {
          process.stderr.write('error: --concurrency must be a whole number from 1 to 64\n');
          return EXIT.invalid;
        }
        // Long-running commands are imported when run: every producer command would otherwise pay
        // for loading the worker, the release engine and kube-sim (seconds per CLI call).
        const { runWorkerProcess } = await import('./workers/main.ts');
        await runWorkerProcess(concurrency ? { concurrency } : {});
        // The process now lives until a signal; the worker's own handlers exit it.
        await new Promise(() => undefined);
        return EXIT.ok;
      }),
    );

  program
    .command('scheduler')
    .description(
      'Run the schedulers until SIGTERM/SIGINT: a sync job every LONGSHORE_SYNC_INTERVAL_MS (default 5 min) ' +
        'and a prune every LONGSHORE_PRUNE_INTERVAL_MS (default 24 h), one per interval however many schedulers run',
    )
    .action(
      longRunning(async () => {
        const { runSchedulerProcess } = await import('./producers/scheduler/main.ts');
        await runSchedulerProcess();
        await new Promise(() => undefined);
        return EXIT.ok;
      }),
    );

  program
    .command('sim')
    .description('Run the Kubernetes API simulator (kube-sim) until SIGTERM/SIGINT; prints its URL')
    .option('--port <port>', 'port to listen on (default: a free one)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--kubeconfig <file>', 'write a kubeconfig for kubectl, helm and client-node here')
    .option(
      '--unpullable-image <pattern>',
      'an image whose pull fails (ErrImagePull); exact, or a prefix ending in *; repeatable',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--failing-job-image <pattern>',
      'an image whose Job containers exit 1 when kube-sim cannot run their command; repeatable',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--restart-back-off-ms <ms>',
      "the first crash-loop back-off between container restarts (the kubelet's 10000)",
    )
    .action(
      longRunning(
        async (options: {
          port?: string;
          host: string;
          kubeconfig?: string;
          unpullableImage: string[];
          failingJobImage: string[];
          restartBackOffMs?: string;
        }) => {
          const port = options.port === undefined ? undefined : Number(options.port);
          if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
            process.stderr.write('error: --port must be a whole number from 0 to 65535\n');
            return EXIT.invalid;
          }
          const backOff =
            options.restartBackOffMs === undefined ? undefined : Number(options.restartBackOffMs);
          if (backOff !== undefined && (!Number.isInteger(backOff) || backOff < 0)) {
            process.stderr.write(
              'error: --restart-back-off-ms must be a whole number of milliseconds (0 or more)\n',
            );
            return EXIT.invalid;
          }
          for (const [flag, values] of [
            ['--unpullable-image', options.unpullableImage],
            ['--failing-job-image', options.failingJobImage],
          ] as const)
            if (values.some((v) => v === '')) {
              process.stderr.write(
                `error: ${flag} needs an image or a prefix ending in *, e.g. ${flag} 'registry.example/broken*'\n`,
              );
              return EXIT.invalid;
            }
          const { runSim } = await import('../infra/kube-sim/main.ts');
          const { SettingsError } = await import('../infra/kube-sim/controllers/settings.ts');
          try {
            await runSim({
              host: options.host,
              ...(port !== undefined ? { port } : {}),
              ...(options.kubeconfig ? { kubeconfig: options.kubeconfig } : {}),
              settings: {
                ...(options.unpullableImage.length > 0 ? { unpullableImages: options.unpullableImage } : {}),
                ...(options.failingJobImage.length > 0 ? { failingJobImages: options.failingJobImage } : {}),
                ...(backOff !== undefined ? { restartBackOffMs: backOff } : {}),
              },
            });
          } catch (err) {
            if (!(err instanceof SettingsError)) throw err;
            process.stderr.write(`error: ${err.message}\n`);
            return EXIT.invalid;
          }
          await new Promise(() => undefined);
          return EXIT.ok;
        },
      ),
    );

  program
    .command('dev')
    .description(
      'Run the fleet locally on embedded defaults (private Redis, simulated cluster, a worker and the sync scheduler; state under .longshore/); what `npm start` runs',
    )
    .option('--state-dir <dir>', 'where local state is kept', '.longshore')
    .action(
      longRunning(async (options: { stateDir: string }) => {
        // Loaded on use: the dev stack pulls in kube-sim, which every other command can do without.
        const { runDev } = await import('./dev/dev.ts');
        await runDev({ stateDir: options.stateDir });
        await new Promise(() => undefined);
        return EXIT.ok;
      }),
    );

  // Commander's own usage errors (unknown option, missing argument) are invalid input: exit 2.
  program.exitOverride();
  for (const command of program.commands) command.exitOverride();
  return program;
}

export async function main(argv = process.argv): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      const helpOrVersion = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(
        err.code,
      );
      process.exitCode = helpOrVersion ? EXIT.ok : EXIT.invalid;
      return;
    }
    throw err;
  }
}

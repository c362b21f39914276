/**
 * The `longshore` command: producer commands (enqueue, ops), the worker process and the dev stack.
 * This file only composes; each command lives with its layer.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { SettingFlagError, settingFlags, settingsFromFlags } from '../infra/kube-sim/settings-flags.ts';
import { EXIT } from './producers/cli/exit-codes.ts';
import { action, exitCodeFor, prefetchSubmitModules } from './producers/cli/runtime.ts';
import { sealingJobType } from './producers/cli/seals-values.ts';

type Register = (program: Command) => void;

/**
 * Each producer command's module, loaded only when that command runs: `apps:list` then loads
 * neither bullmq nor the job contracts that `deploy` needs (docs/cli-startup.md). In the order
 * `--help` lists them. A command word not found here (help, a typo) loads them all, so this table
 * only ever costs speed, never a command; test/unit/cli-commands.test.ts keeps it complete.
 */
export const COMMAND_MODULES: { commands: string[]; load: () => Promise<Register> }[] = [
  {
    commands: ['deploy'],
    load: async () => (await import('./producers/cli/commands/deploy.ts')).registerDeploy,
  },
  {
    commands: ['config:set', 'config:unset', 'config:show', 'config:get'],
    load: async () => (await import('./producers/cli/commands/config.ts')).registerConfig,
  },
  {
    commands: ['ps:scale', 'ps:restart', 'ps:stop', 'ps:start', 'ps:set'],
    load: async () => (await import('./producers/cli/commands/ps.ts')).registerPs,
  },
  {
    commands: ['domains:', 'ports:'],
    load: async () => (await import('./producers/cli/commands/domains.ts')).registerDomains,
  },
  {
    commands: ['properties:set', 'properties:unset'],
    load: async () => (await import('./producers/cli/commands/properties.ts')).registerProperties,
  },
  {
    commands: ['labels:', 'annotations:'],
    load: async () => (await import('./producers/cli/commands/labels.ts')).registerLabels,
  },
  {
    commands: ['autoscaling-auth:'],
    load: async () => (await import('./producers/cli/commands/autoscaling-auth.ts')).registerAutoscalingAuth,
  },
  {
    commands: ['profiles:'],
    load: async () => (await import('./producers/cli/commands/profiles.ts')).registerProfiles,
  },
  {
    commands: ['apps:rename', 'apps:destroy', 'apps:list', 'apps:status'],
    load: async () => (await import('./producers/cli/commands/apps.ts')).registerApps,
  },
  {
    commands: ['prune', 'sync'],
    load: async () => (await import('./producers/cli/commands/prune.ts')).registerPrune,
  },
  {
    commands: ['storage:'],
    load: async () => (await import('./producers/cli/commands/storage.ts')).registerStorage,
  },
  { commands: ['run'], load: async () => (await import('./producers/cli/commands/run.ts')).registerRun },
  {
    commands: ['releases', 'releases:rollback'],
    load: async () => (await import('./producers/cli/commands/releases.ts')).registerReleases,
  },
  {
    commands: ['resource:'],
    load: async () => (await import('./producers/cli/commands/resources.ts')).registerResources,
  },
  {
    commands: ['apps:report'],
    load: async () => (await import('./producers/cli/commands/report.ts')).registerReport,
  },
  { commands: ['logs'], load: async () => (await import('./producers/cli/commands/logs.ts')).registerLogs },
  {
    commands: ['registry:login', 'registry:logout'],
    load: async () => (await import('./producers/cli/commands/registry.ts')).registerRegistry,
  },
  { commands: ['jobs:'], load: async () => (await import('./producers/cli/commands/jobs.ts')).registerJobs },
  {
    commands: ['serve', 'api-token:create'],
    load: async () => (await import('./producers/cli/commands/serve.ts')).registerServe,
  },
  {
    commands: ['git-hook'],
    load: async () => (await import('./producers/cli/commands/git-hook.ts')).registerGitHook,
  },
];

/** The modules a call needs: the one naming its command word (`names:` a whole prefix), or all. */
export function modulesFor(argv: string[]): typeof COMMAND_MODULES {
  const word = argv.slice(2).find((arg) => !arg.startsWith('-'));
  const named = COMMAND_MODULES.find(
    (m) => word !== undefined && m.commands.some((c) => (c.endsWith(':') ? word.startsWith(c) : word === c)),
  );
  const longRunning = ['worker', 'scheduler', 'sim', 'dev'].includes(word ?? '');
  return named ? [named] : longRunning ? [] : COMMAND_MODULES;
}

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

export async function buildProgram(argv = process.argv): Promise<Command> {
  // The key is being derived (src/cli-prelude.ts): load what submitting needs meanwhile.
  const sealing = sealingJobType(argv);
  if (sealing) prefetchSubmitModules(sealing);
  const program = new Command('longshore')
    .description(
      'A queue-driven deploy fleet for Kubernetes. Configuration comes from the environment (see README).',
    )
    .version(version())
    .showHelpAfterError()
    .enablePositionalOptions();

  for (const register of await Promise.all(modulesFor(argv).map((m) => m.load()))) register(program);

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

  // One flag per simulation setting, derived from the settings (infra/kube-sim/settings-flags.ts).
  const sim = program
    .command('sim')
    .description('Run the Kubernetes API simulator (kube-sim) until SIGTERM/SIGINT; prints its URL')
    .option('--port <port>', 'port to listen on (default: a free one)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--kubeconfig <file>', 'write a kubeconfig for kubectl, helm and client-node here')
    .option(
      '--authorization <mode>',
      'always-allow (every request) or rbac (RBAC rules, as --authorization-mode=RBAC)',
      'always-allow',
    );
  for (const f of settingFlags()) {
    if (f.kind === 'list')
      sim.option(`${f.flag} <value>`, f.help, (value: string, previous: string[] = []) => [
        ...previous,
        value,
      ]);
    else sim.option(`${f.flag} <value>`, f.help);
  }
  sim.action(
    longRunning(async (options: Record<string, string | string[] | undefined>) => {
      const authorization = String(options.authorization);
      if (authorization !== 'always-allow' && authorization !== 'rbac') {
        process.stderr.write('error: --authorization must be always-allow or rbac\n');
        return EXIT.invalid;
      }
      const port = options.port === undefined ? undefined : Number(options.port);
      if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
        process.stderr.write('error: --port must be a whole number from 0 to 65535\n');
        return EXIT.invalid;
      }
      // commander names an option by its flag in camel case: a list flag by its singular.
      const values: Record<string, string | string[] | undefined> = {};
      for (const f of settingFlags()) {
        const key = f.flag.slice(2).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
        values[f.setting] = options[key];
      }
      const { runSim } = await import('../infra/kube-sim/main.ts');
      const { SettingsError } = await import('../infra/kube-sim/controllers/settings.ts');
      try {
        await runSim({
          host: String(options.host),
          ...(port !== undefined ? { port } : {}),
          ...(typeof options.kubeconfig === 'string' ? { kubeconfig: options.kubeconfig } : {}),
          authorization,
          settings: settingsFromFlags(values),
        });
      } catch (err) {
        if (!(err instanceof SettingsError) && !(err instanceof SettingFlagError)) throw err;
        process.stderr.write(`error: ${err.message}\n`);
        return EXIT.invalid;
      }
      await new Promise(() => undefined);
      return EXIT.ok;
    }),
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
  const program = await buildProgram(argv);
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

/**
 * Runs a parsed Dockerfile's stages without Docker: each stage gets a directory standing for its
 * filesystem root (`/app` of the image is `<root>/app`), COPY copies from the build context or an
 * earlier stage's root, RUN runs the command through /bin/sh in the WORKDIR with the stage's ENV.
 * The base image's Node is the caller's `toolchain`: a directory with `node` and `npm` first on
 * the PATH (image-node.ts: a release of the image's Node major, not this machine's Node). npm runs
 * with `offline` set (npm_config_offline, npm's own setting), from the local npm cache: the
 * commands themselves run exactly as written.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, statSync } from 'node:fs';
import { basename, delimiter, join, posix } from 'node:path';
import type { Instruction, Stage } from './dockerfile.ts';

export interface StageResult {
  name: string;
  /** The directory standing for the stage's `/`. */
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  entrypoint: string[];
  cmd: string[];
  /** Wall time of each RUN, for the test's report. */
  runs: { command: string; ms: number }[];
}

export function runStages(
  stages: Stage[],
  context: string,
  scratch: string,
  toolchain: { bin: string; node: string },
): Map<string, StageResult> {
  const done = new Map<string, StageResult>();
  for (const stage of stages) {
    const result: StageResult = {
      name: stage.name,
      root: join(scratch, stage.name),
      workdir: '/',
      env: {},
      user: undefined,
      entrypoint: [],
      cmd: [],
      runs: [],
    };
    mkdirSync(result.root, { recursive: true });
    for (const step of stage.steps) apply(step, result, context, done, toolchain);
    done.set(stage.name, result);
  }
  return done;
}

/** The test's environment without what its runner adds (vitest sets NODE_ENV=test). */
function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_ENV;
  for (const name of Object.keys(env)) if (name.startsWith('VITEST')) delete env[name];
  return env;
}

function inRoot(result: StageResult, path: string): string {
  return join(result.root, posix.resolve(result.workdir, path));
}

function apply(
  step: Instruction,
  result: StageResult,
  context: string,
  done: Map<string, StageResult>,
  toolchain: { bin: string; node: string },
): void {
  switch (step.kind) {
    case 'WORKDIR':
      result.workdir = posix.resolve(result.workdir, step.path);
      mkdirSync(inRoot(result, '.'), { recursive: true });
      return;
    case 'ENV':
      result.env[step.name] = step.value;
      return;
    case 'USER':
      result.user = step.user;
      return;
    case 'EXPOSE':
      return;
    case 'ENTRYPOINT':
      result.entrypoint = step.argv;
      return;
    case 'CMD':
      result.cmd = step.argv;
      return;
    case 'COPY': {
      const from = step.from === undefined ? undefined : done.get(step.from);
      if (step.from !== undefined && !from)
        throw new Error(`COPY --from=${step.from}: no such earlier stage`);
      const dest = inRoot(result, step.dest);
      const intoDirectory = step.dest.endsWith('/') || step.dest === '.' || step.sources.length > 1;
      for (const source of step.sources) {
        const path = from ? join(from.root, posix.resolve('/', source)) : join(context, source);
        // Docker copies a directory's contents, not the directory itself.
        if (statSync(path).isDirectory()) cpSync(path, dest, { recursive: true });
        else {
          mkdirSync(intoDirectory ? dest : join(dest, '..'), { recursive: true });
          cpSync(path, intoDirectory ? join(dest, basename(path)) : dest);
        }
      }
      return;
    }
    case 'RUN': {
      // Here npm's cache is this machine's, which the offline installs read: never cleaned.
      if (/npm\s+cache\s+clean/.test(step.command))
        throw new Error(
          `RUN ${step.command}: would empty this machine's npm cache; keep npm's cache out of the image with a stage instead`,
        );
      const started = Date.now();
      execFileSync('/bin/sh', ['-c', step.command], {
        cwd: inRoot(result, '.'),
        env: {
          ...baseEnv(),
          ...result.env,
          PATH: `${toolchain.bin}${delimiter}${process.env.PATH ?? ''}`,
          // `npm run test:image` names its own (this machine's) node in these; a tool reading them
          // would run that one instead of the image's.
          NODE: toolchain.node,
          npm_node_execpath: toolchain.node,
          npm_config_offline: 'true',
          npm_config_update_notifier: 'false',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 64 * 1024 * 1024,
      });
      result.runs.push({ command: step.command, ms: Date.now() - started });
      return;
    }
  }
}

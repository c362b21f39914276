import type { Command } from 'commander';
import type { Redis } from 'ioredis';
import { InvalidInputError } from '../../../core/errors.ts';
import { RELEASE_PROCESS, settledProcessTypes, unknownFormationTypes } from '../../../jobs/app-processes.ts';
import { sealConfigSet } from '../../../jobs/sealed-input.ts';
import { sealContext } from '../../../jobs/sealing.ts';
import { APP_JSON_MAX_BYTES, type AppJsonParts, parseAppJson } from '../../sources/app-json.ts';
import { readEnvFiles } from '../../sources/env-files.ts';
import { PROCFILE_MAX_BYTES, parseProcfile } from '../../sources/procfile.ts';
import { readInputFile } from '../../sources/read-file.ts';
import { readPasswordStdin } from '../../sources/read-password.ts';
import { DRY_RUN_OPTION, submitAppJob } from '../dry-run.ts';
import { action, type CommonOptions, parseAssignments, sealer } from '../runtime.ts';
import { collect, withSubmitOptions } from './common.ts';

export interface DeployOptions extends CommonOptions {
  image?: string;
  sha?: string;
  ref?: string;
  pusher?: string;
  procfile?: string;
  appJson?: string;
  registryServer?: string;
  registryUsername?: string;
  registryPasswordStdin?: boolean;
  clearRegistry?: boolean;
  env?: string[];
  envFile?: string[];
  unsetEnv?: string[];
  addDomain?: string[];
  removeDomain?: string[];
}

/**
 * With both files at hand, a formation or healthcheck naming a type the Procfile lacks is refused
 * here, before anything is enqueued (the worker checks again against what the app has).
 */
function refuseTypesNotInProcfile(
  parts: AppJsonParts,
  procfile: Record<string, unknown>,
  appJson: string,
  procfilePath: string,
): void {
  const declared = Object.keys(procfile).sort();
  const issues = (['formation', 'healthchecks'] as const).flatMap((field) =>
    Object.keys(parts[field] ?? {})
      .filter((type) => !(type in procfile))
      .sort()
      .map((type) => ({
        path: `${field}.${type}`,
        message: `names process type "${type}", which ${procfilePath} does not declare; it declares: ${declared.join(', ')}`,
      })),
  );
  if (issues.length > 0) throw new InvalidInputError(issues, appJson);
}

/**
 * Without a Procfile the deploy runs the app's own types: when they are known (and nothing of the
 * app is queued ahead), a formation or healthcheck naming another type is refused before enqueueing.
 */
export async function refuseTypesTheAppLacks(
  redis: Redis,
  app: string,
  payload: Record<string, unknown>,
): Promise<void> {
  if (payload.processes || (!payload.formation && !payload.healthchecks)) return;
  const known = await settledProcessTypes(redis, app);
  if (!known) return;
  // An app that never ran an image runs it as `web` (as the worker does).
  const types = known.length > 0 ? known : ['web'];
  const issues = (['formation', 'healthchecks'] as const).flatMap((field) =>
    unknownFormationTypes(field, Object.keys((payload[field] as object | undefined) ?? {}), types, 'app'),
  );
  if (issues.length > 0) throw new InvalidInputError(issues, `deploy of ${app}`);
}

/**
 * `env` of the payload: `--env-file` files in order, then `--env` pairs (a pair wins), sealed as
 * `config:set` seals them; `--unset-env` names as `null`. A name both set and unset is refused.
 */
async function envChangeFrom(
  app: string,
  options: DeployOptions,
): Promise<Record<string, unknown> | undefined> {
  const plain = {
    ...readEnvFiles(options.envFile ?? []),
    ...parseAssignments(options.env ?? [], 'env'),
  };
  const unset = options.unsetEnv ?? [];
  const both = unset.filter((key) => key in plain);
  if (both.length > 0) {
    throw new InvalidInputError(
      both.map((key) => ({
        path: `env.${key}`,
        message: 'is both set (--env/--env-file) and unset (--unset-env)',
      })),
    );
  }
  if (Object.keys(plain).length === 0 && unset.length === 0) return undefined;
  const env: Record<string, unknown> = sealConfigSet(await sealer(), app, plain, 'env');
  for (const key of unset) env[key] = null;
  return env;
}

/** `domains` of the payload: each `--add-domain` as `add`, each `--remove-domain` as `remove`. */
function domainChangesFrom(options: DeployOptions): Record<string, string> | undefined {
  const added = options.addDomain ?? [];
  const removed = options.removeDomain ?? [];
  const both = added.filter((d) => removed.includes(d));
  if (both.length > 0) {
    throw new InvalidInputError(
      both.map((d) => ({ path: `domains.${d}`, message: 'is both added and removed' })),
    );
  }
  if (added.length === 0 && removed.length === 0) return undefined;
  return Object.fromEntries([
    ...added.map((d) => [d, 'add'] as const),
    ...removed.map((d) => [d, 'remove'] as const),
  ]);
}

/** A Procfile's or app.json's text with the name messages give it (a path, or `app.json at abc1234`). */
export interface SourceText {
  text: string;
  label: string;
}

/** The Procfile and app.json `--procfile` and `--app-json` name, read (bounded, regular files only). */
function sourcesFromFiles(options: DeployOptions): { procfile?: SourceText; appJson?: SourceText } {
  return {
    ...(options.procfile
      ? {
          procfile: {
            text: readInputFile({
              option: '--procfile',
              path: options.procfile,
              maxBytes: PROCFILE_MAX_BYTES,
            }),
            label: options.procfile,
          },
        }
      : {}),
    ...(options.appJson
      ? {
          appJson: {
            text: readInputFile({
              option: '--app-json',
              path: options.appJson,
              maxBytes: APP_JSON_MAX_BYTES,
            }),
            label: options.appJson,
          },
        }
      : {}),
  };
}

/**
 * Builds the deploy payload from flags and files. The git hook deploys the same way, with the
 * Procfile and app.json of the pushed commit as `sources` in place of the files the flags name.
 */
export async function deployPayloadFrom(
  app: string,
  options: DeployOptions,
  sources: { procfile?: SourceText; appJson?: SourceText } = sourcesFromFiles(options),
): Promise<Record<string, unknown>> {
  const payload: Record<string, unknown> = { app, image: options.image };
  if (options.sha || options.ref || options.pusher) {
    payload.source = {
      sha: options.sha,
      ref: options.ref ?? 'refs/heads/main',
      pusher: options.pusher ?? 'unknown',
    };
  }
  const parsed = sources.procfile ? parseProcfile(sources.procfile.text, sources.procfile.label) : undefined;
  // The Procfile's `release` line is the release task, not a process type (docs/apps.md).
  const { [RELEASE_PROCESS]: releaseLine, ...procfile } = parsed ?? {};
  const release: { procfile?: string | null; predeploy?: string | null } = {};
  if (parsed) {
    payload.processes = procfile;
    release.procfile = releaseLine?.command ?? null;
  }
  if (sources.appJson) {
    const parts = parseAppJson(sources.appJson.text, sources.appJson.label);
    if (parsed) refuseTypesNotInProcfile(parts, procfile, sources.appJson.label, sources.procfile!.label);
    release.predeploy = parts.predeploy ?? null;
    payload.postdeploy = parts.postdeploy ?? null;
    if (typeof release.procfile === 'string' && parts.predeploy !== undefined)
      throw new InvalidInputError(
        [
          {
            path: 'scripts.dokku.predeploy',
            message: `declares a release task, and so does the "release" line of ${sources.procfile!.label}; longshore runs one release task (predeploy commits nothing to an image built elsewhere, so both are the same phase): keep one`,
          },
        ],
        sources.appJson.label,
      );
    if (Object.keys(parts.formation).length > 0) payload.formation = parts.formation;
    if (parts.healthchecks) payload.healthchecks = parts.healthchecks;
    if (parts.cron) payload.cron = parts.cron;
    if (parts.unsupported.length > 0) payload.appJsonUnsupported = parts.unsupported;
  }
  if (Object.keys(release).length > 0) payload.release = release;
  const env = await envChangeFrom(app, options);
  if (env) payload.env = env;
  const domains = domainChangesFrom(options);
  if (domains) payload.domains = domains;
  if (options.clearRegistry) {
    if (options.registryServer || options.registryUsername || options.registryPasswordStdin) {
      throw new InvalidInputError([
        { path: 'registry', message: '--clear-registry cannot be combined with new registry credentials' },
      ]);
    }
    payload.registry = null;
  }
  if (options.registryServer || options.registryUsername || options.registryPasswordStdin) {
    if (!options.registryPasswordStdin) {
      throw new InvalidInputError([
        {
          path: 'registry.password',
          message: 'pass the registry password on stdin with --registry-password-stdin',
        },
      ]);
    }
    const password = await readPasswordStdin('--registry-password-stdin', 'registry.password');
    payload.registry = {
      server: options.registryServer,
      username: options.registryUsername,
      password: (await sealer()).seal(password, sealContext.registryPassword(app)),
    };
  }
  return payload;
}

export function registerDeploy(program: Command): void {
  withSubmitOptions(
    program
      .command('deploy')
      .description('Deploy an image to an app (config, pull-secret, storage and app releases)')
      .argument('<app>', 'app name')
      .option('--image <ref>', 'image reference, e.g. ghcr.io/team/web:1.4 or …@sha256:…')
      .option('--sha <commit>', 'git commit id the image was built from')
      .option('--ref <ref>', 'git ref that was pushed')
      .option('--pusher <name>', 'who pushed')
      .option('--procfile <file>', 'Procfile with the process types to run')
      .option('--app-json <file>', 'app.json with formation, cron and healthchecks')
      .option('--registry-server <host>', 'registry for pull-secret-{app}')
      .option('--registry-username <user>', 'registry user')
      .option(
        '--registry-password-stdin',
        'read the registry password from stdin (it is sealed before enqueueing)',
      )
      .option('--clear-registry', "forget the app's registry credentials (uninstalls pull-secret-{app})")
      .option(
        '--env <KEY=VALUE>',
        'set a variable with this deploy, in the same rollout (repeatable)',
        collect,
      )
      .option(
        '--env-file <file>',
        'set the variables of a dotenv file with this deploy (repeatable)',
        collect,
      )
      .option('--unset-env <KEY>', 'unset a variable with this deploy (repeatable)', collect)
      .option('--add-domain <domain>', 'add a domain with this deploy (repeatable)', collect)
      .option('--remove-domain <domain>', 'remove a domain with this deploy (repeatable)', collect)
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, options: DeployOptions) => {
      const payload = await deployPayloadFrom(app, options);
      return submitAppJob('deploy', payload, options, (redis) => refuseTypesTheAppLacks(redis, app, payload));
    }),
  );
}

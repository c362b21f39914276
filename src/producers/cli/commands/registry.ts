/**
 * `registry:login SERVER USER --password-stdin (--global | --app APP)` and
 * `registry:logout SERVER (--global | --app APP)`: registry credentials for one app or for every
 * app pulling from SERVER (docs/apps.md, "Registry credentials"). The password is read from stdin
 * and sealed before anything is enqueued.
 */
import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { sealContext } from '../../../jobs/sealing.ts';
import { readPasswordStdin } from '../../sources/read-password.ts';
import { action, type CommonOptions, sealer, submit } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

interface LoginOptions extends CommonOptions {
  passwordStdin?: boolean;
  global?: boolean;
  app?: string;
}

export function registerRegistry(program: Command): void {
  withSubmitOptions(
    program
      .command('registry:login')
      .description(
        'Set registry credentials for an app (--app) or for every app pulling from the server (--global)',
      )
      .argument('<server>', 'registry host, as docker login names it (ghcr.io, registry.example.com:5000)')
      .argument('<username>', 'registry user')
      .option('--password-stdin', 'read the password from stdin (it is sealed before enqueueing)')
      .option('--global', 'a fleet-wide credential: every app pulling from SERVER without its own')
      .option('--app <app>', "this app's own credential (pull-secret-{app})"),
  ).action(
    action(async (server: string, username: string, options: LoginOptions) => {
      if (Boolean(options.global) === (options.app !== undefined)) {
        throw new InvalidInputError([{ path: 'app', message: 'give exactly one of --global or --app APP' }]);
      }
      if (!options.passwordStdin) {
        throw new InvalidInputError([
          { path: 'password', message: 'pass the registry password on stdin with --password-stdin' },
        ]);
      }
      const password = await readPasswordStdin('--password-stdin', 'password');
      const context = options.app
        ? sealContext.registryPassword(options.app)
        : sealContext.registryGlobalPassword(server);
      return submit(
        'registry-login',
        {
          server,
          username,
          password: (await sealer()).seal(password, context),
          ...(options.app ? { app: options.app } : { global: true }),
        },
        options,
      );
    }),
  );

  withSubmitOptions(
    program
      .command('registry:logout')
      .description("Forget an app's registry credentials (--app) or the fleet's for SERVER (--global)")
      .argument('<server>', 'registry host')
      .option('--global', 'the fleet-wide credential: uninstalls the pull secrets that hold it')
      .option('--app <app>', "this app's own credential (uninstalls pull-secret-{app})"),
  ).action(
    action(async (server: string, options: CommonOptions & { global?: boolean; app?: string }) => {
      if (Boolean(options.global) === (options.app !== undefined)) {
        throw new InvalidInputError([{ path: 'app', message: 'give exactly one of --global or --app APP' }]);
      }
      return submit(
        'registry-logout',
        { server, ...(options.app ? { app: options.app } : { global: true }) },
        options,
      );
    }),
  );
}

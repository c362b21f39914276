/**
 * `autoscaling-auth:set APP TRIGGER --metadata KEY=VALUE…`, `autoscaling-auth:unset APP TRIGGER`
 * and `autoscaling-auth:report APP`: Dokku's `scheduler-k3s:autoscaling-auth:*` (docs/apps.md,
 * "Trigger authentication"). TRIGGER is a KEDA trigger type (`redis`, `rabbitmq`…); its
 * ScaledObject triggers read the parameters from a Secret through a TriggerAuthentication. Values
 * are sealed before they reach Redis, and no command ever shows them: the report lists parameter
 * names only.
 */
import type { Command } from 'commander';
import { triggerType } from '../../../../rules/trigger-auth.ts';
import type { AppSpec } from '../../../apps/spec.ts';
import { InvalidInputError } from '../../../core/errors.ts';
import { sealAutoscalingAuth } from '../../../jobs/sealed-input.ts';
import { refuseUnknownApp } from '../known-app.ts';
import { action, type CommonOptions, parseAssignments, type ResultView, sealer, submit } from '../runtime.ts';
import { collect, withSubmitOptions } from './common.ts';

interface SetOptions extends CommonOptions {
  metadata?: string[];
}

/** TRIGGER checked before anything is sealed, so a typo is named as what was typed. */
function checkedTrigger(trigger: string): string {
  const parsed = triggerType.safeParse(trigger);
  if (!parsed.success)
    throw new InvalidInputError([{ path: 'TRIGGER', message: parsed.error.issues[0]?.message ?? 'invalid' }]);
  return parsed.data;
}

export function registerAutoscalingAuth(program: Command): void {
  withSubmitOptions(
    program
      .command('autoscaling-auth:set')
      .description(
        "Set the KEDA trigger authentication of an app's TRIGGER type (replaces its parameters; values are sealed before they reach Redis and kept only in the Secret keda-auth-APP-TRIGGER)",
      )
      .argument('<app>', 'app name')
      .argument('<trigger>', 'KEDA trigger type, as in app.json formation.<type>.autoscaling.triggers[].type')
      .option(
        '--metadata <key=value>',
        'a trigger parameter KEDA reads from the Secret, e.g. password=… (repeatable)',
        collect,
      ),
  ).action(
    action(async (app: string, trigger: string, options: SetOptions) => {
      const type = checkedTrigger(trigger);
      const plain = parseAssignments(options.metadata ?? [], '--metadata');
      if (Object.keys(plain).length === 0)
        throw new InvalidInputError([
          { path: '--metadata', message: 'give at least one --metadata KEY=VALUE (a trigger parameter)' },
        ]);
      const metadata = sealAutoscalingAuth(await sealer(), app, type, plain);
      return submit('autoscaling-auth', { app, trigger: type, action: 'set', metadata }, options, (redis) =>
        refuseUnknownApp(redis, app),
      );
    }),
  );

  withSubmitOptions(
    program
      .command('autoscaling-auth:unset')
      .description(
        "Remove the KEDA trigger authentication of an app's TRIGGER type (its Secret and TriggerAuthentication)",
      )
      .argument('<app>', 'app name')
      .argument('<trigger>', 'KEDA trigger type'),
  ).action(
    action(async (app: string, trigger: string, options: CommonOptions) =>
      submit(
        'autoscaling-auth',
        { app, trigger: checkedTrigger(trigger), action: 'unset' },
        options,
        (redis) => refuseUnknownApp(redis, app),
      ),
    ),
  );

  program
    .command('autoscaling-auth:report')
    .description(
      'The trigger types of an app that have authentication, with their parameter names (never the values)',
    )
    .argument('<app>', 'app name')
    .option('--timeout <seconds>', 'stop waiting after this many seconds')
    .option('--json', 'print JSON')
    .action(
      action(async (app: string, options: CommonOptions) =>
        submit(
          'report',
          { app },
          { ...options, wait: true },
          (redis) => refuseUnknownApp(redis, app),
          authView,
        ),
      ),
    );
}

/** `TRIGGER  parameter, parameter` lines (or `--json`: `{TRIGGER: [parameter…]}`). */
export function autoscalingAuthLines(spec: Pick<AppSpec, 'autoscalingAuth'> | undefined): string[] {
  const auth: Record<string, string[] | undefined> = spec?.autoscalingAuth ?? {};
  const triggers = Object.keys(auth).sort();
  if (triggers.length === 0) return ['no trigger authentication'];
  const width = Math.max(...triggers.map((t) => t.length));
  return triggers.map((t) => `${t.padEnd(width)}  ${(auth[t] ?? []).join(', ')}`);
}

const authView: ResultView = {
  enrich: async (result) => {
    const spec = (result as { spec?: Pick<AppSpec, 'autoscalingAuth'> }).spec;
    return { autoscalingAuth: spec?.autoscalingAuth ?? {} };
  },
  print: (result, output) => {
    for (const line of autoscalingAuthLines(result as Pick<AppSpec, 'autoscalingAuth'>)) output.out(line);
  },
};

import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import {
  autoscaledScaleIssue,
  settledAutoscaledTypes,
  settledProcessTypes,
  unknownScaleTypes,
} from '../../../jobs/app-processes.ts';
import { readProfiles } from '../../../jobs/placement-profiles.ts';
import { DRY_RUN_OPTION, submitAppJob } from '../dry-run.ts';
import { action, type CommonOptions, parseAssignments } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

export function registerPs(program: Command): void {
  withSubmitOptions(
    program
      .command('ps:set')
      .description(
        'Set a process type setting: `profile NAME` places its pods by a fleet placement profile (no NAME detaches it)',
      )
      .argument('<app>', 'app name')
      .argument('<type>', 'process type')
      .argument('<key>', 'setting: profile')
      .argument('[value]', 'the profile name; absent detaches the profile')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(
      async (app: string, type: string, key: string, value: string | undefined, options: CommonOptions) => {
        if (key !== 'profile')
          throw new InvalidInputError([
            { path: 'KEY', message: `unknown ps:set key "${key}" (known: profile)` },
          ]);
        const payload = { app, action: 'set', process: type, key, value: value ?? null };
        return submitAppJob('ps', payload, options, async (redis) => {
          const known = await settledProcessTypes(redis, app);
          const issues = known ? unknownScaleTypes(app, [type], known) : [];
          if (issues.length > 0)
            throw new InvalidInputError(
              issues.map((i) => ({ ...i, path: 'TYPE' })),
              'ps:set',
            );
          if (value !== undefined && !(await readProfiles(redis, [value]))[value])
            throw new InvalidInputError(
              [
                {
                  path: 'NAME',
                  message: `placement profile "${value}" does not exist (profiles:list shows them)`,
                },
              ],
              'ps:set',
            );
        });
      },
    ),
  );

  withSubmitOptions(
    program
      .command('ps:scale')
      .description('Set replica counts of process types')
      .argument('<app>', 'app name')
      .argument('<counts...>', 'TYPE=COUNT pairs, e.g. web=2 worker=1')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, counts: string[], options: CommonOptions) => {
      const processes: Record<string, number> = {};
      for (const [type, count] of Object.entries(parseAssignments(counts, 'processes'))) {
        if (!/^\d+$/.test(count)) {
          throw new InvalidInputError([
            { path: `processes.${type}`, message: `"${count}" is not a whole number` },
          ]);
        }
        processes[type] = Number(count);
      }
      return submitAppJob('scale', { app, processes }, options, async (redis) => {
        // Refused here when the app's types are known and nothing is queued ahead; else the worker refuses.
        const known = await settledProcessTypes(redis, app);
        const issues = known ? unknownScaleTypes(app, Object.keys(processes), known) : [];
        const autoscaled = await settledAutoscaledTypes(redis, app);
        for (const type of Object.keys(processes).sort())
          if (autoscaled?.includes(type)) issues.push(autoscaledScaleIssue(app, type));
        if (issues.length > 0) throw new InvalidInputError(issues, 'scale');
      });
    }),
  );

  withSubmitOptions(
    program
      .command('ps:restart')
      .description('Rolling restart of every process type, or of TYPE (as kubectl rollout restart)')
      .argument('<app>', 'app name')
      .argument('[type]', 'only this process type')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, type: string | undefined, options: CommonOptions) => {
      // The time is fixed here: a retried job renders the same annotation and restarts nothing twice.
      const payload = {
        app,
        action: 'restart',
        ...(type ? { process: type } : {}),
        at: new Date().toISOString(),
      };
      return submitAppJob('ps', payload, options, async (redis) => {
        const known = type ? await settledProcessTypes(redis, app) : undefined;
        const issues = known && type ? unknownScaleTypes(app, [type], known) : [];
        if (issues.length > 0)
          throw new InvalidInputError(
            issues.map((i) => ({ ...i, path: 'process' })),
            'ps:restart',
          );
      });
    }),
  );

  withSubmitOptions(
    program
      .command('ps:stop')
      .description('Scale every process type to 0, keeping the formation for ps:start')
      .argument('<app>', 'app name')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, options: CommonOptions) =>
      submitAppJob('ps', { app, action: 'stop' }, options),
    ),
  );

  withSubmitOptions(
    program
      .command('ps:start')
      .description('Bring back the formation the app had before ps:stop')
      .argument('<app>', 'app name')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, options: CommonOptions) =>
      submitAppJob('ps', { app, action: 'start' }, options),
    ),
  );
}

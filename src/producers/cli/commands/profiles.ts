/**
 * `profiles:set NAME --node-selector k=v --toleration k=v:Effect`, `profiles:unset NAME` (fleet
 * jobs) and `profiles:list` (read straight from Redis: profiles hold no secret). Placement profiles
 * are fleet-wide (src/jobs/placement-profiles.ts); `ps:set APP TYPE profile NAME` attaches one.
 */
import type { Command } from 'commander';
import { parseNodeSelectorWord, parseTolerationWord, type Toleration } from '../../../../rules/placement.ts';
import { InvalidInputError } from '../../../core/errors.ts';
import { listProfiles } from '../../../jobs/placement-profiles.ts';
import { EXIT } from '../exit-codes.ts';
import { createOutput } from '../output.ts';
import { action, type CommonOptions, submit, withRedis } from '../runtime.ts';
import { collect, withSubmitOptions } from './common.ts';

interface SetOptions extends CommonOptions {
  nodeSelector?: string[];
  toleration?: string[];
}

export function registerProfiles(program: Command): void {
  withSubmitOptions(
    program
      .command('profiles:set')
      .description(
        'Create or replace a fleet placement profile: pods of process types using it get its nodeSelector and tolerations',
      )
      .argument('<name>', 'profile name (a DNS label)')
      .option('--node-selector <key=value>', 'a node label the pods require (repeatable)', collect)
      .option(
        '--toleration <key=value:Effect>',
        'a taint the pods tolerate: key=value:Effect (Equal) or key:Effect (Exists); Effect is NoSchedule, PreferNoSchedule or NoExecute (repeatable)',
        collect,
      ),
  ).action(
    action(async (name: string, options: SetOptions) => {
      const issues: { path: string; message: string }[] = [];
      const nodeSelector: Record<string, string> = {};
      for (const word of options.nodeSelector ?? []) {
        const parsed = parseNodeSelectorWord(word);
        if ('problem' in parsed) issues.push({ path: '--node-selector', message: parsed.problem });
        else nodeSelector[parsed.key] = parsed.value;
      }
      const tolerations: Toleration[] = [];
      for (const word of options.toleration ?? []) {
        const parsed = parseTolerationWord(word);
        if ('problem' in parsed) issues.push({ path: '--toleration', message: parsed.problem });
        else tolerations.push(parsed);
      }
      if (issues.length > 0) throw new InvalidInputError(issues, 'profiles:set');
      return submit('profiles', { action: 'set', name, nodeSelector, tolerations }, options);
    }),
  );
  withSubmitOptions(
    program
      .command('profiles:unset')
      .description('Remove a fleet placement profile (refused while a process type uses it)')
      .argument('<name>', 'profile name'),
  ).action(
    action(async (name: string, options: CommonOptions) =>
      submit('profiles', { action: 'unset', name }, options),
    ),
  );
  program
    .command('profiles:list')
    .description('List the fleet placement profiles')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { json?: boolean }) => {
        const output = createOutput(Boolean(options.json));
        const profiles = await withRedis((redis) => listProfiles(redis));
        if (output.json) {
          output.data(profiles);
          return EXIT.ok;
        }
        const names = Object.keys(profiles);
        if (names.length === 0) {
          output.out('no placement profiles (create one: longshore profiles:set NAME --node-selector k=v)');
          return EXIT.ok;
        }
        for (const name of names) {
          const p = profiles[name]!;
          const selector = Object.entries(p.nodeSelector).map(([k, v]) => `${k}=${v}`);
          const tolerations = p.tolerations.map(
            (t) => `${t.key}${t.operator === 'Equal' ? `=${t.value}` : ''}:${t.effect}`,
          );
          output.out(
            `${name}  node-selector: ${selector.join(' ') || '-'}  tolerations: ${tolerations.join(' ') || '-'}`,
          );
        }
        return EXIT.ok;
      }),
    );
}

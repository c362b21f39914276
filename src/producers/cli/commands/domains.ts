import type { Command } from 'commander';
import { LIST_ACTIONS, type ListAction } from '../../../jobs/schemas/list-change.ts';
import { DRY_RUN_OPTION, type DryRunOptions, submitAppJob } from '../dry-run.ts';
import { action } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

interface ListCommands {
  /** Command prefix and job type (`domains`, `ports`), which is also the payload field. */
  name: 'domains' | 'ports';
  item: string;
  descriptions: Record<ListAction, string>;
}

const LISTS: ListCommands[] = [
  {
    name: 'domains',
    item: 'hostnames',
    descriptions: {
      add: 'Add domains (one Ingress each)',
      remove: 'Remove domains',
      set: 'Replace all domains',
      clear: 'Remove every domain',
    },
  },
  {
    name: 'ports',
    item: 'port maps',
    descriptions: {
      add: 'Add port maps (scheme:host:container, e.g. http:80:5000)',
      remove: 'Remove port maps',
      set: 'Replace all port maps',
      clear: 'Remove every port map',
    },
  },
];

/** `domains:add|remove|set|clear` and `ports:add|remove|set|clear`. */
export function registerDomains(program: Command): void {
  for (const list of LISTS) {
    for (const verb of LIST_ACTIONS) {
      const command = program
        .command(`${list.name}:${verb}`)
        .description(list.descriptions[verb])
        .argument('<app>', 'app name')
        .option(...DRY_RUN_OPTION);
      if (verb !== 'clear') command.argument(verb === 'set' ? '[items...]' : '<items...>', list.item);
      withSubmitOptions(command).action(
        action(async (app: string, ...rest: unknown[]) => {
          const items = verb === 'clear' ? [] : ((rest[0] as string[] | undefined) ?? []);
          const options = (verb === 'clear' ? rest[0] : rest[1]) as DryRunOptions;
          return submitAppJob(list.name, { app, action: verb, [list.name]: items }, options);
        }),
      );
    }
  }
}

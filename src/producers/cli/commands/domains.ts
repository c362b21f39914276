import type { Command } from 'commander';
import { action, type CommonOptions, submit } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

const ACTIONS = {
  add: 'Add domains (one Ingress each)',
  remove: 'Remove domains',
  set: 'Replace all domains',
  clear: 'Remove every domain',
} as const;

const PORT_ACTIONS = {
  add: 'Add port maps (scheme:host:container, e.g. http:80:5000)',
  remove: 'Remove port maps',
  set: 'Replace all port maps',
  clear: 'Remove every port map',
} as const;

export function registerDomains(program: Command): void {
  for (const [verb, description] of Object.entries(ACTIONS)) {
    const command = program.command(`domains:${verb}`).description(description).argument('<app>', 'app name');
    if (verb !== 'clear') command.argument(verb === 'set' ? '[domains...]' : '<domains...>', 'hostnames');
    withSubmitOptions(command).action(
      action(async (app: string, ...rest: unknown[]) => {
        const domains = verb === 'clear' ? [] : ((rest[0] as string[] | undefined) ?? []);
        const options = (verb === 'clear' ? rest[0] : rest[1]) as CommonOptions;
        return submit('domains', { app, action: verb, domains }, options);
      }),
    );
  }
  for (const [verb, description] of Object.entries(PORT_ACTIONS)) {
    const command = program.command(`ports:${verb}`).description(description).argument('<app>', 'app name');
    if (verb !== 'clear') command.argument(verb === 'set' ? '[maps...]' : '<maps...>', 'port maps');
    withSubmitOptions(command).action(
      action(async (app: string, ...rest: unknown[]) => {
        const ports = verb === 'clear' ? [] : ((rest[0] as string[] | undefined) ?? []);
        const options = (verb === 'clear' ? rest[0] : rest[1]) as CommonOptions;
        return submit('ports', { app, action: verb, ports }, options);
      }),
    );
  }
}

import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { PROPERTY_NAMES, type PropertyName } from '../../../jobs/schemas/properties.ts';
import { DRY_RUN_OPTION, type DryRunOptions, submitAppJob } from '../dry-run.ts';
import { action } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

function property(name: string): (typeof PROPERTY_NAMES)[PropertyName] {
  const entry = PROPERTY_NAMES[name as PropertyName];
  if (!entry) {
    throw new InvalidInputError([
      {
        path: 'property',
        message: `unknown property "${name}" (known: ${Object.keys(PROPERTY_NAMES).join(', ')})`,
      },
    ]);
  }
  return entry;
}

export function registerProperties(program: Command): void {
  withSubmitOptions(
    program
      .command('properties:set')
      .description(`Set an app property (${Object.keys(PROPERTY_NAMES).join(', ')})`)
      .argument('<app>', 'app name')
      .argument('<property>', 'property name')
      .argument('<value>', 'value (labels and annotations take a JSON object)')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, name: string, value: string, options: DryRunOptions) => {
      const entry = property(name);
      return submitAppJob('properties', { app, set: { [entry.field]: entry.parse(value) } }, options);
    }),
  );
  withSubmitOptions(
    program
      .command('properties:unset')
      .description('Reset an app property to its default')
      .argument('<app>', 'app name')
      .argument('<property>', 'property name')
      .option(...DRY_RUN_OPTION),
  ).action(
    action(async (app: string, name: string, options: DryRunOptions) =>
      submitAppJob('properties', { app, set: { [property(name).field]: null } }, options),
    ),
  );
}

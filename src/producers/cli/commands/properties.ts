import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { PROPERTY_NAMES, type PropertyName } from '../../../jobs/schemas/properties.ts';
import { action, type CommonOptions, submit } from '../runtime.ts';
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
      .argument('<value>', 'value (labels and annotations take a JSON object)'),
  ).action(
    action(async (app: string, name: string, value: string, options: CommonOptions) => {
      const entry = property(name);
      return submit('properties', { app, set: { [entry.field]: entry.parse(value) } }, options);
    }),
  );
  withSubmitOptions(
    program
      .command('properties:unset')
      .description('Reset an app property to its default')
      .argument('<app>', 'app name')
      .argument('<property>', 'property name'),
  ).action(
    action(async (app: string, name: string, options: CommonOptions) =>
      submit('properties', { app, set: { [property(name).field]: null } }, options),
    ),
  );
}

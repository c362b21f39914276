/**
 * `labels:set`, `labels:unset`, `annotations:set`, `annotations:unset APP KEY [VALUE]
 * [--process-type T] [--resource-type R]`: Dokku's `scheduler-k3s:labels:set` and
 * `annotations:set`, as `metadata` jobs in the app's lane (docs/apps.md, "Labels and annotations").
 */
import type { Command } from 'commander';
import { RESOURCE_TYPES } from '../../../../rules/object-metadata.ts';
import { InvalidInputError } from '../../../core/errors.ts';
import { DRY_RUN_OPTION, type DryRunOptions, submitAppJob } from '../dry-run.ts';
import { action } from '../runtime.ts';
import { withSubmitOptions } from './common.ts';

interface ScopeOptions extends DryRunOptions {
  processType?: string;
  resourceType?: string;
}

function scopeOf(options: ScopeOptions): Record<string, string> {
  if (
    options.resourceType !== undefined &&
    !(RESOURCE_TYPES as readonly string[]).includes(options.resourceType)
  )
    throw new InvalidInputError([
      {
        path: '--resource-type',
        message: `"${options.resourceType}" is not a resource type (one of ${RESOURCE_TYPES.join(', ')})`,
      },
    ]);
  return {
    ...(options.processType !== undefined ? { processType: options.processType } : {}),
    ...(options.resourceType !== undefined ? { resourceType: options.resourceType } : {}),
  };
}

export function registerLabels(program: Command): void {
  for (const kind of ['label', 'annotation'] as const) {
    const scoped = (command: Command) =>
      withSubmitOptions(
        command
          .option('--process-type <type>', `only the objects of this process type`)
          .option('--resource-type <type>', `only this kind of object: ${RESOURCE_TYPES.join(', ')}`)
          .option(...DRY_RUN_OPTION),
      );
    scoped(
      program
        .command(`${kind}s:set`)
        .description(
          `Set a${kind === 'annotation' ? 'n' : ''} ${kind} on the app's objects (every one, or those of --process-type / --resource-type)`,
        )
        .argument('<app>', 'app name')
        .argument('<key>', `${kind} key, a qualified name such as example.com/team`)
        .argument('<value>', kind === 'label' ? 'label value' : 'annotation value'),
    ).action(
      action(async (app: string, key: string, value: string, options: ScopeOptions) =>
        submitAppJob('metadata', { app, kind, action: 'set', key, value, ...scopeOf(options) }, options),
      ),
    );
    scoped(
      program
        .command(`${kind}s:unset`)
        .description(
          `Remove a${kind === 'annotation' ? 'n' : ''} ${kind} set with ${kind}s:set for the same scope`,
        )
        .argument('<app>', 'app name')
        .argument('<key>', `${kind} key`),
    ).action(
      action(async (app: string, key: string, options: ScopeOptions) =>
        submitAppJob('metadata', { app, kind, action: 'unset', key, ...scopeOf(options) }, options),
      ),
    );
  }
}

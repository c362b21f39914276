/**
 * `resources` (`resource:limit` and `resource:reserve APP [--process TYPE] [--cpu C] [--memory M]
 * [--clear]`): the containers' limits or requests, kept in the app's spec, in the app's lane.
 */
import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName, cpuQuantity, processType, quantity } from './common.ts';

export const resourcesPayload = z
  .object({
    app: appName,
    /** `limit` sets the limits, `reserve` the requests. */
    kind: z.enum(['limit', 'reserve']),
    /** Only this process type; absent: every process type. */
    process: processType.optional(),
    cpu: cpuQuantity.optional(),
    memory: quantity.optional(),
    /** Remove both values of this kind (back to the defaults) instead of setting them. */
    clear: z.boolean(),
  })
  .strict()
  .superRefine((p, ctx) => {
    const given = p.cpu !== undefined || p.memory !== undefined;
    if (p.clear && given)
      ctx.addIssue({ code: 'custom', path: ['clear'], message: 'cannot be combined with --cpu or --memory' });
    if (!p.clear && !given)
      ctx.addIssue({ code: 'custom', path: ['cpu'], message: 'give --cpu or --memory (or --clear)' });
  });

export type ResourcesPayload = z.infer<typeof resourcesPayload>;

export const resourcesContract = defineContract<ResourcesPayload>({
  type: 'resources',
  summary: 'Set or clear the CPU and memory limits or requests of process types',
  payload: resourcesPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `resource:${p.kind} ${p.app}${p.process ? ` ${p.process}` : ''} ${describeValues(p)}`,
});

export function describeValues(p: ResourcesPayload): string {
  if (p.clear) return 'cleared';
  return [p.cpu !== undefined ? `cpu=${p.cpu}` : '', p.memory !== undefined ? `memory=${p.memory}` : '']
    .filter(Boolean)
    .join(' ');
}

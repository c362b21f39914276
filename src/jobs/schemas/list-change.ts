/**
 * Payloads that change a list of an app's (domains, port maps): add or remove some items, set the
 * whole list, or clear it. One shape, so both read and validate the same way.
 */
import { z } from 'zod';
import { appName } from './common.ts';

export const LIST_ACTIONS = ['add', 'remove', 'set', 'clear'] as const;
export type ListAction = (typeof LIST_ACTIONS)[number];

export function listChangePayload<F extends string, T extends z.ZodType<string>>(
  field: F,
  item: T,
  noun: string,
  max: number,
) {
  return z
    .object({
      app: appName,
      action: z.enum(LIST_ACTIONS),
      [field]: z.array(item).max(max, `must name at most ${max} ${noun}s`).default([]),
    })
    .strict()
    .superRefine((p, ctx) => {
      const items = (p as Record<string, unknown>)[field] as unknown[];
      if (p.action === 'clear' && items.length > 0) {
        ctx.addIssue({ code: 'custom', path: [field], message: `clear takes no ${noun}s` });
      }
      if ((p.action === 'add' || p.action === 'remove') && items.length === 0) {
        ctx.addIssue({ code: 'custom', path: [field], message: `name at least one ${noun} to ${p.action}` });
      }
    }) as unknown as z.ZodType<{ app: string; action: ListAction } & { [K in F]: z.output<T>[] }>;
}

import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName, nonNegativeInt, processType } from './common.ts';

export const scalePayload = z
  .object({
    app: appName,
    processes: z
      .record(processType, nonNegativeInt(1000))
      .refine((p) => Object.keys(p).length > 0, 'name at least one process type, e.g. web=2'),
  })
  .strict();

export type ScalePayload = z.infer<typeof scalePayload>;

export const scaleContract = defineContract<ScalePayload>({
  type: 'scale',
  summary: 'Change replica counts of process types',
  payload: scalePayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) =>
    `scale ${p.app} ${Object.entries(p.processes)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
});

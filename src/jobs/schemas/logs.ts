import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName, processType } from './common.ts';

/** Most lines `--tail` may ask of each pod (the stream that carries them holds 10,000 in all). */
export const LOGS_TAIL_MAX = 10_000;

export const logsPayload = z
  .object({
    app: appName,
    /** Only this process's pods; every process of the app when absent. */
    process: processType.optional(),
    /** Lines of each pod's log before following (kubectl's --tail). */
    tail: z.number().int().min(1).max(LOGS_TAIL_MAX).default(100),
    /** Keep streaming new lines until the reader stops (Ctrl-C) or goes away. */
    follow: z.boolean().default(false),
  })
  .strict();

export type LogsPayload = z.infer<typeof logsPayload>;

export const logsContract = defineContract<LogsPayload>({
  type: 'logs',
  summary: "Stream an app's pod logs back to the caller, each line prefixed with its process and pod number",
  payload: logsPayload,
  // A read of the pods: it must neither wait behind deploys nor hold up the app's lane while it follows.
  lane: () => undefined,
  app: (p) => p.app,
  describe: (p) =>
    `logs ${p.app}${p.process ? ` --process ${p.process}` : ''} --tail ${p.tail}${p.follow ? ' -f' : ''}`,
});

/**
 * `report` (`apps:report APP`): a read job returning what the cluster knows of an app (its saved
 * spec, the app release's deployed revision); the CLI adds what Redis knows (status projection,
 * last jobs). Unordered, like `releases`.
 */
import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName } from './common.ts';

export const reportPayload = z.object({ app: appName }).strict();

export type ReportPayload = z.infer<typeof reportPayload>;

export const reportContract = defineContract<ReportPayload>({
  type: 'report',
  summary: 'Everything the fleet knows of an app (a read)',
  payload: reportPayload,
  lane: () => undefined,
  app: (p) => p.app,
  describe: (p) => `apps:report ${p.app}`,
});

/**
 * longshore's own name limits, on top of the Kubernetes formats (./names.ts): an app, a process
 * type and a storage entry are parts of the names and label values the charts derive, so each is
 * kept short enough that every derived name fits its Kubernetes limit without shortening in the
 * common cases. See docs/architecture.md ("Names").
 */
import { z } from 'zod';
import { dns1035Label, dns1123Label } from './name-schemas.ts';
import { DNS1035_LABEL, DNS1035_LABEL_MESSAGE } from './names.ts';

/**
 * Longest app name: `pull-secret-{app}` release label (12 + 30 = 42 ≤ 63), `{app}-{process}`
 * Deployments and label values (30 + 1 + 20 = 51 ≤ 63), `{app}-cron-{suffix}` CronJobs
 * (30 + 6 + 8 = 44 ≤ 52).
 */
export const APP_NAME_MAX = 30;
/** Longest process type (`web`, `worker`…): `{app}-{process}` stays a valid DNS-1035 name. */
export const PROCESS_TYPE_MAX = 20;
/** Longest storage entry name: the `storage-{entry}` release name stays a label value (8 + 45 ≤ 63). */
export const STORAGE_NAME_MAX = 45;

/** App names: DNS-1035 labels (a Service is named after the app) of at most 30 characters. */
export const appName = dns1035Label({ max: APP_NAME_MAX, required: 'is required (an app name)' });

const PROCESS_TYPE_MESSAGE = `${DNS1035_LABEL_MESSAGE} (e.g. web, worker)`;

/** Why `type` is not a process type (`web`, `worker`), or undefined. */
export function processTypeProblem(type: string): string | undefined {
  if (type.length > PROCESS_TYPE_MAX) return `must be at most ${PROCESS_TYPE_MAX} characters`;
  return DNS1035_LABEL.test(type) ? undefined : PROCESS_TYPE_MESSAGE;
}

export const processType = z.string().superRefine((type, ctx) => {
  const problem = processTypeProblem(type);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** Storage entry names: DNS-1123 labels (a volume is named after the entry) of at most 45. */
export const storageName = dns1123Label({
  max: STORAGE_NAME_MAX,
  required: 'is required (a storage entry name)',
});

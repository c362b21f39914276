/**
 * Labels and annotations scoped by process type and resource type (`labels:set APP KEY VALUE
 * [--process-type T] [--resource-type R]`, as Dokku's `scheduler-k3s:labels:set` and
 * `annotations:set` scope them). One definition for the job contract, the AppSpec and the app chart.
 *
 * Keys longshore writes itself are refused: `app.kubernetes.io/*` (the standard labels, two of
 * them in every selector, charts/labels.ts), `longshore.dev/*` (the config digest, cron ids, run
 * markers) and `kubectl.kubernetes.io/*` (the restart annotation `ps:restart` sets). The chart
 * would keep its own value anyway (user entries never replace what it sets), so accepting them
 * would only store a value that is never seen.
 */
import { z } from 'zod';
import { processTypeProblem } from './app-names.ts';
import { ANNOTATIONS_MAX_BYTES, isLabelValue, LABEL_VALUE_MESSAGE, qualifiedNameProblem } from './labels.ts';

/** The objects an entry can go on, by Dokku's resource-type names. */
export const RESOURCE_TYPES = ['deployment', 'pod', 'service', 'ingress', 'cronjob', 'job'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** Key prefixes longshore owns; user labels and annotations may not use them. */
export const RESERVED_KEY_PREFIXES = ['app.kubernetes.io/', 'longshore.dev/', 'kubectl.kubernetes.io/'];

/** Why `key` cannot be a user label or annotation key, or undefined. */
export function metadataKeyProblem(key: string): string | undefined {
  const qualified = qualifiedNameProblem(key);
  if (qualified) return `${qualified} (a qualified name such as example.com/team)`;
  const reserved = RESERVED_KEY_PREFIXES.find((p) => key.startsWith(p));
  if (reserved) return `key "${key}": ${reserved}* keys are set by longshore and cannot be overridden`;
  return undefined;
}

/** An annotation value's largest size (the object's whole annotations may total 256 KiB). */
export const ANNOTATION_VALUE_MAX_BYTES = 64 * 1024;

/** Which of the scopes a (process type, resource type) pair may have: every problem, with its flag. */
export function scopeProblems(processType: string | undefined, resourceType: string | undefined): string[] {
  const problems: string[] = [];
  if (processType !== undefined) {
    const problem = processTypeProblem(processType);
    if (problem) problems.push(`--process-type: ${problem}`);
    // Cron tasks are not process types: a CronJob belongs to no process.
    if (resourceType === 'cronjob')
      problems.push('--process-type: CronJobs belong to no process type (cron tasks are not processes)');
    if ((resourceType === 'service' || resourceType === 'ingress') && processType !== 'web')
      problems.push(`--process-type: only web has a ${resourceType === 'service' ? 'Service' : 'Ingress'}`);
  }
  return problems;
}

export const metadataEntry = z.strictObject({
  key: z.string(),
  value: z.string(),
  /** Only this process type's objects; absent: every process's (and the app's CronJobs). */
  processType: z.string().optional(),
  /** Only this resource type; absent: every object of the scope. */
  resourceType: z.enum(RESOURCE_TYPES).optional(),
});

export type MetadataEntry = z.infer<typeof metadataEntry>;

function entries(kind: 'label' | 'annotation') {
  return z.array(metadataEntry).superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((entry, i) => {
      const issue = (message: string) => ctx.addIssue({ code: 'custom', path: [i], message });
      const problem = metadataKeyProblem(entry.key);
      if (problem) issue(problem);
      if (kind === 'label' && !isLabelValue(entry.value))
        issue(`value of "${entry.key}" ${LABEL_VALUE_MESSAGE}`);
      for (const p of scopeProblems(entry.processType, entry.resourceType)) issue(p);
      const id = scopeId(entry);
      if (seen.has(id)) issue(`"${entry.key}" is given twice for the same scope`);
      seen.add(id);
    });
  });
}

/** At most this many scoped labels, and as many scoped annotations, per app. */
export const METADATA_MAX_ENTRIES = 200;

/**
 * The labels and annotations of an app, each a list of scoped entries. The scoped annotations
 * together stay within what one object may carry (256 KiB): every one of them could reach the
 * same object, and the app's spec is kept in one Secret.
 */
export const objectMetadata = z
  .strictObject({
    labels: entries('label').max(METADATA_MAX_ENTRIES, `must have at most ${METADATA_MAX_ENTRIES} entries`),
    annotations: entries('annotation').max(
      METADATA_MAX_ENTRIES,
      `must have at most ${METADATA_MAX_ENTRIES} entries`,
    ),
  })
  .superRefine((m, ctx) => {
    const bytes = m.annotations.reduce(
      (n, e) => n + Buffer.byteLength(e.key, 'utf8') + Buffer.byteLength(e.value, 'utf8'),
      0,
    );
    if (bytes > ANNOTATIONS_MAX_BYTES)
      ctx.addIssue({
        code: 'custom',
        path: ['annotations'],
        message: `are ${bytes} bytes in all; an object's annotations may total at most ${ANNOTATIONS_MAX_BYTES}`,
      });
  });

export type ObjectMetadata = z.infer<typeof objectMetadata>;

/** An entry's identity: one value per key, process type and resource type. */
export function scopeId(entry: Pick<MetadataEntry, 'key' | 'processType' | 'resourceType'>): string {
  return `${entry.key}\u0000${entry.processType ?? ''}\u0000${entry.resourceType ?? ''}`;
}

/**
 * The entries that reach one object: of its resource type (or of every type), and of its process
 * (or of every process). A more specific entry wins over a broader one for the same key: process
 * and resource type, then process only, then resource type only, then neither.
 */
export function metadataFor(
  list: readonly MetadataEntry[],
  resourceType: ResourceType,
  processType: string | undefined,
): Record<string, string> {
  const rank = (e: MetadataEntry) =>
    (e.processType !== undefined ? 2 : 0) + (e.resourceType !== undefined ? 1 : 0);
  const matching = list
    .filter((e) => e.resourceType === undefined || e.resourceType === resourceType)
    .filter((e) => e.processType === undefined || e.processType === processType)
    .sort((a, b) => rank(a) - rank(b));
  const out: Record<string, string> = {};
  for (const e of matching) out[e.key] = e.value;
  return out;
}

/**
 * app.json as Dokku reads it: `formation` (replica counts), `cron` (scheduled tasks) and
 * `healthchecks` (probes per process type), validated by the schema in app-json-schema.ts and
 * turned into the deploy payload's shapes. Pure: text in, parts out, or an InvalidInputError that
 * names every problem by its JSON path (`healthchecks.web[0].port`).
 */
import type { z } from 'zod';
import type { Autoscaling } from '../../../rules/autoscaling.ts';
import { type FieldIssue, InvalidInputError } from '../../core/errors.ts';
import type { DeployPayload } from '../../jobs/schemas/deploy.ts';
import { type AppJsonAutoscaling, type AppJsonHealthcheck, appJsonDocument } from './app-json-schema.ts';

/** Largest app.json the CLI reads (Dokku's samples are a few KiB; a Secret holds 1 MiB in all). */
export const APP_JSON_MAX_BYTES = 1024 * 1024;

type Probes = NonNullable<NonNullable<DeployPayload['healthchecks']>[string]>;
type Probe = NonNullable<Probes['startup']>;

export interface AppJsonParts {
  /** Every process type `formation` names, with its `quantity` as `replicas` when it has one. */
  formation: NonNullable<DeployPayload['formation']>;
  /** Probes per process type; absent when app.json has no `healthchecks` (the app keeps its own). */
  healthchecks?: Record<string, Probes>;
  /** Absent when app.json has no `cron` (the app keeps its tasks); `[]` removes them all. */
  cron?: NonNullable<DeployPayload['cron']>;
  /** Keys present in the file that longshore does not act on, as JSON paths (unsupportedAppJsonKeys). */
  unsupported: string[];
  /** `scripts.dokku.predeploy`, the release task; absent when app.json has none. */
  predeploy?: string;
  /** `scripts.dokku.postdeploy`, the postdeploy task; absent when app.json has none. */
  postdeploy?: string;
}

/** The keys longshore reads (docs/apps.md, "app.json keys"). */
export const SUPPORTED_APP_JSON_KEYS = ['formation', 'cron', 'healthchecks'] as const;

/**
 * Descriptive keys: they say what the app is and change nothing about what runs, so leaving them
 * out of the deploy is not a loss worth a warning (Heroku's app.json schema: name, description…).
 */
const DESCRIPTIVE_KEYS = ['name', 'description', 'keywords', 'website', 'repository', 'logo', 'success_url'];

/**
 * Paths below an otherwise unsupported top-level key that a deploy does act on: never reported.
 * `scripts.dokku.predeploy` is the release task (docs/apps.md, "The release phase"),
 * `scripts.dokku.postdeploy` the postdeploy task (docs/apps.md, "Postdeploy").
 */
const SUPPORTED_PATHS: string[] = ['scripts.dokku.predeploy', 'scripts.dokku.postdeploy'];

/** Formation keys Dokku documents that longshore does not act on. */
const UNSUPPORTED_FORMATION_KEYS = ['service'];

/**
 * Every key of the document that longshore does not act on, as a JSON path, sorted: top-level
 * keys (`env`, `buildpacks`…; `scripts` by its leaves, `scripts.postdeploy`), and the
 * formation settings it skips (`formation.web.autoscaling`). The deploy reports them once, as a
 * warning, instead of dropping them silently.
 */
export function unsupportedAppJsonKeys(doc: unknown): string[] {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if ((SUPPORTED_APP_JSON_KEYS as readonly string[]).includes(key)) continue;
    if (DESCRIPTIVE_KEYS.includes(key)) continue;
    out.push(
      ...leafPaths([key], value, key === 'scripts' ? 2 : 0).filter((p) => !SUPPORTED_PATHS.includes(p)),
    );
  }
  const formation = (doc as { formation?: unknown }).formation;
  if (typeof formation === 'object' && formation !== null) {
    for (const [type, entry] of Object.entries(formation)) {
      if (typeof entry !== 'object' || entry === null) continue;
      for (const key of UNSUPPORTED_FORMATION_KEYS)
        if (Object.hasOwn(entry, key)) out.push(jsonPath(['formation', type, key]));
    }
  }
  return [...new Set(out)].sort();
}

/** `path` itself, or (up to `depth` levels down an object) the paths of its members. */
function leafPaths(path: string[], value: unknown, depth: number): string[] {
  if (depth === 0 || typeof value !== 'object' || value === null || Array.isArray(value))
    return [jsonPath(path)];
  const keys = Object.keys(value);
  if (keys.length === 0) return [jsonPath(path)];
  return keys.flatMap((k) => leafPaths([...path, k], (value as Record<string, unknown>)[k], depth - 1));
}

/** `formation.web.quantity`, `cron[0].schedule`: the path as a person would write it in the file. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (typeof part === 'string' && /^[A-Za-z_$][\w$-]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

export function issuesOf(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({ path: jsonPath(issue.path), message: issue.message }));
}

/** Where in the text a JSON.parse error points: V8 says `position N`; people want line and column. */
function parseErrorMessage(err: Error, text: string): string {
  const message = err.message;
  const at = /at position (\d+)/.exec(message);
  if (!at || /line \d+/.test(message)) return message;
  const position = Number(at[1]);
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `${message} (line ${line} column ${column})`;
}

function probeOf(check: AppJsonHealthcheck): Probe {
  return {
    type: check.command ? 'exec' : check.path ? 'http' : 'tcp',
    ...(check.path ? { path: check.path } : {}),
    ...(check.port !== undefined ? { port: check.port } : {}),
    ...(check.command ? { command: check.command } : {}),
    ...(check.initialDelay !== undefined ? { initialDelaySeconds: check.initialDelay } : {}),
    ...(check.timeout !== undefined ? { timeoutSeconds: check.timeout } : {}),
    ...(check.wait !== undefined ? { periodSeconds: check.wait } : {}),
    ...(check.attempts !== undefined ? { failureThreshold: check.attempts } : {}),
  };
}

/** The payload's form of an autoscaling block: KEDA's metadata is strings only (map[string]string). */
function autoscalingOf(a: AppJsonAutoscaling): Autoscaling {
  return {
    // KEDA's default minReplicaCount (keda.sh/docs/latest/reference/scaledobject-spec).
    minReplicas: a.min_quantity ?? 0,
    maxReplicas: a.max_quantity,
    ...(a.polling_interval_seconds !== undefined
      ? { pollingIntervalSeconds: a.polling_interval_seconds }
      : {}),
    ...(a.cooldown_seconds !== undefined ? { cooldownSeconds: a.cooldown_seconds } : {}),
    triggers: a.triggers.map((t) => ({
      type: t.type as Autoscaling['triggers'][number]['type'],
      metadata: Object.fromEntries(Object.entries(t.metadata ?? {}).map(([k, v]) => [k, String(v)])),
    })),
  };
}

const POLICY = { allow: 'Allow', forbid: 'Forbid', replace: 'Replace' } as const;

export function parseAppJson(text: string, source = 'app.json'): AppJsonParts {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError(
      [{ path: '', message: `is not valid JSON: ${parseErrorMessage(err as Error, text)}` }],
      source,
    );
  }
  const parsed = appJsonDocument.safeParse(raw);
  if (!parsed.success) throw new InvalidInputError(issuesOf(parsed.error), source);
  const doc = parsed.data;

  const formation: AppJsonParts['formation'] = {};
  for (const [type, entry] of Object.entries(doc.formation ?? {}))
    formation[type] = {
      ...(entry.quantity !== undefined ? { replicas: entry.quantity } : {}),
      ...(entry.max_parallel !== undefined ? { maxParallel: entry.max_parallel } : {}),
      ...(entry.autoscaling !== undefined ? { autoscaling: autoscalingOf(entry.autoscaling) } : {}),
    };

  const parts: AppJsonParts = { formation, unsupported: unsupportedAppJsonKeys(raw) };
  const predeploy = doc.scripts?.dokku?.predeploy;
  if (predeploy !== undefined) parts.predeploy = predeploy;
  const postdeploy = doc.scripts?.dokku?.postdeploy;
  if (postdeploy !== undefined) parts.postdeploy = postdeploy;
  if (doc.healthchecks) {
    parts.healthchecks = {};
    for (const [type, checks] of Object.entries(doc.healthchecks)) {
      const probes: Probes = {};
      for (const check of checks) probes[check.type ?? 'startup'] = probeOf(check);
      parts.healthchecks[type] = probes;
    }
  }
  if (doc.cron) {
    parts.cron = doc.cron.map((task) => {
      const suspend = task.maintenance ?? task.suspend;
      return {
        command: task.command,
        schedule: task.schedule,
        concurrencyPolicy: POLICY[task.concurrency_policy ?? 'forbid'],
        suspend: suspend ?? false,
      };
    });
  }
  return parts;
}

/**
 * The app.json format as Dokku documents it (dokku.com/docs/appendices/file-formats/app-json and
 * docker-container-healthchecker's file format), for the parts longshore deploys: `formation`,
 * `cron` and `healthchecks`. Every message says what is accepted and what was found, because it
 * reaches a person through the CLI (`cron[0].schedule: must have 5 fields …`).
 *
 * Unknown keys: at the top level they are accepted, as Dokku accepts them (an app.json also holds
 * `name`, `env`, `scripts`, `buildpacks`…), and the deploy reports the ones that matter by name
 * (unsupportedAppJsonKeys in app-json.ts). Inside a formation,
 * cron or healthcheck entry, keys Dokku documents but longshore does not implement are either
 * accepted (`name`, `description`; `service`, reported like the above) or
 * refused with the reason (when ignoring them would run something other than what was asked:
 * `uptime`, `httpHeaders`…); any other key is refused as unknown, since it is most likely a typo
 * (`quantitiy`) that Dokku would silently drop.
 */
import { z } from 'zod';
import {
  AUTOSCALING_REPLICAS_MAX,
  AUTOSCALING_SECONDS_MAX,
  KEDA_TRIGGER_TYPES,
} from '../../../rules/autoscaling.ts';
import { cronSchedule, PROCESS_TYPE_MAX, processType } from '../../jobs/schemas/common.ts';

/** What a JSON value is, for "got …" in messages. */
export function describeJson(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value === 'number' ? 'the number' : typeof value} ${String(value)}`;
}

const expected =
  (what: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? `is required (${what})` : `must be ${what}; got ${describeJson(issue.input)}`;

/** A whole number from `min` to `max`, with one message for every way to miss it. */
function wholeNumber(min: number, max: number, unit = '') {
  const what = `a whole number from ${min} to ${max}${unit}`;
  return z
    .number({ error: expected(what) })
    .int({ error: expected(what) })
    .min(min, { error: expected(what) })
    .max(max, { error: expected(what) });
}

/** Keys of an entry: those longshore reads, those it ignores, and those it refuses with a reason. */
function entry<Shape extends z.ZodRawShape>(
  what: string,
  shape: Shape,
  ignored: string[],
  unsupported: Record<string, string> = {},
) {
  const known = [...Object.keys(shape), ...ignored, ...Object.keys(unsupported)];
  const ignoredShape = Object.fromEntries(ignored.map((k) => [k, z.unknown().optional()]));
  const unsupportedShape = Object.fromEntries(
    Object.entries(unsupported).map(([k, why]) => [
      k,
      z.undefined({ error: `is not supported by longshore: ${why}` }).optional(),
    ]),
  );
  // Typed as `shape` alone: the ignored and refused keys never reach the parsed value's users.
  return z.strictObject({ ...ignoredShape, ...unsupportedShape, ...shape } as Shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} (${what} takes ${known.join(', ')})`
        : expected(`${what} (an object)`)(issue),
  });
}

/** An object keyed by process type, each key checked like a Procfile's. */
function byProcessType<T extends z.ZodType>(what: string, value: T) {
  return z.record(z.string(), value, { error: expected(what) }).superRefine((record, ctx) => {
    for (const type of Object.keys(record)) {
      const valid = processType.safeParse(type);
      if (!valid.success) {
        ctx.addIssue({
          code: 'custom',
          path: [type],
          message: `"${type}" is not a process type name: ${valid.error.issues[0]?.message ?? `at most ${PROCESS_TYPE_MAX} characters`}`,
        });
      }
    }
  });
}

export const FORMATION_QUANTITY_MAX = 1000;

export const MAX_PARALLEL_MAX = 1000;

const KEDA_TRIGGERS: readonly string[] = KEDA_TRIGGER_TYPES;

const autoscalingTrigger = entry(
  'an autoscaling trigger',
  {
    type: z
      .string({ error: expected('a KEDA scaler name such as "cpu", "memory", "redis" or "prometheus"') })
      .refine((t) => KEDA_TRIGGERS.includes(t), {
        error: (issue) =>
          `is not a KEDA scaler: ${describeJson(issue.input)} (keda.sh/docs/latest/scalers lists them, e.g. cpu, memory, redis, prometheus, rabbitmq)`,
      }),
    metadata: z
      .record(
        z.string().min(1).max(253),
        z.union([z.string(), z.number(), z.boolean()], { error: expected('a string') }),
        { error: expected('an object of scaler settings, e.g. {"value": "60"}') },
      )
      .optional(),
  },
  [],
);

/** Dokku's k3s scheduler autoscaling block: a KEDA ScaledObject (charts/app/autoscaler.ts). */
const autoscalingEntry = entry(
  'an autoscaling block',
  {
    min_quantity: wholeNumber(0, AUTOSCALING_REPLICAS_MAX).optional(),
    max_quantity: wholeNumber(1, AUTOSCALING_REPLICAS_MAX),
    polling_interval_seconds: wholeNumber(1, AUTOSCALING_SECONDS_MAX, ' (seconds)').optional(),
    cooldown_seconds: wholeNumber(0, AUTOSCALING_SECONDS_MAX, ' (seconds)').optional(),
    triggers: z
      .array(autoscalingTrigger, {
        error: expected('a list of triggers, e.g. [{"type": "cpu", "metadata": {"value": "60"}}]'),
      })
      .min(1, { error: 'must name at least one trigger' })
      .max(20, { error: 'must have at most 20 triggers' }),
  },
  [],
).superRefine((a, ctx) => {
  if (a.min_quantity !== undefined && a.min_quantity > a.max_quantity) {
    ctx.addIssue({
      code: 'custom',
      path: ['min_quantity'],
      message: `is ${a.min_quantity}, above max_quantity ${a.max_quantity}`,
    });
  }
});

export type AppJsonAutoscaling = z.infer<typeof autoscalingEntry>;

const formationEntry = entry(
  'a formation entry',
  {
    quantity: wholeNumber(0, FORMATION_QUANTITY_MAX).optional(),
    /** Pods rolled at once: the Deployment's rolling update (charts/app/rollout.ts). */
    max_parallel: wholeNumber(1, MAX_PARALLEL_MAX).optional(),
    autoscaling: autoscalingEntry.optional(),
  },
  // Dokku's service settings: not acted on, and reported as such with every deploy
  // (unsupportedAppJsonKeys in app-json.ts).
  ['service'],
);

const CONCURRENCY = ['allow', 'forbid', 'replace'] as const;

const cronEntry = entry(
  'a cron task',
  {
    command: z
      .string({ error: expected('a command (a non-empty string)') })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(4096, { error: 'must be at most 4096 characters' }),
    schedule: z.string({ error: expected('a schedule such as "0 1 * * *" or "@daily"') }).pipe(cronSchedule),
    concurrency_policy: z
      .string({ error: expected(`one of ${CONCURRENCY.join(', ')}`) })
      .transform((p) => p.toLowerCase())
      .pipe(z.enum(CONCURRENCY, { error: expected(`one of ${CONCURRENCY.join(', ')}`) }))
      .optional(),
    /** Dokku: a task in maintenance is not run (a suspended CronJob). */
    maintenance: z.boolean({ error: expected('true or false') }).optional(),
    /** longshore's earlier name for `maintenance`, still read. */
    suspend: z.boolean({ error: expected('true or false') }).optional(),
  },
  ['name', 'description'],
).superRefine((task, ctx) => {
  if (task.maintenance !== undefined && task.suspend !== undefined && task.maintenance !== task.suspend) {
    ctx.addIssue({
      code: 'custom',
      path: ['suspend'],
      message: 'contradicts "maintenance" (the same setting under its older name); give one',
    });
  }
});

export const PROBE_TYPES = ['startup', 'readiness', 'liveness'] as const;

const healthcheckEntry = entry(
  'a healthcheck',
  {
    type: z.enum(PROBE_TYPES, { error: expected(`one of ${PROBE_TYPES.join(', ')}`) }).optional(),
    path: z
      .string({ error: expected('an HTTP path such as "/health"') })
      .startsWith('/', { error: 'must start with "/" (an HTTP path such as "/health")' })
      .max(2048, { error: 'must be at most 2048 characters' })
      .optional(),
    command: z
      .array(z.string({ error: expected('a string') }).min(1, { error: 'must not be empty' }), {
        error: expected('a command as a list of strings, e.g. ["/app/check.sh", "--ready"]'),
      })
      .min(1, { error: 'must name a command (a list of at least one string)' })
      .optional(),
    port: wholeNumber(1, 65_535).optional(),
    scheme: z
      .literal('http', { error: expected('"http" (https probes are not supported by longshore)') })
      .optional(),
    listening: z.boolean({ error: expected('true or false') }).optional(),
    initialDelay: wholeNumber(0, 3600, ' (seconds)').optional(),
    timeout: wholeNumber(1, 3600, ' (seconds)').optional(),
    wait: wholeNumber(1, 3600, ' (seconds)').optional(),
    attempts: wholeNumber(1, 100).optional(),
  },
  ['name', 'description'],
  {
    uptime: 'Kubernetes has no uptime probe; use "path", "command" or "listening": true',
    content: 'Kubernetes HTTP probes check the status code only, not the body',
    httpHeaders: 'the probe would be sent without the headers',
    onFailure: 'Kubernetes restarts or unroutes a failing pod; it runs no failure hook',
    warn: 'every Kubernetes probe counts; a failing one cannot only warn',
  },
).superRefine((check, ctx) => {
  if (check.command && check.path) {
    ctx.addIssue({
      code: 'custom',
      message: 'has both "command" (an exec check) and "path" (an HTTP check); give one',
    });
  }
  if (check.command && check.port !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['port'],
      message: 'is not used by a "command" check (it runs inside the container); remove it',
    });
  }
  if (check.listening && (check.command || check.path)) {
    ctx.addIssue({
      code: 'custom',
      message: 'has "listening": true (a TCP check) and also "command" or "path"; give one',
    });
  }
});

export type AppJsonHealthcheck = z.infer<typeof healthcheckEntry>;

const healthcheckList = z
  .array(healthcheckEntry, {
    error: expected('a list of healthchecks, e.g. [{"type": "startup", "path": "/"}]'),
  })
  .superRefine((checks, ctx) => {
    const seen = new Map<string, number>();
    for (const [index, check] of checks.entries()) {
      const kind = check.type ?? 'startup';
      const first = seen.get(kind);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [index],
          message: `is a second ${kind} check (the first is [${first}]); a Kubernetes container has one ${kind} probe`,
        });
      } else seen.set(kind, index);
    }
  });

/**
 * `scripts.dokku.predeploy`: the release task (the same phase as a Procfile `release` here, since
 * images are built elsewhere and nothing is committed to them); `scripts.dokku.postdeploy`: the
 * postdeploy task, run after the rollout. Other scripts are not read here.
 */
const scriptCommand = (when: string) =>
  z
    .string({ error: expected('a command (a non-empty string)') })
    .trim()
    .min(1, { error: `must not be empty (a command to run ${when})` })
    .max(4096, { error: 'must be at most 4096 characters' })
    .optional();

const scripts = z
  .object(
    {
      dokku: z
        .object(
          {
            predeploy: scriptCommand('before the rollout'),
            postdeploy: scriptCommand('after the rollout'),
          },
          { error: expected('an object, e.g. {"predeploy": "bin/migrate"}') },
        )
        .nullish(),
    },
    { error: expected('an object, e.g. {"dokku": {"predeploy": "bin/migrate"}}') },
  )
  .nullish();

export const appJsonDocument = z.object(
  {
    scripts,
    formation: byProcessType(
      'an object of process types, e.g. {"web": {"quantity": 2}}',
      formationEntry,
    ).nullish(),
    cron: z
      .array(cronEntry, {
        error: expected('a list of cron tasks, e.g. [{"command": "bin/report", "schedule": "@daily"}]'),
      })
      .max(100, { error: 'must have at most 100 cron tasks' })
      .nullish(),
    healthchecks: byProcessType(
      'an object of process types, e.g. {"web": [{"type": "startup", "path": "/"}]}',
      healthcheckList,
    ).nullish(),
  },
  { error: expected('a JSON object') },
);

export type AppJsonDocument = z.infer<typeof appJsonDocument>;

/**
 * Field schemas shared by the job contracts. Messages say what is accepted, because they reach a
 * person through the CLI ("app: must be ...").
 */
import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';

/**
 * Longest app name. Chosen so every name derived from it fits its Kubernetes limit without
 * shortening in the common cases: `pull-secret-{app}` release label (12 + 30 = 42 ≤ 63),
 * `{app}-{process}` Deployments and label values (30 + 1 + 20 = 51 ≤ 63),
 * `{app}-cron-{suffix}` CronJobs (30 + 6 + 8 = 44 ≤ 52). See docs/architecture.md ("Names").
 */
export const APP_NAME_MAX = 30;
/** Longest process type (`web`, `worker`…): `{app}-{process}` stays a valid DNS-1035 name. */
export const PROCESS_TYPE_MAX = 20;
/** Longest storage entry name: the `storage-{entry}` release name stays a label value (8 + 45 ≤ 63). */
export const STORAGE_NAME_MAX = 45;

/**
 * Release names are `{app}`, `config-{app}`, `pull-secret-{app}`, `tls-{app}` and `storage-{entry}`:
 * an app named `config-web` would own the same release name as the config of app `web`.
 */
export const RESERVED_APP_PREFIXES = ['config-', 'pull-secret-', 'tls-', 'storage-'] as const;

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const appName = z
  .string({ error: 'is required (an app name)' })
  .min(1, 'is required (an app name)')
  .max(APP_NAME_MAX, `must be at most ${APP_NAME_MAX} characters`)
  .regex(
    DNS1035_LABEL,
    'must be lowercase letters, digits and "-", start with a letter and end with a letter or digit',
  )
  .refine((name) => !RESERVED_APP_PREFIXES.some((p) => name.startsWith(p)), {
    message: `must not start with ${RESERVED_APP_PREFIXES.map((p) => `"${p}"`).join(', ')} (reserved for the app's own releases)`,
  });

export const processType = z
  .string()
  .max(PROCESS_TYPE_MAX, `must be at most ${PROCESS_TYPE_MAX} characters`)
  .regex(
    DNS1035_LABEL,
    'must be lowercase letters, digits and "-", starting with a letter (e.g. web, worker)',
  );

export const storageName = z
  .string({ error: 'is required (a storage entry name)' })
  .min(1, 'is required (a storage entry name)')
  .max(STORAGE_NAME_MAX, `must be at most ${STORAGE_NAME_MAX} characters`)
  .regex(
    DNS1123_LABEL,
    'must be lowercase letters, digits and "-", starting and ending with a letter or digit',
  );

export const namespaceName = z
  .string()
  .max(63, 'must be at most 63 characters')
  .regex(DNS1123_LABEL, 'must be a DNS-1123 label (lowercase letters, digits and "-")');

/** Environment variable names as Dokku accepts them. */
export const envKey = z
  .string()
  .min(1, 'must not be empty')
  .max(253, 'must be at most 253 characters')
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be letters, digits and "_", not starting with a digit');

/**
 * Container image reference (docker/distribution grammar): `[registry[:port]/]path[:tag][@digest]`.
 * The first path component counts as a registry when it has a dot or a port, or is `localhost`.
 */
const IMAGE =
  /^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*)(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$/;

export const imageRef = z
  .string({
    error: 'is required (an image reference such as registry.example.com/team/web:1.4 or …@sha256:…)',
  })
  .min(1, 'is required (an image reference such as registry.example.com/team/web:1.4 or …@sha256:…)')
  .max(512, 'must be at most 512 characters')
  .regex(IMAGE, 'must be an image reference such as nginx:1.27, ghcr.io/team/web:1.4 or name@sha256:<digest>')
  .refine((ref) => {
    // Without a dot, a port or "localhost", the first component is a path, and paths are lowercase.
    const [first, ...rest] = ref.split('/');
    return (
      rest.length === 0 || /[.:]/.test(first!) || first === 'localhost' || first === first!.toLowerCase()
    );
  }, 'must be lowercase in its repository path (only a registry host may have capitals)');

export const gitSha = z
  .string()
  .regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/, 'must be a full git commit id (40 or 64 hex characters)');

/** Kubernetes resource quantity for storage and memory (`512Mi`, `10Gi`, `1G`). */
export const quantity = z
  .string()
  .regex(
    /^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/,
    'must be a Kubernetes quantity such as 512Mi or 10Gi',
  )
  .refine((q) => Number.parseFloat(q) > 0, 'must be greater than zero');

export const cpuQuantity = z
  .string()
  .regex(/^([0-9]+m|[0-9]+(\.[0-9]{1,3})?)$/, 'must be a CPU quantity such as 250m or 1.5')
  .refine((q) => Number.parseFloat(q) > 0, 'must be greater than zero');

/** Hostnames for ingresses: DNS-1123 subdomain, optionally with a leading `*.` wildcard; never an IP. */
export const domainName = z
  .string()
  .max(253, 'must be at most 253 characters')
  .transform((d) => d.toLowerCase())
  .refine(
    (d) => /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(d),
    'must be a hostname such as app.example.com or *.example.com',
  )
  .refine((d) => d.split('.').every((label) => label.length <= 63), 'each part must be at most 63 characters')
  .refine((d) => !/^[0-9.]+$/.test(d), 'must be a hostname, not an IP address');

export const PORT_SCHEMES = ['http', 'https', 'tcp', 'udp', 'grpc', 'grpcs'] as const;

/** Dokku port map `scheme:host:container`, e.g. `http:80:5000`. */
export const portMap = z
  .string()
  .regex(
    /^(http|https|tcp|udp|grpc|grpcs):[0-9]{1,5}:[0-9]{1,5}$/,
    `must be scheme:host-port:container-port with scheme one of ${PORT_SCHEMES.join(', ')} (e.g. http:80:5000)`,
  )
  .refine((m) => {
    const [, host, container] = m.split(':').map(Number);
    return host! >= 1 && host! <= 65_535 && container! >= 1 && container! <= 65_535;
  }, 'ports must be from 1 to 65535');

const CRON_MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const CRON_FIELD = /^[0-9*?,/-]+$/;
const CRON_NAMED_FIELD =
  /^([0-9*?,/-]|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT)+$/i;

/**
 * Cron schedule as a Kubernetes CronJob accepts it: five fields (minute hour day-of-month month
 * day-of-week) or a macro such as @daily. Seconds fields, `L`, `W`, `#` and `TZ=` are refused
 * because the cluster's parser refuses them.
 */
export const cronSchedule = z
  .string()
  .trim()
  .superRefine((schedule, ctx) => {
    if (CRON_MACROS.includes(schedule)) return;
    const fields = schedule.split(/\s+/);
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (schedule.startsWith('TZ=') || schedule.startsWith('CRON_TZ=')) {
      return fail('must not set a time zone (cron tasks run in Etc/UTC)');
    }
    if (fields.length !== 5) {
      return fail(
        `must have 5 fields (minute hour day-of-month month day-of-week) or be one of ${CRON_MACROS.join(', ')}; got ${fields.length}`,
      );
    }
    const badField = fields.findIndex((f, i) => !(i >= 3 ? CRON_NAMED_FIELD : CRON_FIELD).test(f));
    if (badField >= 0)
      return fail(`field ${badField + 1} ("${fields[badField]}") has characters a CronJob does not accept`);
    try {
      CronExpressionParser.parse(schedule.replaceAll('?', '*'));
    } catch (err) {
      fail(`is not a valid cron expression: ${(err as Error).message}`);
    }
  });

export const nonNegativeInt = (max: number) =>
  z.number().int('must be a whole number').min(0, 'must be 0 or more').max(max, `must be at most ${max}`);

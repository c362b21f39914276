/**
 * The names of the objects an app renders, and how they fit Kubernetes' limits.
 *
 * Every name is unique per (kind, namespace) across apps by construction (docs/apps.md, "Names"):
 * - ServiceAccount `{app}`, Service `{app}-web`, CronJob `{app}-cron-{suffix}` (suffix has no
 *   `-`), Secrets `config-{app}` / `pull-secret-{app}`: the app is the whole name or a part that
 *   the fixed rest of the name delimits, so two apps never meet. The same holds for a run's Job
 *   `{app}-run-{suffix}` and its Secret `{app}-run-{suffix}-env` (the suffix has no `-`).
 * - Deployment `{app}-{process}` while the process type has no `-` (its last `-` then splits app
 *   from process); a process type with a `-` gets the app name's length as a marker,
 *   `{app}-{process}-{length}`, which starts with a digit and so can never be a process type:
 *   the marker says which case a name is and where app and process meet.
 * - Ingress `{app}-web-{domain slug}-{hash}`, the hash of app and domain: a domain slug always
 *   has a `-` and is not even unique per domain, so no name without a hash would be.
 * Names longer than their limit are shortened with a hash of the full name (fitName); with app
 * names of at most 30 characters and process types of at most 20 that never happens to
 * Deployments, Services or CronJobs, and Ingress names are cut before their hash is added.
 */
import { LABEL_VALUE_MAX } from '../rules/labels.ts';
import { DNS1123_LABEL_MAX } from '../rules/names.ts';
import { sha256Hex } from './hash.ts';

export { LABEL_VALUE_MAX };

/** DNS-1123/1035 label: Deployment, Service and Ingress names here, Secret names, volume names. */
export const DNS_LABEL_MAX = DNS1123_LABEL_MAX;
/** A CronJob's name gets 11 characters appended for its Jobs' names, so it may have only 52. */
export const CRONJOB_NAME_MAX = 52;
/** Ingress names leave room for `-tls`, the name of their TLS Secret, within a DNS label. */
export const INGRESS_NAME_MAX = DNS_LABEL_MAX - '-tls'.length;

/** Hex characters of the hash suffix: 32 bits, enough to keep the few names of one app apart. */
const HASH_LENGTH = 8;

/**
 * `name` unchanged when it is at most `max` characters; otherwise a prefix of it, `-`, and 8 hex
 * characters of sha256(name), at most `max` in all. Trailing `-`/`.` are cut from the prefix so
 * the result stays a DNS-1123 label (or subdomain) when the input was one.
 */
export function fitName(name: string, max: number): string {
  if (max < HASH_LENGTH + 2) throw new RangeError(`fitName: max must be at least ${HASH_LENGTH + 2}`);
  if (name.length <= max) return name;
  const hash = sha256Hex(name).slice(0, HASH_LENGTH);
  const prefix = name.slice(0, max - HASH_LENGTH - 1).replace(/[-.]+$/, '');
  return prefix ? `${prefix}-${hash}` : hash;
}

/**
 * A domain as a label fragment: `app.example.com` → `app-example-com`, `*.example.com` →
 * `wildcard-example-com`. Not injective (`a-b.com` and `a.b.com` meet): only readable, never an
 * identity on its own.
 */
export function domainSlug(domain: string): string {
  const lower = domain.toLowerCase();
  const body = lower.startsWith('*.') ? `wildcard-${lower.slice(2)}` : lower;
  return body.replace(/[^a-z0-9-]/g, '-').replace(/^-+|-+$/g, '');
}

/** 8 hex characters of sha256(text): a short, stable disambiguator. */
export function shortHash(text: string): string {
  return sha256Hex(text).slice(0, HASH_LENGTH);
}

/**
 * A process's Deployment name, also its `instance` label: `{app}-{process}`, or
 * `{app}-{process}-{app.length}` when the process type has a `-` (see the file comment).
 */
export function processObjectName(app: string, process: string): string {
  return fitName(
    process.includes('-') ? `${app}-${process}-${app.length}` : `${app}-${process}`,
    DNS_LABEL_MAX,
  );
}

/**
 * An Ingress's name: `{app}-web-{slug}` cut to leave room for the hash, then 8 hex characters of
 * sha256 of `{app}/{domain}` (neither contains a `/`), so two (app, domain) pairs share a name
 * only if their hashes collide.
 */
export function ingressName(app: string, domain: string): string {
  const readable = `${app}-web-${domainSlug(domain)}`
    .slice(0, INGRESS_NAME_MAX - HASH_LENGTH - 1)
    .replace(/-+$/, '');
  return `${readable}-${shortHash(`${app}/${domain}`)}`;
}

/**
 * A one-off run's Job: `{app}-run-{suffix}`. At most 63 characters, not the 253 of an object name:
 * the Job controller puts the name in its pods' `batch.kubernetes.io/job-name` label, a label value.
 * With app names of at most 30 characters and the 8-character suffix of `run` jobs it is 43 and
 * never shortened. The suffix has no `-`, so the last `-run-` splits app from suffix and two apps'
 * runs never share a name.
 */
export function runJobName(app: string, suffix: string): string {
  return fitName(`${app}-run-${suffix}`, DNS_LABEL_MAX);
}

/** The Secret holding a run's own `--env` values: `{job}-env`, owned by the Job. */
export function runEnvSecretName(jobName: string): string {
  return `${jobName}-env`;
}

/**
 * The PersistentVolumeClaim of a storage entry (and, with a hostPath, its PersistentVolume):
 * `storage-{entry}`, as its release is named. The storage chart creates it and the app chart's
 * volumes claim it, so both read the name here. Entries have at most 45 characters: it fits.
 */
export function storageObjectName(entry: string): string {
  return `storage-${entry}`;
}

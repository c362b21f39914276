/**
 * Field schemas shared by the job contracts. Messages say what is accepted, because they reach a
 * person through the CLI ("app: must be ..."). Rules the charts, storage and kube-sim apply too
 * (names, hostnames, port maps, quantities, cron schedules) are defined once in rules/ and
 * re-exported here under the names the contracts use.
 */
import { z } from 'zod';
import { appName as appNameFormat } from '../../../rules/app-names.ts';
import { dns1123Label } from '../../../rules/name-schemas.ts';

export {
  APP_NAME_MAX,
  PROCESS_TYPE_MAX,
  processType,
  STORAGE_NAME_MAX,
  storageName,
} from '../../../rules/app-names.ts';

import { envName } from '../../../rules/env-names.ts';

export { cronSchedule } from '../../../rules/cron.ts';
export { hostnameInput as domainName } from '../../../rules/domains.ts';
export { PORT_SCHEMES, portMap } from '../../../rules/port-maps.ts';
export { byteQuantity as quantity, cpuQuantity } from '../../../rules/quantities.ts';

/**
 * Release names are `{app}`, `config-{app}`, `pull-secret-{app}`, `tls-{app}` and `storage-{entry}`:
 * an app named `config-web` would own the same release name as the config of app `web`.
 */
export const RESERVED_APP_PREFIXES = ['config-', 'pull-secret-', 'tls-', 'storage-'] as const;

/** An app name (rules/app-names.ts) that is not one of the app's own release names. */
export const appName = appNameFormat.refine(
  (name) => !RESERVED_APP_PREFIXES.some((p) => name.startsWith(p)),
  {
    message: `must not start with ${RESERVED_APP_PREFIXES.map((p) => `"${p}"`).join(', ')} (reserved for the app's own releases)`,
  },
);

export const namespaceName = dns1123Label({ required: 'is required (a namespace)' });

/** Environment variable names as Dokku accepts them. */
export const envKey = envName;

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

export const nonNegativeInt = (max: number) =>
  z.number().int('must be a whole number').min(0, 'must be 0 or more').max(max, `must be at most ${max}`);

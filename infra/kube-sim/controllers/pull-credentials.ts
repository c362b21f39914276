/**
 * Which registry credentials a Pod's pull has, as the kubelet finds them:
 * - getPullSecretsForPod (pkg/kubelet/kubelet_pods.go): every imagePullSecrets entry that names an
 *   existing Secret is used; missing ones are listed in one Warning event
 *   `FailedToRetrieveImagePullSecret` and the pull goes on without them;
 * - the credential keyring (pkg/credentialprovider/keyring.go, config.go): the Secrets'
 *   `.dockerconfigjson` (kubernetes.io/dockerconfigjson) or `.dockercfg` (kubernetes.io/dockercfg)
 *   entries, keyed by registry host (optionally with a path prefix, scheme and `/v1/` ignored),
 *   match an image by its registry host and repository path. Docker Hub answers to `docker.io`,
 *   `index.docker.io` and `registry-1.docker.io` alike.
 */
import type { KubeObject } from '../types.ts';
import { normalizedImage } from './container-runtime.ts';

/** The kubelet's event message for pull secrets it could not read. */
export function missingPullSecretsMessage(names: string[]): string {
  return `Unable to retrieve some image pull secrets (${names.join(', ')}); attempting to pull the image may not succeed.`;
}

const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);
const canonicalHost = (host: string) =>
  DOCKER_HUB.has(host.toLowerCase()) ? 'docker.io' : host.toLowerCase();

/** Registry host and repository path of an image (`docker.io`, `library/nginx`). */
export function imageRegistry(image: string): { host: string; path: string } {
  const ref = normalizedImage(image).replace(/@.*$/, '');
  const slash = ref.indexOf('/');
  const repo = ref.slice(slash + 1).replace(/:[^:/]*$/, '');
  return { host: canonicalHost(ref.slice(0, slash)), path: repo };
}

/** A keyring key (`https://index.docker.io/v1/`, `registry.example.com/team`) as host and path prefix. */
function parseKey(key: string): { host: string; path: string } {
  const bare = key.replace(/^[a-z]+:\/\//i, '').replace(/\/v[12]\/?$/, '');
  const slash = bare.indexOf('/');
  const host = slash < 0 ? bare : bare.slice(0, slash);
  const path = slash < 0 ? '' : bare.slice(slash + 1).replace(/\/+$/, '');
  return { host: canonicalHost(host), path };
}

function decode(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The keyring entries one pull Secret contributes: registry key → whether it holds a credential. */
function entriesOf(secret: KubeObject): [string, boolean][] {
  const data = (secret.data ?? {}) as Record<string, unknown>;
  const config =
    secret.type === 'kubernetes.io/dockerconfigjson'
      ? (decode(data['.dockerconfigjson']) as { auths?: unknown } | undefined)?.auths
      : secret.type === 'kubernetes.io/dockercfg'
        ? decode(data['.dockercfg'])
        : undefined;
  if (typeof config !== 'object' || config === null) return [];
  return Object.entries(config as Record<string, unknown>).map(([key, entry]) => {
    const e = (entry ?? {}) as {
      auth?: unknown;
      username?: unknown;
      password?: unknown;
      identitytoken?: unknown;
    };
    const has = (v: unknown) => typeof v === 'string' && v !== '';
    return [key, has(e.auth) || (has(e.username) && has(e.password)) || has(e.identitytoken)];
  });
}

/** True when one of the Secrets holds a credential for the image's registry (and repository path). */
export function hasCredentialFor(image: string, secrets: KubeObject[]): boolean {
  const { host, path } = imageRegistry(image);
  return secrets.some((secret) =>
    entriesOf(secret).some(([key, holds]) => {
      if (!holds) return false;
      const k = parseKey(key);
      return k.host === host && (k.path === '' || path === k.path || path.startsWith(`${k.path}/`));
    }),
  );
}

/** True when the image's registry is one the settings call private (hosts, `*.suffix` globs). */
export function isPrivateRegistry(image: string, privateRegistries: string[]): boolean {
  const { host } = imageRegistry(image);
  return privateRegistries.some((pattern) => {
    const p = canonicalHost(pattern);
    return p.startsWith('*.') ? host.endsWith(p.slice(1)) : host === p;
  });
}

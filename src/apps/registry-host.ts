/**
 * Which registry an image is pulled from, and whether a `docker login` server names it. Pure; the
 * deploy pipeline and `registry:login --global` use it to decide which apps a fleet-wide
 * credential applies to. Follows the image grammar of src/jobs/schemas/common.ts: the first path
 * component is a registry host when it has a dot or a port, or is `localhost`; otherwise the image
 * comes from Docker Hub.
 */

const DOCKER_HUB = 'docker.io';
/** Names `docker login` accepts for Docker Hub; the kubelet treats them alike. */
const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** The registry host of an image reference (`ghcr.io`, `registry.example.com:5000`, `docker.io`). */
export function registryHostOf(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return DOCKER_HUB;
  const first = image.slice(0, slash);
  if (first.includes('.') || first.includes(':') || first === 'localhost') {
    return normalizeRegistryServer(first);
  }
  return DOCKER_HUB;
}

/**
 * A server as `docker login` takes it, reduced to the host it names: scheme and path dropped
 * (`https://index.docker.io/v1/` → `docker.io`), lowercase (hosts are case-insensitive).
 */
export function normalizeRegistryServer(server: string): string {
  const host = server
    .trim()
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/\/.*$/, '')
    .toLowerCase();
  return DOCKER_HUB_ALIASES.has(host) ? DOCKER_HUB : host;
}

/** Whether an app running `image` pulls from `server`. */
export function pullsFrom(image: string, server: string): boolean {
  return registryHostOf(image) === normalizeRegistryServer(server);
}

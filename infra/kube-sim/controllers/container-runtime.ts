/**
 * What the simulated node's container runtime (containerd, as on kind and most clusters) reports:
 * fully qualified image references, image and container IDs, and the runtime's image pull errors.
 */
import { createHash, randomBytes } from 'node:crypto';

/**
 * The reference containerd reports for an image (docker/reference ParseNormalizedNamed):
 * `nginx` → `docker.io/library/nginx:latest`, `me/app:1` → `docker.io/me/app:1`.
 */
export function normalizedImage(image: string): string {
  const at = image.indexOf('@');
  let name = at >= 0 ? image.slice(0, at) : image;
  const digest = at >= 0 ? image.slice(at) : '';
  const first = name.split('/')[0] ?? '';
  const hasDomain = name.includes('/') && (/[.:]/.test(first) || first === 'localhost');
  if (!hasDomain) name = name.includes('/') ? `docker.io/${name}` : `docker.io/library/${name}`;
  const lastSlash = name.lastIndexOf('/');
  if (!digest && name.lastIndexOf(':') <= lastSlash) name = `${name}:latest`;
  return `${name}${digest}`;
}

/** `docker.io/library/nginx@sha256:…`, stable per image. */
export function imageID(image: string): string {
  const ref = normalizedImage(image);
  const repo = ref.replace(/@.*$/, '').replace(/:[^:/]*$/, '');
  return `${repo}@sha256:${createHash('sha256').update(ref).digest('hex')}`;
}

export function newContainerID(): string {
  return `containerd://${randomBytes(32).toString('hex')}`;
}

/** containerd's error when a tag or repository does not exist (CRI NotFound). */
export function imageNotFoundError(image: string): string {
  const ref = normalizedImage(image);
  return `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;
}

/** containerd's error when the registry wants credentials the pull did not have. */
export function imageUnauthorizedError(image: string): string {
  const ref = normalizedImage(image);
  return `rpc error: code = Unknown desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed`;
}

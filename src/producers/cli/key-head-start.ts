/**
 * A head start for calls that seal a value with the fleet key (config values, registry
 * passwords, run env): scrypt takes about 100 ms of CPU, so bin/longshore.js starts it on libuv's
 * thread pool (src/cli-prelude.ts) before it loads the CLI, and it runs beside module loading and
 * the Redis connection instead of after them (docs/cli-startup.md). Imports only the sealing
 * module; the prelude loads it only for a call that seals (seals-values.ts).
 */
import { deriveKeyInBackground } from '../../jobs/sealing.ts';

/**
 * Starts deriving the key from LONGSHORE_SECRET, read here directly (validating the whole
 * environment would load more than this saves). A missing or short secret is left to the
 * command's own error; a failed derivation only loses the head start.
 */
export function startKeyDerivation(env: NodeJS.ProcessEnv = process.env): boolean {
  const secret = env.LONGSHORE_SECRET;
  if (!secret || secret.length < 32) return false;
  deriveKeyInBackground(secret).catch(() => undefined);
  return true;
}

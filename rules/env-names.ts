/**
 * Environment variable names, as Dokku's config:set accepts them and as `envFrom` can expose them:
 * a C identifier (k8s.io/apimachinery validation's IsCIdentifier, `[A-Za-z_][A-Za-z0-9_]*`). A key
 * of `config-{app}` outside this set would be stored but never reach the container's environment,
 * so the job contract and the config chart refuse it alike.
 */
import { z } from 'zod';

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Secret keys may be 253 characters long (IsConfigMapKey). */
export const ENV_NAME_MAX = 253;
export const ENV_NAME_MESSAGE = 'must be letters, digits and "_", not starting with a digit';

export const isEnvName = (name: string): boolean => name.length <= ENV_NAME_MAX && ENV_NAME.test(name);

export const envName = z
  .string()
  .min(1, 'must not be empty')
  .max(ENV_NAME_MAX, `must be at most ${ENV_NAME_MAX} characters`)
  .regex(ENV_NAME, ENV_NAME_MESSAGE);

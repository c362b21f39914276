/**
 * Values of the config chart: an app's whole environment. The 1 MiB limit is checked here, where
 * the message can name the app's Secret, rather than by the API server after other releases ran.
 */
import { z } from 'zod';
import { ENV_NAME_MESSAGE, isEnvName } from '../../rules/env-names.ts';
import { formatBytes, utf8Bytes } from '../encoding.ts';
import { appName, namespaceName } from '../schemas.ts';

/** The API server's limit on a Secret's data (keys and decoded values). */
export const SECRET_MAX_BYTES = 1_048_576;

export const configValues = z
  .strictObject({
    app: appName,
    namespace: namespaceName,
    env: z.record(z.string(), z.string()),
  })
  .superRefine((values, ctx) => {
    let bytes = 0;
    for (const [key, value] of Object.entries(values.env)) {
      if (!isEnvName(key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['env', key],
          message: `is not an environment variable name (${ENV_NAME_MESSAGE.replace(/^must be /, '')})`,
        });
      }
      bytes += utf8Bytes(key) + utf8Bytes(value);
    }
    if (bytes > SECRET_MAX_BYTES) {
      ctx.addIssue({
        code: 'custom',
        path: ['env'],
        message: `env is ${formatBytes(bytes)} bytes in all; the config-${values.app} Secret holds at most ${formatBytes(SECRET_MAX_BYTES)} bytes`,
      });
    }
  });

export type ConfigChartValues = z.infer<typeof configValues>;

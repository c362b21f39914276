/** Values of the autoscaling-auth chart: trigger type → parameter → value (plaintext, never stored). */
import { z } from 'zod';
import { triggerAuthKey, triggerType } from '../../rules/trigger-auth.ts';
import { SECRET_MAX_BYTES } from '../config/values.ts';
import { formatBytes, utf8Bytes } from '../encoding.ts';
import { appName, namespaceName } from '../schemas.ts';

export const autoscalingAuthValues = z
  .strictObject({
    app: appName,
    namespace: namespaceName,
    triggers: z.partialRecord(triggerType, z.record(triggerAuthKey, z.string())),
  })
  .superRefine((values, ctx) => {
    for (const [trigger, parameters] of Object.entries(values.triggers)) {
      if (Object.keys(parameters).length === 0)
        ctx.addIssue({ code: 'custom', path: ['triggers', trigger], message: 'has no parameters' });
      const bytes = Object.entries(parameters).reduce((n, [k, v]) => n + utf8Bytes(k) + utf8Bytes(v), 0);
      if (bytes > SECRET_MAX_BYTES)
        ctx.addIssue({
          code: 'custom',
          path: ['triggers', trigger],
          message: `is ${formatBytes(bytes)} bytes in all; a Secret holds at most ${formatBytes(SECRET_MAX_BYTES)} bytes`,
        });
    }
  });

export type AutoscalingAuthChartValues = z.infer<typeof autoscalingAuthValues>;

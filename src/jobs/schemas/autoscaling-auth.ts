/**
 * `autoscaling-auth` (`autoscaling-auth:set APP TRIGGER --metadata k=v…`, `autoscaling-auth:unset
 * APP TRIGGER`): the KEDA trigger authentication of one trigger type of an app, Dokku's
 * `scheduler-k3s:autoscaling-auth:set`. A set replaces that trigger's parameters as a whole (as
 * Dokku's does); an unset removes them. Values are sealed by the producer, bound to
 * `autoscaling-auth:{app}:{trigger}:{key}` (src/jobs/sealing.ts), and live in clear only in the
 * Secret the worker releases (docs/apps.md, "Trigger authentication"). In the app's lane.
 */
import { z } from 'zod';
import { TRIGGER_AUTH_PARAMETERS_MAX, triggerAuthKey, triggerType } from '../../../rules/trigger-auth.ts';
import { defineContract } from '../contract.ts';
import { appName } from './common.ts';
import { sealedValue } from './sealed-value.ts';

export const autoscalingAuthPayload = z
  .object({
    app: appName,
    trigger: triggerType,
    action: z.enum(['set', 'unset']),
    /** Parameter → value sealed with the fleet key; required to set, absent (or empty) to unset. */
    metadata: z.record(triggerAuthKey, sealedValue).default({}),
  })
  .strict()
  .superRefine((p, ctx) => {
    const count = Object.keys(p.metadata).length;
    if (p.action === 'set' && count === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['--metadata'],
        message: 'give at least one KEY=VALUE (the trigger parameters KEDA reads from the Secret)',
      });
    if (p.action === 'set' && count > TRIGGER_AUTH_PARAMETERS_MAX)
      ctx.addIssue({
        code: 'custom',
        path: ['--metadata'],
        message: `at most ${TRIGGER_AUTH_PARAMETERS_MAX} parameters per trigger; got ${count}`,
      });
    if (p.action === 'unset' && count > 0)
      ctx.addIssue({ code: 'custom', path: ['--metadata'], message: 'is not taken by unset' });
  });

export type AutoscalingAuthPayload = z.infer<typeof autoscalingAuthPayload>;

export const autoscalingAuthContract = defineContract<AutoscalingAuthPayload>({
  type: 'autoscaling-auth',
  summary: 'Set or unset the KEDA trigger authentication of one trigger type of an app (values sealed)',
  payload: autoscalingAuthPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  // Parameter names only: the values are sealed, and never described.
  describe: (p) =>
    `autoscaling-auth:${p.action} ${p.app} ${p.trigger}${p.action === 'set' ? ` ${Object.keys(p.metadata).sort().join(',')}` : ''}`,
});

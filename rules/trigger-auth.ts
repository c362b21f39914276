/**
 * Trigger authentication (`autoscaling-auth:set APP TRIGGER --metadata k=v`), Dokku's
 * `scheduler-k3s:autoscaling-auth:set`: per app and KEDA trigger type, the parameters KEDA reads
 * from a Secret instead of the trigger's metadata (keda.sh/docs/latest/concepts/authentication,
 * "TriggerAuthentication" with `secretTargetRef: [{parameter, name, key}]`). Each parameter name
 * is the Secret's data key as well, so it must be a Secret data key (k8s.io/apimachinery
 * validation.IsConfigMapKey: `[-._a-zA-Z0-9]+`, at most 253 characters, not `.` or `..`).
 * Shared by the job contract, the AppSpec and the charts.
 */
import { z } from 'zod';
import { KEDA_TRIGGER_TYPES } from './autoscaling.ts';

/** More would be a mistake: KEDA's scalers take a handful of auth parameters each. */
export const TRIGGER_AUTH_PARAMETERS_MAX = 32;

const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

export const TRIGGER_AUTH_KEY_MESSAGE =
  'must be a KEDA trigger parameter name usable as a Secret key: letters, digits, "-", "_" and ".", at most 253 characters';

export function isTriggerAuthKey(key: string): boolean {
  return key.length <= 253 && SECRET_KEY.test(key) && key !== '.' && key !== '..';
}

export const triggerType = z.enum(KEDA_TRIGGER_TYPES, {
  error: (issue) =>
    `is not a KEDA scaler: ${JSON.stringify(issue.input)} (a trigger type such as redis, rabbitmq, postgresql, aws-sqs-queue; keda.sh/docs/latest/scalers lists them)`,
});

export const triggerAuthKey = z.string().refine(isTriggerAuthKey, TRIGGER_AUTH_KEY_MESSAGE);

/** Trigger type → the parameter names it has auth for (sorted); values live only in the Secret. */
export const triggerAuthParameters = z.partialRecord(
  triggerType,
  z.array(triggerAuthKey).min(1).max(TRIGGER_AUTH_PARAMETERS_MAX),
);

export type TriggerAuthParameters = z.infer<typeof triggerAuthParameters>;

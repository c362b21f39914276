/**
 * Placement profiles (`profiles:set NAME --node-selector k=v --toleration k=v:NoSchedule`): a node
 * selector and tolerations, as a pod's `nodeSelector` and `tolerations` take them
 * (k8s.io/api core/v1 types.go, Toleration; validated as k8s.io/kubernetes
 * pkg/apis/core/validation/validation.go validateTolerations does: a qualified-name key, a label
 * value, operator Exists with no value). One definition for the job contract, the CLI's flag
 * parsing and the app chart.
 */
import { z } from 'zod';
import { isLabelValue, LABEL_VALUE_MESSAGE, qualifiedNameProblem } from './labels.ts';
import { dns1123Label } from './name-schemas.ts';

export const TOLERATION_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
export type TolerationEffect = (typeof TOLERATION_EFFECTS)[number];

export interface Toleration {
  key: string;
  operator: 'Equal' | 'Exists';
  value?: string;
  effect: TolerationEffect;
}

/** A profile's name: a DNS-1123 label (it is typed on command lines and shown in listings). */
export const profileName = dns1123Label({ required: 'is required (a profile name)' });

/** At most this many selector entries and tolerations per profile. */
export const PLACEMENT_MAX_ENTRIES = 32;

export const nodeSelector = z.record(z.string(), z.string()).superRefine((selector, ctx) => {
  for (const [key, value] of Object.entries(selector)) {
    const problem = qualifiedNameProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
    if (!isLabelValue(value)) ctx.addIssue({ code: 'custom', path: [key], message: LABEL_VALUE_MESSAGE });
  }
  if (Object.keys(selector).length > PLACEMENT_MAX_ENTRIES)
    ctx.addIssue({ code: 'custom', message: `must have at most ${PLACEMENT_MAX_ENTRIES} entries` });
});

export const toleration = z
  .strictObject({
    key: z.string(),
    operator: z.enum(['Equal', 'Exists']),
    value: z.string().optional(),
    effect: z.enum(TOLERATION_EFFECTS, {
      error: `must be one of ${TOLERATION_EFFECTS.join(', ')}`,
    }),
  })
  .superRefine((t, ctx) => {
    const problem = qualifiedNameProblem(t.key);
    if (problem) ctx.addIssue({ code: 'custom', path: ['key'], message: problem });
    if (t.operator === 'Exists' && t.value !== undefined)
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be empty when operator is Exists' });
    if (t.operator === 'Equal' && (t.value === undefined || !isLabelValue(t.value)))
      ctx.addIssue({ code: 'custom', path: ['value'], message: LABEL_VALUE_MESSAGE });
  });

export const placementProfile = z.strictObject({
  nodeSelector,
  tolerations: z.array(toleration).max(PLACEMENT_MAX_ENTRIES),
});

export type PlacementProfile = z.infer<typeof placementProfile>;

/** Why a `--node-selector` word is not `key=value`, or the pair. */
export function parseNodeSelectorWord(word: string): { key: string; value: string } | { problem: string } {
  const eq = word.indexOf('=');
  if (eq <= 0) return { problem: `"${word}" is not key=value` };
  const key = word.slice(0, eq);
  const value = word.slice(eq + 1);
  const problem = qualifiedNameProblem(key);
  if (problem) return { problem };
  if (!isLabelValue(value)) return { problem: `value of "${key}" ${LABEL_VALUE_MESSAGE}` };
  return { key, value };
}

/**
 * A `--toleration` word: `key=value:Effect` (operator Equal) or `key:Effect` (operator Exists), as
 * `kubectl taint` writes taints. The effect is required: a toleration without one would tolerate
 * every effect, which is rarely what a profile means.
 */
export function parseTolerationWord(word: string): Toleration | { problem: string } {
  const colon = word.lastIndexOf(':');
  if (colon <= 0) return { problem: `"${word}" is not key=value:Effect or key:Effect` };
  const effect = word.slice(colon + 1);
  if (!(TOLERATION_EFFECTS as readonly string[]).includes(effect))
    return {
      problem: `"${word}": unknown effect "${effect}" (one of ${TOLERATION_EFFECTS.join(', ')})`,
    };
  const head = word.slice(0, colon);
  const eq = head.indexOf('=');
  const key = eq >= 0 ? head.slice(0, eq) : head;
  const problem = qualifiedNameProblem(key);
  if (problem) return { problem: `"${word}": ${problem}` };
  if (eq < 0) return { key, operator: 'Exists', effect: effect as TolerationEffect };
  const value = head.slice(eq + 1);
  if (!isLabelValue(value)) return { problem: `"${word}": the value ${LABEL_VALUE_MESSAGE}` };
  return { key, operator: 'Equal', value, effect: effect as TolerationEffect };
}

/**
 * `metadata` (`labels:set`, `labels:unset`, `annotations:set`, `annotations:unset APP KEY [VALUE]
 * [--process-type T] [--resource-type R]`): a label or annotation on the app's objects of one
 * scope, kept in the app's spec (`metadata`), in the app's lane. The names are Dokku's
 * (`scheduler-k3s:labels:set`); the rules are rules/object-metadata.ts. Issues are reported
 * under the flag a person typed (`--resource-type`, `--process-type`), or `KEY` / `VALUE`.
 */
import { z } from 'zod';
import { isLabelValue, LABEL_VALUE_MESSAGE } from '../../../rules/labels.ts';
import {
  ANNOTATION_VALUE_MAX_BYTES,
  metadataKeyProblem,
  RESOURCE_TYPES,
  scopeProblems,
} from '../../../rules/object-metadata.ts';
import { defineContract } from '../contract.ts';
import { appName } from './common.ts';

export const metadataPayload = z
  .object({
    app: appName,
    kind: z.enum(['label', 'annotation']),
    action: z.enum(['set', 'unset']),
    key: z.string({ error: 'is required (a label or annotation key)' }),
    /** Required to set, absent to unset. */
    value: z.string().optional(),
    processType: z.string().optional(),
    resourceType: z.enum(RESOURCE_TYPES, { error: `must be one of ${RESOURCE_TYPES.join(', ')}` }).optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    const keyProblem = metadataKeyProblem(p.key);
    if (keyProblem) issue('KEY', keyProblem);
    if (p.action === 'set' && p.value === undefined) issue('VALUE', 'is required');
    if (p.action === 'unset' && p.value !== undefined) issue('VALUE', 'is not taken by unset');
    if (p.kind === 'label' && p.value !== undefined && !isLabelValue(p.value))
      issue('VALUE', LABEL_VALUE_MESSAGE);
    if (
      p.kind === 'annotation' &&
      p.value !== undefined &&
      Buffer.byteLength(p.value) > ANNOTATION_VALUE_MAX_BYTES
    )
      issue('VALUE', `must be at most ${ANNOTATION_VALUE_MAX_BYTES} bytes`);
    for (const problem of scopeProblems(p.processType, p.resourceType)) {
      const [flag, ...rest] = problem.split(': ');
      issue(flag!, rest.join(': '));
    }
  });

export type MetadataPayload = z.infer<typeof metadataPayload>;

export const metadataContract = defineContract<MetadataPayload>({
  type: 'metadata',
  summary: 'Set or unset a label or annotation on an app’s objects (by process type and resource type)',
  payload: metadataPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `${p.kind}s:${p.action} ${p.app} ${p.key}${describeScope(p)}`,
});

export function describeScope(p: Pick<MetadataPayload, 'processType' | 'resourceType'>): string {
  return `${p.processType ? ` --process-type ${p.processType}` : ''}${p.resourceType ? ` --resource-type ${p.resourceType}` : ''}`;
}

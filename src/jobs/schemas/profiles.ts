/**
 * `profiles` (`profiles:set NAME --node-selector k=v --toleration k=v:Effect`, `profiles:unset
 * NAME`): fleet-wide placement profiles, kept in Redis like fleet registry credentials
 * (src/jobs/placement-profiles.ts), in the fleet lane. An app's process type uses one through
 * `ps:set APP TYPE profile NAME`; its pods get the profile's nodeSelector and tolerations.
 */
import { z } from 'zod';
import { nodeSelector, PLACEMENT_MAX_ENTRIES, profileName, toleration } from '../../../rules/placement.ts';
import { defineContract } from '../contract.ts';

export const profilesPayload = z.discriminatedUnion('action', [
  z
    .object({
      action: z.literal('set'),
      name: profileName,
      nodeSelector,
      tolerations: z.array(toleration).max(PLACEMENT_MAX_ENTRIES),
    })
    .strict()
    .refine((p) => Object.keys(p.nodeSelector).length > 0 || p.tolerations.length > 0, {
      message: 'give at least one --node-selector or --toleration',
      path: ['--node-selector'],
    }),
  z.object({ action: z.literal('unset'), name: profileName }).strict(),
]);

export type ProfilesPayload = z.infer<typeof profilesPayload>;

export const profilesContract = defineContract<ProfilesPayload>({
  type: 'profiles',
  summary: 'Set or remove a fleet-wide placement profile (node selector and tolerations)',
  payload: profilesPayload,
  lane: () => ({ kind: 'fleet' }),
  app: () => undefined,
  describe: (p) => `profiles:${p.action} ${p.name}`,
});

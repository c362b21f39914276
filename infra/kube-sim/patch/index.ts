/**
 * The patch engines behind kube-sim's PATCH verb. Server-side apply (`application/apply-patch+yaml`)
 * is implemented elsewhere; only its media type is listed here.
 */
export { applyJsonPatch } from './json-patch.ts';
export { applyMergePatch } from './merge-patch.ts';
export { applyStrategicMergePatch } from './strategic-merge.ts';

/**
 * The patch media types a built-in resource accepts, in the order the apiserver lists them in its
 * 415 "accepted media types include" message (types.JSONPatchType, MergePatchType,
 * StrategicMergePatchType, ApplyYAMLPatchType). Custom resources do not accept strategic merge.
 */
export const PATCH_CONTENT_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

export type PatchContentType = (typeof PATCH_CONTENT_TYPES)[number];

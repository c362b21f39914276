/**
 * Host paths of hostPath volumes: absolute, no NUL, no `..` segment (upstream's validation of
 * HostPathVolumeSource.path refuses `..` as a path element), at most 4,096 characters (PATH_MAX).
 * Shared by the storage job contract and the storage chart.
 */
import { z } from 'zod';

export const HOST_PATH_MAX = 4096;

export const hostPath = z
  .string()
  .max(HOST_PATH_MAX, `must be at most ${HOST_PATH_MAX} characters`)
  .regex(/^\/[^\0]*$/, 'must be an absolute path')
  .refine((p) => !p.split('/').includes('..'), 'must not contain ".."');

/** Values of the pull-secret chart: one registry's credentials for an app. */
import { z } from 'zod';
import { appName, namespaceName } from '../schemas.ts';

export const pullSecretValues = z.strictObject({
  app: appName,
  namespace: namespaceName,
  /** Registry host as `docker login` names it: `ghcr.io`, `registry.example.com:5000`, `https://index.docker.io/v1/`. */
  server: z
    .string()
    .min(1, 'is required (a registry host such as ghcr.io)')
    .max(253, 'must be at most 253 characters')
    .regex(/^\S+$/, 'must not contain spaces'),
  username: z.string().min(1, 'is required').max(256, 'must be at most 256 characters'),
  password: z.string().min(1, 'is required'),
});

export type PullSecretChartValues = z.infer<typeof pullSecretValues>;

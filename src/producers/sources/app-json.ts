/**
 * app.json as Dokku reads it: `formation` (replica counts), `cron` (scheduled tasks) and
 * `healthchecks` (probes per process type). Only the parts longshore deploys are taken; the
 * payload schema validates them.
 */
import { InvalidInputError } from '../../core/errors.ts';

interface AppJson {
  formation?: Record<string, { quantity?: number }>;
  cron?: { command: string; schedule: string; concurrency_policy?: string; suspend?: boolean }[];
  healthchecks?: Record<
    string,
    {
      type?: string;
      path?: string;
      port?: number;
      command?: string[];
      initialDelay?: number;
      timeout?: number;
      attempts?: number;
      wait?: number;
    }[]
  >;
}

export interface AppJsonParts {
  replicas: Record<string, number>;
  cron: {
    command: string;
    schedule: string;
    concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
    suspend?: boolean;
  }[];
  healthchecks: Record<string, Record<string, unknown>>;
}

const POLICY: Record<string, 'Allow' | 'Forbid' | 'Replace'> = {
  allow: 'Allow',
  forbid: 'Forbid',
  replace: 'Replace',
};

export function parseAppJson(text: string, source = 'app.json'): AppJsonParts {
  let doc: AppJson;
  try {
    doc = JSON.parse(text) as AppJson;
  } catch (err) {
    throw new InvalidInputError([{ path: source, message: `is not valid JSON: ${(err as Error).message}` }]);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new InvalidInputError([{ path: source, message: 'must be a JSON object' }]);
  }
  const replicas: Record<string, number> = {};
  for (const [type, entry] of Object.entries(doc.formation ?? {})) {
    if (entry && typeof entry.quantity === 'number') replicas[type] = entry.quantity;
  }
  const cron = (doc.cron ?? []).map((task) => ({
    command: task.command,
    schedule: task.schedule,
    ...(task.concurrency_policy
      ? {
          concurrencyPolicy:
            POLICY[task.concurrency_policy.toLowerCase()] ?? (task.concurrency_policy as 'Allow'),
        }
      : {}),
    ...(task.suspend !== undefined ? { suspend: task.suspend } : {}),
  }));
  const healthchecks: Record<string, Record<string, unknown>> = {};
  for (const [type, checks] of Object.entries(doc.healthchecks ?? {})) {
    const probes: Record<string, unknown> = {};
    for (const check of checks ?? []) {
      const kind = (check.type ?? 'startup').toLowerCase();
      probes[kind] = {
        type: check.command ? 'exec' : check.path ? 'http' : 'tcp',
        ...(check.path ? { path: check.path } : {}),
        ...(check.port ? { port: check.port } : {}),
        ...(check.command ? { command: check.command } : {}),
        ...(check.initialDelay !== undefined ? { initialDelaySeconds: check.initialDelay } : {}),
        ...(check.timeout !== undefined ? { timeoutSeconds: check.timeout } : {}),
        ...(check.wait !== undefined ? { periodSeconds: check.wait } : {}),
        ...(check.attempts !== undefined ? { failureThreshold: check.attempts } : {}),
      };
    }
    healthchecks[type] = probes;
  }
  return { replicas, cron, healthchecks };
}

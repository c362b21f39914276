/**
 * App records: one Secret per app (`longshore.app.<app>`) holding its identity, settings and
 * creation time, created with the app's first release. Every release Secret of the app is its
 * dependent, so deleting the record lets the cluster's garbage collector remove the app's whole
 * release history, chunks included.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { InvalidInputError, TransientError } from '../core/errors.ts';
import { canonicalJson } from './canonical-json.ts';
import type { StorageContext } from './context.ts';
import { ANNOTATION_CREATED_AT, appRecordName, LABEL_APP, nameProblem, SETTINGS_KEY } from './names.ts';
import { buildAppRecord } from './secret-builders.ts';
import type { AppRecord } from './types.ts';

export function toAppRecord(secret: V1Secret): AppRecord {
  let settings: Record<string, unknown> = {};
  const raw = secret.data?.[SETTINGS_KEY];
  if (raw) {
    try {
      const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64').toString('utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        settings = parsed as Record<string, unknown>;
    } catch {
      // A record whose settings were edited into invalid JSON still identifies the app.
    }
  }
  const created = secret.metadata?.creationTimestamp;
  return {
    app: secret.metadata?.labels?.[LABEL_APP] ?? '',
    uid: secret.metadata?.uid ?? '',
    createdAt:
      secret.metadata?.annotations?.[ANNOTATION_CREATED_AT] ??
      (created ? new Date(created).toISOString() : ''),
    settings,
  };
}

/** The app's record Secret, from the cache, or created (with `settings`) when missing. */
export async function ensureAppSecret(
  ctx: StorageContext,
  app: string,
  settings: Record<string, unknown>,
): Promise<V1Secret> {
  const problem = nameProblem('app', app);
  if (problem) throw new InvalidInputError([{ path: 'app', message: problem }], 'app name');
  const name = appRecordName(app);
  const cached = ctx.apps.get(ctx.namespace, name);
  if (cached?.metadata?.uid) return cached;
  for (let attempt = 0; attempt < 3; attempt++) {
    const outcome = await ctx.api.create(buildAppRecord(app, settings, ctx.now()));
    if ('created' in outcome) {
      ctx.apps.wrote(outcome.created);
      return outcome.created;
    }
    // Created by another worker (or by our own attempt whose answer was lost): use it as it is.
    const live = await ctx.api.get(name);
    if (live) {
      ctx.apps.wrote(live);
      return live;
    }
  }
  throw new TransientError(`the record of app ${app} keeps disappearing while it is created`);
}

/**
 * Replaces the app's settings (creating the record when missing). Writes nothing when they are
 * already equal (canonical JSON), so an unchanged redeploy stays write-free. One writer per app at
 * a time (the per-app job order), so a merge patch of the one data key needs no resourceVersion.
 */
export async function writeAppSettings(
  ctx: StorageContext,
  app: string,
  settings: Record<string, unknown>,
): Promise<V1Secret> {
  const secret = await ensureAppSecret(ctx, app, settings);
  const wanted = canonicalJson(settings);
  if (canonicalJson(toAppRecord(secret).settings) === wanted) return secret;
  const patched = await ctx.api.patchMerge(appRecordName(app), {
    data: { [SETTINGS_KEY]: Buffer.from(wanted).toString('base64') },
  });
  if (!patched)
    throw new TransientError(`the record of app ${app} was deleted while its settings were written`);
  ctx.apps.wrote(patched);
  return patched;
}

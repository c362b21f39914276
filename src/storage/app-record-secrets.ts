/**
 * App records as Secrets: one per app (`longshore.app.<app>`) holding its identity, creation time
 * and saved spec, created with the app's first release. Every release Secret of the app is its
 * dependent, so deleting the record lets the cluster's garbage collector remove the app's whole
 * release history, chunks included. The spec is kept where records have always kept it: the
 * `spec` key of the canonical JSON in data key `settings` (docs/storage-format.md).
 */
import type { V1Secret } from '@kubernetes/client-node';
import { InvalidInputError, TransientError } from '../core/errors.ts';
import { type AppRecord, type AppRecords, type SpecCodec, withDecodedSpec } from './app-records.ts';
import { canonicalJson } from './canonical-json.ts';
import type { StorageContext } from './context.ts';
import {
  ANNOTATION_CREATED_AT,
  appRecordName,
  LABEL_APP,
  nameProblem,
  SETTINGS_KEY,
  selectorFor,
} from './names.ts';
import { buildAppRecord } from './secret-builders.ts';

/** Records per page of a fresh list (a record is small: its spec). */
const LIST_PAGE = 500;

/** The key of the spec in the record's settings JSON. */
const SPEC_KEY = 'spec';

/** The settings JSON of a record Secret; `{}` when absent or not a JSON object. */
function settingsOf(secret: V1Secret): Record<string, unknown> {
  const raw = secret.data?.[SETTINGS_KEY];
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64').toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // A record whose settings were edited into invalid JSON still identifies the app.
  }
  return {};
}

/** The settings JSON that stores `spec` (what every version of the worker wrote and reads). */
function settingsWithSpec(spec: unknown): Record<string, unknown> {
  return { [SPEC_KEY]: spec };
}

export function toAppRecord<Spec>(secret: V1Secret, codec: SpecCodec<Spec>): AppRecord<Spec> {
  const created = secret.metadata?.creationTimestamp;
  const record: AppRecord<Spec> = {
    app: secret.metadata?.labels?.[LABEL_APP] ?? '',
    uid: secret.metadata?.uid ?? '',
    createdAt:
      secret.metadata?.annotations?.[ANNOTATION_CREATED_AT] ??
      (created ? new Date(created).toISOString() : ''),
  };
  return withDecodedSpec(record, settingsOf(secret)[SPEC_KEY], codec);
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
 * Saves the app's spec (creating the record when missing). Writes nothing when the stored one is
 * already equal (canonical JSON), so an unchanged redeploy stays write-free. One writer per app at
 * a time (the per-app job order), so a merge patch of the one data key needs no resourceVersion.
 */
export async function writeAppSpec(ctx: StorageContext, app: string, spec: unknown): Promise<V1Secret> {
  const settings = settingsWithSpec(spec);
  const secret = await ensureAppSecret(ctx, app, settings);
  const wanted = canonicalJson(settings);
  if (canonicalJson(settingsOf(secret)) === wanted) return secret;
  const patched = await ctx.api.patchMerge(appRecordName(app), {
    data: { [SETTINGS_KEY]: Buffer.from(wanted).toString('base64') },
  });
  if (!patched) throw new TransientError(`the record of app ${app} was deleted while its spec was written`);
  ctx.apps.wrote(patched);
  return patched;
}

/** AppRecords over the record Secrets, read through the store's informer cache. */
export class SecretAppRecords<Spec> implements AppRecords<Spec> {
  constructor(
    private readonly ctx: StorageContext,
    private readonly codec: SpecCodec<Spec>,
  ) {}

  get(app: string): AppRecord<Spec> | undefined {
    const secret = this.ctx.apps.get(this.ctx.namespace, appRecordName(app));
    return secret ? toAppRecord(secret, this.codec) : undefined;
  }

  list(): AppRecord<Spec>[] {
    return this.records(this.ctx.apps.list(this.ctx.namespace));
  }

  async listFresh(): Promise<AppRecord<Spec>[]> {
    let secrets: V1Secret[] = [];
    await this.ctx.api.forEachPage(
      selectorFor('app'),
      LIST_PAGE,
      (items) => {
        secrets.push(...items);
      },
      () => {
        secrets = [];
      },
    );
    return this.records(secrets);
  }

  private records(secrets: readonly V1Secret[]): AppRecord<Spec>[] {
    return secrets
      .map((secret) => toAppRecord(secret, this.codec))
      .filter((record) => record.app !== '')
      .sort((a, b) => (a.app < b.app ? -1 : a.app > b.app ? 1 : 0));
  }

  async ensure(app: string): Promise<AppRecord<Spec>> {
    return toAppRecord(await ensureAppSecret(this.ctx, app, {}), this.codec);
  }

  async saveSpec(app: string, spec: Spec): Promise<AppRecord<Spec>> {
    return toAppRecord(await writeAppSpec(this.ctx, app, spec), this.codec);
  }

  async delete(app: string): Promise<void> {
    const { ctx } = this;
    const name = appRecordName(app);
    await ctx.api.deleteCached(name, ctx.apps, undefined, 'Background');
    // The garbage collector deletes the app's indexes and chunks; hide the indexes now, so this
    // process does not list a history that is being removed.
    for (const index of ctx.indexes.list(ctx.namespace)) {
      if (index.metadata?.labels?.[LABEL_APP] === app)
        ctx.indexes.deleted(ctx.namespace, index.metadata.name ?? '');
    }
  }
}

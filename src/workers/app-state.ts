/**
 * What a job for an app builds on (docs/apps.md, "Which spec a job builds on"):
 * - the spec saved in the app record after the app's last successful job — a deploy that failed
 *   never saved its spec, so the next job starts again from the last good one (Dokku keeps running
 *   the old image, and a later `config:set` does not retry the broken one);
 * - the environment of the `config-{app}` release's deployed revision: config changes are accepted
 *   once that release is deployed, even when the app release after it fails.
 */

import { releaseNames } from '../apps/releases.ts';
import { type AppSpec, appSpec, emptySpec } from '../apps/spec.ts';
import { InvalidInputError, PermanentError } from '../core/errors.ts';
import type { ReleaseStore } from '../storage/types.ts';

export interface AppState {
  spec: AppSpec;
  env: Record<string, string>;
  /** False until the app's record exists (no job for the app has succeeded yet). */
  known: boolean;
}

/** Key of the spec in the app record's settings. */
export const SPEC_SETTING = 'spec';

export async function loadAppState(store: ReleaseStore, app: string): Promise<AppState> {
  const record = store.getApp(app);
  const saved = record?.settings[SPEC_SETTING];
  let spec = emptySpec(app);
  if (saved !== undefined) {
    const parsed = appSpec.safeParse(saved);
    if (!parsed.success) {
      throw new PermanentError(
        `the saved spec of app ${app} cannot be read (${parsed.error.issues[0]?.message ?? 'invalid'}); ` +
          `fix or delete the settings of Secret longshore.app.${app} in the system namespace`,
      );
    }
    spec = parsed.data;
  }
  return { spec, env: await loadEnv(store, app), known: record !== undefined };
}

async function loadEnv(store: ReleaseStore, app: string): Promise<Record<string, string>> {
  const release = releaseNames.config(app);
  const deployed = store.deployed(release);
  if (!deployed) return {};
  const content = await store.read(release, deployed.revision);
  const secret = content.objects.find((o) => o.kind === 'Secret') as
    | { data?: Record<string, string> }
    | undefined;
  return Object.fromEntries(
    Object.entries(secret?.data ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value, 'base64').toString('utf8'),
    ]),
  );
}

/** The spec as the job will deploy it, validated: every problem named before anything is written. */
export function validSpec(spec: AppSpec): AppSpec {
  const parsed = appSpec.safeParse(spec);
  if (parsed.success) return parsed.data;
  throw new InvalidInputError(
    parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    `spec of app ${spec.app}`,
  );
}

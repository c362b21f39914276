/**
 * What a job for an app builds on (docs/apps.md, "Which spec a job builds on"):
 * - the spec saved in the app record after the app's last successful job — a deploy that failed
 *   never saved its spec, so the next job starts again from the last good one (Dokku keeps running
 *   the old image, and a later `config:set` does not retry the broken one);
 * - the environment of the `config-{app}` release's deployed revision: config changes are accepted
 *   once that release is deployed, even when the app release after it fails. History keeps the
 *   keys and a digest of each value (docs/releases.md, "Secret values"): the values come from the
 *   live Secret, each checked against its digest. A value removed or changed by hand there is
 *   left out and reported in `configLost`: nothing stored can give it back.
 */

import { releaseNames } from '../apps/releases.ts';
import { type AppSpec, appSpec, emptySpec } from '../apps/spec.ts';
import { InvalidInputError, PermanentError } from '../core/errors.ts';
import type { LiveValues } from '../releases/index.ts';
import type { SpecCodec } from '../storage/index.ts';
import type { Cluster } from './cluster.ts';

export interface AppState {
  spec: AppSpec;
  env: Record<string, string>;
  /** False until the app's record exists (no job for the app has succeeded yet). */
  known: boolean;
  /** Keys of the deployed config whose values the live Secret no longer holds (absent from `env`). */
  configLost?: LiveValues;
}

/**
 * How app records decode the spec they keep (storage stores JSON and may not import src/apps): the
 * AppSpec schema. What it refuses reaches loadAppState as the record's `unreadableSpec`.
 */
export const appSpecCodec: SpecCodec<AppSpec> = {
  decode(stored) {
    const parsed = appSpec.safeParse(stored);
    if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'invalid');
    return parsed.data;
  },
};

export async function loadAppState(
  cluster: Cluster,
  app: string,
  options: { dryRun?: boolean } = {},
): Promise<AppState> {
  const { apps, engine } = cluster;
  // History an older worker may have written with values in it: redacted before it is read (not
  // by a dry run, which writes nothing: the values are read from the live Secret either way).
  if (!options.dryRun) await engine.redactHistory([releaseNames.config(app), releaseNames.pullSecret(app)]);
  const record = apps.get(app);
  if (record?.unreadableSpec !== undefined) {
    throw new PermanentError(
      `the saved spec of app ${app} cannot be read (${record.unreadableSpec}); ` +
        `fix or delete the settings of Secret longshore.app.${app} in the system namespace`,
    );
  }
  const spec = record?.spec ?? emptySpec(app);
  const config = await cluster.engine.deployedSecretValues(releaseNames.config(app));
  const secret = config?.secrets[0];
  const env = Object.fromEntries(
    Object.entries(secret?.data ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value, 'base64').toString('utf8'),
    ]),
  );
  return {
    spec,
    env,
    known: record !== undefined,
    ...(secret && secret.lost.length > 0 ? { configLost: secret } : {}),
  };
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

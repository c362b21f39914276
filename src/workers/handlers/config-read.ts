/**
 * `config-read`: the app's config values, as the deployed revision of `config-{app}` stands for
 * them in the live Secret (each checked against the digest history keeps, as every job that builds
 * on the app's env reads them: src/workers/app-state.ts), sealed for the CLI that asked. Writes
 * nothing; the return value in Redis is ciphertext (src/jobs/reader-sealing.ts).
 */
import { releaseNames } from '../../apps/releases.ts';
import { PermanentError } from '../../core/errors.ts';
import { sealForReader } from '../../jobs/reader-sealing.ts';
import {
  type ConfigReadAnswer,
  type ConfigReadPayload,
  configReadContext,
} from '../../jobs/schemas/config-read.ts';
import type { Handler } from '../handler.ts';

export const configReadHandler: Handler<ConfigReadPayload> = async (ctx) => {
  const { app, readerKey, keys } = ctx.payload;
  const { apps, engine } = await ctx.services.cluster();
  const release = releaseNames.config(app);
  if (
    !apps.get(app) &&
    engine.history(release).length === 0 &&
    engine.history(releaseNames.app(app)).length === 0
  )
    throw new PermanentError(
      `app ${app} not found: no job has deployed or configured it (apps:list lists the apps)`,
    );
  const deployed = await engine.deployedSecretValues(release, ctx.signal);
  const secret = deployed?.secrets[0];
  const all = Object.fromEntries(
    Object.entries(secret?.data ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value, 'base64').toString('utf8'),
    ]),
  );
  const wanted = keys ? keys.filter((k) => k in all) : Object.keys(all);
  const answer: ConfigReadAnswer = {
    config: Object.fromEntries(wanted.sort().map((k) => [k, all[k] as string])),
    lost: (secret?.lost ?? [])
      .filter((l) => !keys || keys.includes(l.key))
      .map((l) => ({ key: l.key, reason: l.reason })),
  };
  const count = Object.keys(answer.config).length;
  return {
    summary: `${count} variable${count === 1 ? '' : 's'} of ${app}, sealed for the CLI that asked`,
    sealed: sealForReader(JSON.stringify(answer), readerKey, configReadContext(app)),
  };
};

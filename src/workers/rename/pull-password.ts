/**
 * The registry password a rename carries over to `pull-secret-{new}`. History keeps only a digest
 * of the docker config, so it comes from the live `pull-secret-{old}` (checked against that
 * digest, as keptPullSecret does): the `auths[server].password` the chart wrote. Undefined when
 * the app has no pull secret; `lost` when the live Secret no longer holds the deployed value.
 */
import { releaseNames } from '../../apps/releases.ts';
import type { AppSpec } from '../../apps/spec.ts';
import type { Cluster } from '../cluster.ts';

export async function livePullPassword(
  cluster: Cluster,
  spec: AppSpec,
): Promise<{ password: string } | { lost: true } | undefined> {
  if (!spec.registry) return undefined;
  const found = await cluster.engine.deployedSecretValues(releaseNames.pullSecret(spec.app));
  if (!found) return undefined;
  const encoded = found.secrets[0]?.data['.dockerconfigjson'];
  if (!encoded) return { lost: true };
  try {
    const config = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as {
      auths?: Record<string, { password?: unknown }>;
    };
    const password = config.auths?.[spec.registry.server]?.password;
    return typeof password === 'string' && password !== '' ? { password } : { lost: true };
  } catch {
    return { lost: true };
  }
}

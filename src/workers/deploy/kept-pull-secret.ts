/**
 * Keeping `pull-secret-{app}` on a deploy that does not mention credentials: the deployed
 * revision's objects, applied again (moved to the app's namespace if that changed), so a Secret
 * edited by hand is repaired. History keeps only a digest of the docker config, so its value comes
 * from the live Secret, checked against that digest. When the live Secret is gone or no longer
 * matches, nothing stored can rebuild it: the deploy goes on without touching the release and
 * its log asks for the credentials again.
 */
import { withValues } from '../../releases/index.ts';
import type { ReleaseObject } from '../../storage/types.ts';
import type { Cluster } from '../cluster.ts';
import { lostPullSecretMessage } from './lost-secrets.ts';
import type { Rendered } from './render.ts';

export async function keptPullSecret(
  cluster: Cluster,
  app: string,
  release: string,
  namespace: string,
): Promise<{ rendered: Rendered } | { lost: string } | undefined> {
  const found = await cluster.engine.deployedSecretValues(release);
  if (!found) return undefined;
  const lost = found.secrets.find((s) => s.lost.length > 0);
  if (lost) return { lost: lostPullSecretMessage(app, lost) };
  const objects = found.content.objects.map((o) => {
    const values = found.secrets.find((s) => s.ref.name === o.metadata.name && s.ref.kind === o.kind);
    const object = values ? withValues(o, values.data) : o;
    return { ...object, metadata: { ...object.metadata, namespace } } as ReleaseObject;
  });
  return { rendered: { chart: found.content.chart, values: found.content.values, objects } };
}

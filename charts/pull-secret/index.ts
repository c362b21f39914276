/**
 * The pull-secret chart: Secret `pull-secret-{app}` of type kubernetes.io/dockerconfigjson. Its
 * own release, like config, so an app rollback cannot delete credentials running pods pull with.
 */
import { defineChart } from '../define.ts';
import { base64 } from '../encoding.ts';
import { appLabels } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import type { RenderedObject } from '../types.ts';
import { type PullSecretChartValues, pullSecretValues } from './values.ts';

export { type PullSecretChartValues, pullSecretValues } from './values.ts';

/** Name of the Secret (and release) holding an app's registry credentials. */
export function pullSecretName(app: string): string {
  return `pull-secret-${app}`;
}

export const pullSecretChart = defineChart<PullSecretChartValues>({
  name: 'pull-secret',
  version: '1.0.0',
  values: pullSecretValues,
  build(values): RenderedObject[] {
    const { server, username, password } = values;
    // The kubelet reads `auth`; username and password are kept too, as `docker login` writes them.
    const dockerConfig = {
      auths: { [server]: { username, password, auth: base64(`${username}:${password}`) } },
    };
    return [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: objectMeta(pullSecretName(values.app), values.namespace, appLabels(values.app)),
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': base64(JSON.stringify(dockerConfig)) },
      },
    ];
  },
});

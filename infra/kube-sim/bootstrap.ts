/**
 * What a fresh cluster already has: the default, kube-system, kube-public and kube-node-lease
 * namespaces and the `kubernetes` Service in default, as on a kubeadm cluster.
 */
import type { SimClient } from './controllers/sim-client.ts';
import { findByKind } from './resources.ts';

const NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export function bootstrap(client: SimClient): void {
  const namespace = findByKind('v1', 'Namespace')!;
  for (const name of NAMESPACES) {
    if (!client.get(namespace, undefined, name))
      client.create(namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  const service = findByKind('v1', 'Service')!;
  if (!client.get(service, 'default', 'kubernetes')) {
    client.create(service, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'kubernetes',
        namespace: 'default',
        labels: { component: 'apiserver', provider: 'kubernetes' },
      },
      spec: {
        clusterIP: '10.96.0.1',
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
        type: 'ClusterIP',
      },
    });
  }
}

/**
 * What a fresh cluster already has: the default, kube-system, kube-public and kube-node-lease
 * namespaces, the `kubernetes` Service in default, and a default StorageClass, as on kind or k3s.
 */
import type { ControllerSettings } from './controllers/settings.ts';
import type { SimClient } from './controllers/sim-client.ts';
import { findByKind } from './resources.ts';

const NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export function bootstrap(
  client: SimClient,
  settings: Pick<ControllerSettings, 'defaultStorageClass'>,
): void {
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
  // PVCs that name no class bind through the default one (kind and k3s ship local-path).
  const storageClass = findByKind('storage.k8s.io/v1', 'StorageClass')!;
  if (settings.defaultStorageClass && !client.get(storageClass, undefined, settings.defaultStorageClass)) {
    client.create(storageClass, {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: {
        name: settings.defaultStorageClass,
        annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
      },
      provisioner: 'kube-sim.io/hostpath',
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
    });
  }
}

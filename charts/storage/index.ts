/**
 * The storage chart: a PersistentVolumeClaim `storage-{entry}` in the entry's namespace; with
 * `hostPath`, also a PersistentVolume of the same name pre-bound to it through `claimRef`. Both
 * then carry `storageClassName: ""`, so neither the default class nor a provisioner takes the
 * claim: it binds to that volume and no other (Kubernetes "reserving a PersistentVolume").
 */
import { defineChart } from '../define.ts';
import { LABEL_MANAGED_BY, LABEL_NAME, MANAGED_BY } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import { storageObjectName } from '../names.ts';
import { sortRecord } from '../records.ts';
import type { RenderedObject } from '../types.ts';
import { type StorageChartValues, storageValues } from './values.ts';

export { ACCESS_MODES, type StorageChartValues, storageValues } from './values.ts';

/** Labels of a storage entry's objects: the entry as `name`, and managed-by. */
export function storageLabels(entry: string): Record<string, string> {
  return { [LABEL_NAME]: entry, [LABEL_MANAGED_BY]: MANAGED_BY };
}

export const storageChart = defineChart<StorageChartValues>({
  name: 'storage',
  version: '1.0.0',
  values: storageValues,
  build(values): RenderedObject[] {
    const name = storageObjectName(values.entry);
    const labels = storageLabels(values.entry);
    const claimSpec: Record<string, unknown> = {
      accessModes: [values.accessMode],
      resources: { requests: { storage: values.size } },
    };
    const objects: RenderedObject[] = [];
    if (values.hostPath !== undefined) {
      claimSpec.storageClassName = '';
      claimSpec.volumeName = name;
      objects.push({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        // Cluster-scoped: no namespace.
        metadata: { name, labels: sortRecord(labels) },
        spec: {
          accessModes: [values.accessMode],
          capacity: { storage: values.size },
          claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', name, namespace: values.namespace },
          hostPath: { path: values.hostPath, type: 'DirectoryOrCreate' },
          persistentVolumeReclaimPolicy: values.reclaimPolicy,
          storageClassName: '',
          volumeMode: 'Filesystem',
        },
      });
    } else if (values.storageClassName !== undefined) {
      claimSpec.storageClassName = values.storageClassName;
    }
    claimSpec.volumeMode = 'Filesystem';
    objects.push({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: objectMeta(name, values.namespace, labels),
      spec: claimSpec,
    });
    return objects;
  },
});

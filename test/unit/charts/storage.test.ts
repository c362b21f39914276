import { describe, expect, it } from 'vitest';
import {
  ChartValuesError,
  LABEL_MANAGED_BY,
  MANAGED_BY,
  type RenderedObject,
  storageChart,
  storageObjectName,
} from '../../../charts/index.ts';
import { appChartValues } from '../../../src/apps/chart-values.ts';
import { emptySpec } from '../../../src/apps/spec.ts';
import { hostPathStorage, provisionedStorage } from './cases.ts';

const spec = (o: RenderedObject) => o.spec as Record<string, unknown>;

describe('storage chart', () => {
  it('renders one claim named storage-{entry}, from the named class, labelled managed-by', () => {
    const objects = storageChart.render(provisionedStorage);
    expect(objects.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'PersistentVolumeClaim shop-prod/storage-uploads',
    ]);
    expect(spec(objects[0]!).storageClassName).toBe('fast');
    expect(objects[0]!.metadata.labels?.[LABEL_MANAGED_BY]).toBe(MANAGED_BY);
  });

  it('leaves the class out without one, so the cluster default provisions it', () => {
    const { storageClassName: _, ...values } = provisionedStorage;
    const [claim] = storageChart.render(values);
    expect(spec(claim!)).not.toHaveProperty('storageClassName');
  });

  it('with a hostPath, pre-binds a volume to the claim, both with storageClassName ""', () => {
    const [pv, pvc] = storageChart.render(hostPathStorage);
    expect(pv!.kind).toBe('PersistentVolume');
    expect(pv!.metadata).not.toHaveProperty('namespace');
    expect(spec(pv!)).toMatchObject({
      storageClassName: '',
      persistentVolumeReclaimPolicy: 'Delete',
      hostPath: { path: '/srv/geoip' },
      capacity: { storage: '1Gi' },
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'shop-prod', name: 'storage-geoip' },
    });
    expect(pvc!.kind).toBe('PersistentVolumeClaim');
    expect(spec(pvc!)).toMatchObject({ storageClassName: '', volumeName: 'storage-geoip' });
    expect(pv!.metadata.labels?.[LABEL_MANAGED_BY]).toBe(MANAGED_BY);
  });

  it('refuses values the API server would refuse', () => {
    try {
      storageChart.render({ ...hostPathStorage, size: '-1Gi', hostPath: 'relative', entry: 'Bad_Name' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ChartValuesError);
      expect([...new Set((err as ChartValuesError).issues.map((i) => i.path))].sort()).toEqual([
        'entry',
        'hostPath',
        'size',
      ]);
    }
  });

  it("is the claim the app chart's volumes name", () => {
    const values = appChartValues({
      ...emptySpec('shop'),
      image: 'nginx:1',
      mounts: [{ entry: 'uploads', mountPath: '/data', readOnly: false }],
    });
    const [claim] = storageChart.render(provisionedStorage);
    expect(values.mounts[0]?.claimName).toBe(claim!.metadata.name);
    expect(storageObjectName('uploads')).toBe('storage-uploads');
  });
});

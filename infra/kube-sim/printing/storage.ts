/**
 * Printers of the storage kinds, after kubernetes/kubernetes pkg/printers/internalversion/printers.go:
 * PersistentVolumeClaim, PersistentVolume (access modes as GetAccessModesAsString: RWO, ROX,
 * RWX, RWOP) and StorageClass (`(default)` after the default class's name).
 */
import { since } from './age.ts';
import { list, str } from './format.ts';
import { AGE_COLUMN, column, NAME_COLUMN, type Obj, type Printer } from './table.ts';

const name = (o: Obj) => str(o.metadata?.name);
const age = (o: Obj, now: number) => since(o.metadata?.creationTimestamp, now);

const ACCESS_MODES: [string, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

export function accessModes(modes: unknown): string {
  const set = new Set(list(modes).map(String));
  return ACCESS_MODES.filter(([mode]) => set.has(mode))
    .map(([, short]) => short)
    .join(',');
}

/** The spec's class, or the beta annotation older objects carry. */
function storageClassOf(o: Obj): string {
  return (
    str(o.spec?.storageClassName) || str(o.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'])
  );
}

const phaseOf = (o: Obj) =>
  typeof o.metadata?.deletionTimestamp === 'string' ? 'Terminating' : str(o.status?.phase);
const VOLUME_MODE = column(
  'VolumeMode',
  'string',
  'volumeMode defines what type of volume is required by the claim.',
  { wide: true },
);
const VAC = column('VolumeAttributesClass', 'string', 'VolumeAttributesClass name of the volume.');

export const pvcPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
    column(
      'Volume',
      'string',
      'volumeName is the binding reference to the PersistentVolume backing this claim.',
    ),
    column('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
    column('Access Modes', 'string', 'accessModes contains the desired access modes the volume should have.'),
    column(
      'StorageClass',
      'string',
      'storageClassName is the name of the StorageClass required by the claim.',
    ),
    VAC,
    AGE_COLUMN,
    VOLUME_MODE,
  ],
  cells: (pvc, now) => {
    const bound = str(pvc.spec?.volumeName) !== '';
    return [
      name(pvc),
      phaseOf(pvc),
      str(pvc.spec?.volumeName),
      bound ? str(pvc.status?.capacity?.storage) : '',
      bound ? accessModes(pvc.status?.accessModes) : '',
      storageClassOf(pvc),
      str(pvc.spec?.volumeAttributesClassName) || '<unset>',
      age(pvc, now),
      str(pvc.spec?.volumeMode) || '<unset>',
    ];
  },
};

export const pvPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column(
      'Capacity',
      'string',
      "capacity is the description of the persistent volume's resources and capacity.",
    ),
    column('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
    column(
      'Reclaim Policy',
      'string',
      'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.',
    ),
    column(
      'Status',
      'string',
      'phase indicates if a volume is available, bound to a claim, or released by a claim.',
    ),
    column(
      'Claim',
      'string',
      'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.',
    ),
    column(
      'StorageClass',
      'string',
      'storageClassName is the name of StorageClass to which this persistent volume belongs.',
    ),
    VAC,
    column(
      'Reason',
      'string',
      'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
    ),
    AGE_COLUMN,
    column(
      'VolumeMode',
      'string',
      'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.',
      { wide: true },
    ),
  ],
  cells: (pv, now) => {
    const ref = pv.spec?.claimRef;
    return [
      name(pv),
      str(pv.spec?.capacity?.storage),
      accessModes(pv.spec?.accessModes),
      str(pv.spec?.persistentVolumeReclaimPolicy),
      phaseOf(pv),
      ref ? `${str(ref.namespace)}/${str(ref.name)}` : '',
      storageClassOf(pv),
      str(pv.spec?.volumeAttributesClassName) || '<unset>',
      str(pv.status?.reason),
      age(pv, now),
      str(pv.spec?.volumeMode) || '<unset>',
    ];
  },
};

const isDefaultClass = (sc: Obj) =>
  sc.metadata?.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true' ||
  sc.metadata?.annotations?.['storageclass.beta.kubernetes.io/is-default-class'] === 'true';

export const storageClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
    column(
      'ReclaimPolicy',
      'string',
      'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.',
    ),
    column(
      'VolumeBindingMode',
      'string',
      'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.',
    ),
    column(
      'AllowVolumeExpansion',
      'string',
      'allowVolumeExpansion shows whether the storage class allow volume expand.',
    ),
    AGE_COLUMN,
  ],
  cells: (sc, now) => [
    isDefaultClass(sc) ? `${name(sc)} (default)` : name(sc),
    str(sc.provisioner),
    str(sc.reclaimPolicy) || 'Delete',
    str(sc.volumeBindingMode) || 'Immediate',
    sc.allowVolumeExpansion === true,
    age(sc, now),
  ],
};

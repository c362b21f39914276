/**
 * The pvc-protection and pv-protection controllers (pkg/controller/volume/pvcprotection,
 * pkg/controller/volume/pvprotection): a PersistentVolumeClaim being deleted loses its
 * `kubernetes.io/pvc-protection` finalizer once no Pod of its namespace that has not finished
 * (phase Succeeded or Failed) uses it as a volume; a PersistentVolume being deleted loses
 * `kubernetes.io/pv-protection` once it is not Bound. Part of the API's semantics in kube-sim
 * (like the garbage collector), so it runs without the workload controllers too.
 */
import { typeKey } from '../api/service.ts';
import { PV_PROTECTION, PVC_PROTECTION } from '../defaulting/storage-protection.ts';
import { findByKind } from '../resources.ts';
import type { ObjectStore, StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { ReconcileQueue } from './reconcile-queue.ts';
import type { SimClient } from './sim-client.ts';
import { POD, type Pod } from './workload-types.ts';

const PVC = findByKind('v1', 'PersistentVolumeClaim')!;
const PV = findByKind('v1', 'PersistentVolume')!;
const PVC_KEY = typeKey(PVC);
const PV_KEY = typeKey(PV);
const POD_KEY = typeKey(POD);

export class StorageProtectionController {
  private readonly queue: ReconcileQueue;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: ObjectStore,
    private readonly client: SimClient,
    onError: (what: string, err: unknown) => void,
  ) {
    this.queue = new ReconcileQueue(
      (key) => this.reconcile(key),
      (key, e) => onError(`storage protection ${key}`, e),
    );
    this.unsubscribe = store.subscribe((event) => this.observe(event));
    for (const o of [...store.list(PVC_KEY), ...store.list(PV_KEY)]) this.observeObject(o);
  }

  stop(): void {
    this.unsubscribe();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    if (event.typeKey === PVC_KEY || event.typeKey === PV_KEY) {
      if (event.type !== 'DELETED') this.observeObject(event.object);
    } else if (event.typeKey === POD_KEY) {
      // A Pod that finishes or goes may release the claims it used.
      for (const claim of claimsOf(event.object as Pod))
        this.queue.add(`pvc/${event.object.metadata.namespace}/${claim}`);
    }
  }

  private observeObject(o: KubeObject): void {
    if (!o.metadata.deletionTimestamp) return;
    if (o.kind === 'PersistentVolumeClaim') this.queue.add(`pvc/${o.metadata.namespace}/${o.metadata.name}`);
    else this.queue.add(`pv//${o.metadata.name}`);
  }

  private reconcile(key: string): void {
    const [kind, namespace, name] = key.split('/') as [string, string, string];
    if (kind === 'pvc') {
      const claim = this.store.get(PVC_KEY, namespace, name);
      if (!claim?.metadata.deletionTimestamp || !claim.metadata.finalizers?.includes(PVC_PROTECTION)) return;
      const inUse = (this.store.list(POD_KEY, namespace) as Pod[]).some((pod) => {
        const phase = pod.status?.phase;
        return phase !== 'Succeeded' && phase !== 'Failed' && claimsOf(pod).includes(name);
      });
      if (!inUse) this.removeFinalizer(PVC, claim, PVC_PROTECTION);
      return;
    }
    const volume = this.store.get(PV_KEY, undefined, name);
    if (!volume?.metadata.deletionTimestamp || !volume.metadata.finalizers?.includes(PV_PROTECTION)) return;
    if ((volume.status as { phase?: string } | undefined)?.phase !== 'Bound')
      this.removeFinalizer(PV, volume, PV_PROTECTION);
  }

  private removeFinalizer(type: typeof PVC, object: KubeObject, finalizer: string): void {
    const next = clone(object);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.client.update(type, next);
  }
}

function claimsOf(pod: Pod): string[] {
  return (pod.spec?.volumes ?? [])
    .map((v) => (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName)
    .filter((n): n is string => typeof n === 'string');
}

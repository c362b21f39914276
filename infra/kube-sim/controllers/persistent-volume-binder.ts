/**
 * The PersistentVolume controller (kube-controller-manager pkg/controller/volume/persistentvolume,
 * pv_controller.go), with a built-in provisioner answering for every StorageClass:
 * - a claim naming no class gets the default StorageClass (what the DefaultStorageClass admission
 *   plugin does at create, and the controller's assignDefaultStorageClass later);
 * - after `settings.pvcBindDelayMs`, an unbound claim binds (syncUnboundClaim): to the volume its
 *   spec.volumeName names if that one fits (checkVolumeSatisfyClaim), else to the best matching
 *   available volume (findBestMatchForClaim), else through dynamic provisioning when its class
 *   exists: a PV `pvc-<claim uid>` (hostPath under /var/lib/kube-sim/, the claim's request, access
 *   modes and volume mode, the class's reclaim policy and mount options, claimRef, annotation
 *   pv.kubernetes.io/provisioned-by). A class with volumeBindingMode WaitForFirstConsumer waits
 *   until a Pod uses the claim. Claims that cannot bind stay Pending with upstream's events
 *   (ProvisioningFailed `storageclass.storage.k8s.io "x" not found`, FailedBinding, VolumeMismatch,
 *   WaitForFirstConsumer);
 * - binding as bindVolumeToClaim/bindClaimToVolume: PV spec.claimRef (+ bound-by-controller when
 *   the controller chose the claim) and status Bound; claim spec.volumeName (+ bound-by-controller
 *   when the controller chose the volume), bind-completed, status Bound with the volume's capacity
 *   and access modes. Status goes through `/status`;
 * - PV phases (syncVolume): Available when unclaimed, Bound, Released once the bound claim is
 *   deleted; then reclaimVolume: Retain keeps it Released (claimRef kept), Delete deletes it;
 * - a Bound claim whose volume disappears goes Lost (ClaimLost).
 * Not simulated: the pvc-protection/pv-protection finalizers, Recycle, volume expansion.
 */
import { timestamp } from '../api/metadata.ts';
import type { ResourceType } from '../resources.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { isPodTerminal, POD_KEY } from './batch-types.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { EventRecorder } from './event-recorder.ts';
import { KeyedTimers } from './keyed-timers.ts';
import { ReconcileQueue } from './reconcile-queue.ts';
import {
  type ClaimRef,
  claimClass,
  claimNamesOf,
  claimSpec,
  defaultStorageClass,
  findBestMatch,
  PV,
  PV_KEY,
  PVC,
  PVC_KEY,
  phaseOf,
  refersTo,
  STORAGE_CLASS,
  STORAGE_CLASS_KEY,
  type StorageClass,
  volumeMismatch,
  volumeSpec,
} from './volume-matching.ts';

const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
const DEFAULT_PROVISIONER = 'kube-sim.io/hostpath';

const claimKey = (namespace: string, name: string) => `claim:${namespace}/${name}`;
const volumeKey = (name: string) => `volume:${name}`;

/** ref.GetReference for a claim: what PV spec.claimRef holds. */
function claimRefTo(claim: KubeObject): ClaimRef {
  return {
    kind: 'PersistentVolumeClaim',
    namespace: claim.metadata.namespace!,
    name: claim.metadata.name!,
    uid: claim.metadata.uid!,
    apiVersion: 'v1',
    resourceVersion: claim.metadata.resourceVersion!,
  };
}

export class PersistentVolumeBinder implements SimController {
  private readonly queue: ReconcileQueue;
  private readonly timers: KeyedTimers;
  private readonly events: EventRecorder;
  private readonly provisionerEvents = new Map<string, EventRecorder>();
  private readonly unsubscribe: () => void;
  /** Claim uid → when its bind delay is over (ms since the epoch). */
  private readonly readyAt = new Map<string, number>();
  private stopped = false;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new ReconcileQueue(
      (key) => this.handle(key),
      (key, err) => deps.onError(`persistentvolume binder ${key}`, err),
    );
    this.timers = new KeyedTimers((key) => this.queue.add(key));
    this.events = new EventRecorder(deps.client, 'persistentvolume-controller');
    this.unsubscribe = deps.store.subscribe((event) => this.observe(event));
    for (const claim of deps.store.list(PVC_KEY)) this.claimSeen(claim);
    for (const volume of deps.store.list(PV_KEY)) this.queue.add(volumeKey(volume.metadata.name!));
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    this.timers.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    const { object, type } = event;
    if (event.typeKey === PVC_KEY) {
      if (type !== 'DELETED') {
        this.claimSeen(object);
        return;
      }
      this.readyAt.delete(object.metadata.uid!);
      for (const volume of this.deps.store.list(PV_KEY))
        if (volumeSpec(volume).claimRef?.uid === object.metadata.uid)
          this.queue.add(volumeKey(volume.metadata.name!));
    } else if (event.typeKey === PV_KEY) {
      const ref = volumeSpec(object).claimRef;
      if (type === 'DELETED') {
        if (ref?.namespace && ref.name) this.queue.add(claimKey(ref.namespace, ref.name));
        return;
      }
      this.queue.add(volumeKey(object.metadata.name!));
      // New supply for claims waiting on a match.
      const freed = event.previous && volumeSpec(event.previous).claimRef && !ref;
      if (type === 'ADDED' || freed) this.queuePendingClaims();
    } else if (event.typeKey === STORAGE_CLASS_KEY) {
      if (type !== 'DELETED') this.queuePendingClaims();
    } else if (event.typeKey === POD_KEY && type !== 'DELETED') {
      // A first consumer for WaitForFirstConsumer claims.
      for (const name of claimNamesOf(object)) {
        const claim = this.deps.client.get(PVC, object.metadata.namespace, name);
        if (claim) this.claimSeen(claim);
      }
    }
  }

  /** Starts an unbound claim's bind delay on first sight; queues it once the delay is over. */
  private claimSeen(claim: KubeObject): void {
    if (claim.metadata.deletionTimestamp || phaseOf(claim) === 'Bound') return;
    const key = claimKey(claim.metadata.namespace!, claim.metadata.name!);
    const uid = claim.metadata.uid!;
    let at = this.readyAt.get(uid);
    if (at === undefined) {
      at = Date.now() + this.deps.settings.pvcBindDelayMs;
      this.readyAt.set(uid, at);
      // The default class is assigned at once, as admission would at create.
      if (claimSpec(claim).storageClassName === undefined || claimSpec(claim).storageClassName === null)
        this.queue.add(key);
    }
    const wait = at - Date.now();
    if (wait > 0) this.timers.after(key, wait);
    else this.queue.add(key);
  }

  private queuePendingClaims(): void {
    for (const claim of this.deps.store.list(PVC_KEY)) if (phaseOf(claim) !== 'Bound') this.claimSeen(claim);
  }

  private handle(key: string): void {
    if (this.stopped) return;
    if (key.startsWith('volume:')) {
      this.syncVolume(key.slice('volume:'.length));
      return;
    }
    const [namespace, name] = key.slice('claim:'.length).split('/') as [string, string];
    this.syncClaim(namespace, name);
  }

  private syncClaim(namespace: string, name: string): void {
    let claim = this.deps.client.get(PVC, namespace, name);
    if (!claim || claim.metadata.deletionTimestamp) return;
    if (phaseOf(claim) === 'Bound') {
      this.checkLost(claim);
      return;
    }
    // assignDefaultStorageClass (DefaultStorageClass admission does the same at create).
    const spec = claimSpec(claim);
    if (spec.storageClassName === undefined || spec.storageClassName === null) {
      const byDefault = defaultStorageClass(this.deps.store, this.deps.settings.defaultStorageClass);
      if (byDefault)
        claim = this.updateMain(PVC, claim, (c) => ({
          ...c,
          spec: { ...claimSpec(c), storageClassName: byDefault.metadata.name },
        }));
    }
    const at = this.readyAt.get(claim.metadata.uid!);
    if (at === undefined || at > Date.now()) {
      this.claimSeen(claim);
      return;
    }
    if (claimSpec(claim).volumeName) this.syncPreBoundClaim(claim);
    else this.syncUnboundClaim(claim);
  }

  /** syncUnboundClaim, for a claim that names its volume. */
  private syncPreBoundClaim(claim: KubeObject): void {
    const volumeName = claimSpec(claim).volumeName!;
    const volume = this.deps.client.get(PV, undefined, volumeName);
    if (!volume) {
      this.ensureClaimPending(claim);
      return;
    }
    const ref = volumeSpec(volume).claimRef;
    if (ref && !refersTo(ref, claim)) {
      this.ensureClaimPending(claim);
      if (!claim.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER])
        this.events.event(
          claim,
          'Warning',
          'FailedBinding',
          `volume "${volumeName}" already bound to a different claim.`,
        );
      return;
    }
    const mismatch = ref ? undefined : volumeMismatch(volume, claim);
    if (mismatch) {
      this.events.event(
        claim,
        'Warning',
        'VolumeMismatch',
        `Cannot bind to requested volume "${volumeName}": ${mismatch}`,
      );
      this.ensureClaimPending(claim);
      return;
    }
    this.bind(volume, claim);
  }

  /** syncUnboundClaim, for a claim that names no volume: match, else provision, else wait. */
  private syncUnboundClaim(claim: KubeObject): void {
    const className = claimClass(claim);
    const storageClass = className
      ? (this.deps.client.get(STORAGE_CLASS, undefined, className) as StorageClass | undefined)
      : undefined;
    const consumer = this.consumerOf(claim);
    if (storageClass?.volumeBindingMode === 'WaitForFirstConsumer' && !consumer) {
      this.ensureClaimPending(claim);
      this.events.event(
        claim,
        'Normal',
        'WaitForFirstConsumer',
        'waiting for first consumer to be created before binding',
      );
      return;
    }
    const match = findBestMatch(this.deps.store, claim);
    if (match) {
      this.bind(match, claim);
      return;
    }
    this.ensureClaimPending(claim);
    if (!className) {
      this.events.event(
        claim,
        'Normal',
        'FailedBinding',
        'no persistent volumes available for this claim and no storage class is set',
      );
      return;
    }
    if (!storageClass) {
      this.events.event(
        claim,
        'Warning',
        'ProvisioningFailed',
        `storageclass.storage.k8s.io "${className}" not found`,
      );
      return;
    }
    if (claimSpec(claim).selector) {
      this.events.event(claim, 'Warning', 'ProvisioningFailed', 'claim Selector is not supported');
      return;
    }
    this.bind(this.provision(claim, storageClass, consumer), claim);
  }

  /** A Pod that mounts the claim (the scheduler's trigger for WaitForFirstConsumer). */
  private consumerOf(claim: KubeObject): KubeObject | undefined {
    return this.deps.store
      .list(POD_KEY, claim.metadata.namespace)
      .find((pod) => !isPodTerminal(pod) && claimNamesOf(pod).includes(claim.metadata.name!));
  }

  /** The provisioner's part: the claim's annotations, then a PV pre-bound to it. */
  private provision(
    claim: KubeObject,
    storageClass: StorageClass,
    consumer: KubeObject | undefined,
  ): KubeObject {
    const provisioner = storageClass.provisioner ?? DEFAULT_PROVISIONER;
    const node = (consumer?.spec as { nodeName?: string } | undefined)?.nodeName;
    // setClaimProvisioner, and the scheduler's selected node for delayed binding.
    const annotated = this.updateMain(PVC, claim, (c) => ({
      ...c,
      metadata: {
        ...c.metadata,
        annotations: {
          ...c.metadata.annotations,
          [ANN_BETA_STORAGE_PROVISIONER]: provisioner,
          [ANN_STORAGE_PROVISIONER]: provisioner,
          ...(node ? { [ANN_SELECTED_NODE]: node } : {}),
        },
      },
    }));
    const name = `pvc-${claim.metadata.uid}`;
    const existing = this.deps.client.get(PV, undefined, name);
    if (existing) return existing;
    const spec = claimSpec(annotated);
    const volume = this.deps.client.create(PV, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, annotations: { [ANN_PROVISIONED_BY]: provisioner } },
      spec: {
        accessModes: [...(spec.accessModes ?? [])],
        capacity: { storage: spec.resources?.requests?.storage ?? '0' },
        claimRef: claimRefTo(annotated),
        hostPath: { path: `/var/lib/kube-sim/${name}`, type: 'DirectoryOrCreate' },
        ...(storageClass.mountOptions ? { mountOptions: [...storageClass.mountOptions] } : {}),
        persistentVolumeReclaimPolicy: storageClass.reclaimPolicy ?? 'Delete',
        storageClassName: storageClass.metadata.name,
        volumeMode: spec.volumeMode ?? 'Filesystem',
      },
    });
    this.recorderFor(provisioner).event(
      annotated,
      'Normal',
      'ProvisioningSucceeded',
      `Successfully provisioned volume ${name}`,
    );
    return volume;
  }

  private recorderFor(provisioner: string): EventRecorder {
    let recorder = this.provisionerEvents.get(provisioner);
    if (!recorder) {
      recorder = new EventRecorder(this.deps.client, provisioner);
      this.provisionerEvents.set(provisioner, recorder);
    }
    return recorder;
  }

  /** bind: bindVolumeToClaim, updateVolumePhase(Bound), bindClaimToVolume, updateClaimStatus(Bound). */
  private bind(volume: KubeObject, claim: KubeObject): void {
    const ref = volumeSpec(volume).claimRef;
    let pv = volume;
    if (!ref || ref.uid !== claim.metadata.uid) {
      const chosenByController = !refersTo(ref, claim);
      pv = this.updateMain(PV, pv, (v) => ({
        ...v,
        metadata: {
          ...v.metadata,
          ...(chosenByController
            ? { annotations: { [ANN_BOUND_BY_CONTROLLER]: 'yes', ...v.metadata.annotations } }
            : {}),
        },
        spec: { ...volumeSpec(v), claimRef: claimRefTo(claim) },
      }));
    }
    pv = this.setVolumePhase(pv, 'Bound');
    const bound = this.updateMain(PVC, claim, (c) => {
      const annotations: Record<string, string> = { ...c.metadata.annotations };
      const spec = { ...claimSpec(c) };
      if (spec.volumeName !== pv.metadata.name) {
        spec.volumeName = pv.metadata.name;
        annotations[ANN_BOUND_BY_CONTROLLER] ??= 'yes';
      }
      annotations[ANN_BIND_COMPLETED] ??= 'yes';
      return { ...c, metadata: { ...c.metadata, annotations }, spec };
    });
    const status = (bound.status ?? {}) as Record<string, unknown>;
    this.updateStatus(PVC, bound, {
      ...status,
      phase: 'Bound',
      accessModes: [...(volumeSpec(pv).accessModes ?? [])],
      capacity: { ...volumeSpec(pv).capacity },
    });
  }

  /** syncVolume: Available, Bound, or Released and reclaimed once its claim is gone. */
  private syncVolume(name: string): void {
    const volume = this.deps.client.get(PV, undefined, name);
    // A volume being deleted is still synced, as upstream's syncVolume does: a Bound one whose
    // claim goes must become Released, or pv-protection (which waits for "not Bound") holds it forever.
    if (!volume) return;
    const ref = volumeSpec(volume).claimRef;
    if (!ref?.uid) {
      this.setVolumePhase(volume, 'Available');
      // A volume pre-bound by name waits for that claim's sync.
      if (ref?.namespace && ref.name) {
        const claim = this.deps.client.get(PVC, ref.namespace, ref.name);
        if (claim) this.claimSeen(claim);
      }
      return;
    }
    const claim = ref.namespace && ref.name ? this.deps.client.get(PVC, ref.namespace, ref.name) : undefined;
    if (claim && claim.metadata.uid === ref.uid) {
      const volumeName = claimSpec(claim).volumeName;
      if (volumeName === name) this.setVolumePhase(volume, 'Bound');
      else if (!volumeName) {
        this.setVolumePhase(volume, 'Available');
        this.claimSeen(claim);
      } else if (volume.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER]) this.unbind(volume);
      return;
    }
    // The claim was deleted: release the volume, then reclaim it by policy (reclaimVolume).
    const released = phaseOf(volume) === 'Failed' ? volume : this.setVolumePhase(volume, 'Released');
    if (
      (volumeSpec(released).persistentVolumeReclaimPolicy ?? 'Retain') === 'Delete' &&
      !released.metadata.deletionTimestamp
    )
      this.deps.client.delete(PV, undefined, name);
  }

  /** unbindVolume: the controller's own claimRef goes, the volume is Available again. */
  private unbind(volume: KubeObject): void {
    const cleared = this.updateMain(PV, volume, (v) => {
      const { [ANN_BOUND_BY_CONTROLLER]: _dropped, ...annotations } = v.metadata.annotations ?? {};
      const { claimRef: _ref, ...spec } = volumeSpec(v);
      return { ...v, metadata: { ...v.metadata, annotations }, spec };
    });
    this.setVolumePhase(cleared, 'Available');
  }

  private checkLost(claim: KubeObject): void {
    const volumeName = claimSpec(claim).volumeName;
    if (!volumeName || this.deps.client.get(PV, undefined, volumeName)) return;
    this.updateStatus(PVC, claim, { ...(claim.status as object), phase: 'Lost' });
    this.events.event(
      claim,
      'Warning',
      'ClaimLost',
      'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
    );
  }

  private ensureClaimPending(claim: KubeObject): void {
    if (phaseOf(claim) !== 'Pending')
      this.updateStatus(PVC, claim, { ...(claim.status as object), phase: 'Pending' });
  }

  /** updateVolumePhase: the phase, its transition time (PersistentVolumeLastPhaseTransitionTime). */
  private setVolumePhase(volume: KubeObject, phase: string): KubeObject {
    if (phaseOf(volume) === phase) return volume;
    const { message: _message, ...status } = (volume.status ?? {}) as Record<string, unknown>;
    return this.updateStatus(PV, volume, { ...status, phase, lastPhaseTransitionTime: timestamp() });
  }

  /** An update of the main resource from the stored object; nothing is written when nothing changes. */
  private updateMain(
    type: ResourceType,
    object: KubeObject,
    change: (o: KubeObject) => KubeObject,
  ): KubeObject {
    const current = this.deps.client.get(type, object.metadata.namespace, object.metadata.name!) ?? object;
    const next = change(clone(current));
    if (JSON.stringify(next) === JSON.stringify(current)) return current;
    return this.deps.client.update(type, next);
  }

  private updateStatus(type: ResourceType, object: KubeObject, status: Record<string, unknown>): KubeObject {
    const current = this.deps.client.get(type, object.metadata.namespace, object.metadata.name!) ?? object;
    if (JSON.stringify(current.status ?? {}) === JSON.stringify(status)) return current;
    return this.deps.client.update(type, { ...clone(current), status }, 'status');
  }
}

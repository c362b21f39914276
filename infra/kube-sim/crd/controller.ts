/**
 * The CRD controllers of apiextensions-apiserver in one: the naming controller
 * (pkg/controller/status/naming_controller.go: acceptedNames, NamesAccepted), the establishing
 * controller (pkg/controller/establish: Established) and the finalizer controller
 * (pkg/controller/finalizer/crd_finalizer.go: a CRD being deleted has its custom resources
 * deleted, then loses `customresourcecleanup.apiextensions.k8s.io` and goes), plus the
 * registration of served versions that upstream's customresource_handler does on CRD changes.
 * Always running: this is part of the API's semantics, not a workload controller.
 */

import { timestamp } from '../api/metadata.ts';
import { typeKey } from '../api/service.ts';
import type { SimController } from '../controllers/controller.ts';
import { ReconcileQueue } from '../controllers/reconcile-queue.ts';
import type { SimClient } from '../controllers/sim-client.ts';
import { findByKind } from '../resources.ts';
import type { ObjectStore, StoreEvent } from '../store/object-store.ts';
import { clone } from '../types.ts';
import { asCrd, CLEANUP_FINALIZER, type Crd } from './definition.ts';
import { serveCrd, stopServingCrd, typesOf } from './serving.ts';

const CRD_TYPE = findByKind('apiextensions.k8s.io/v1', 'CustomResourceDefinition')!;

type Condition = NonNullable<NonNullable<Crd['status']>['conditions']>[number];

export class CrdController implements SimController {
  private readonly queue: ReconcileQueue;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: ObjectStore,
    private readonly client: SimClient,
    onError: (what: string, err: unknown) => void,
  ) {
    this.queue = new ReconcileQueue(
      (name) => this.reconcile(name),
      (name, e) => onError(`customresourcedefinition ${name}`, e),
    );
    this.unsubscribe = store.subscribe((event) => this.observe(event));
    // A loaded snapshot's CRDs are served from the start, as upstream serves stored CRDs.
    for (const crd of store.list(typeKey(CRD_TYPE))) {
      serveCrd(asCrd(crd));
      this.queue.add(crd.metadata.name!);
    }
  }

  stop(): void {
    this.unsubscribe();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    if (event.typeKey === typeKey(CRD_TYPE)) {
      const name = event.object.metadata.name!;
      if (event.type === 'DELETED') stopServingCrd(name);
      else {
        // Served at once, as upstream's handler picks the CRD up from its informer.
        if (!event.object.metadata.deletionTimestamp) serveCrd(asCrd(event.object));
        this.queue.add(name);
      }
      return;
    }
    if (event.type === 'DELETED') {
      // A custom resource went: its CRD may be waiting for the last one.
      for (const crd of this.store.list(typeKey(CRD_TYPE))) {
        if (!crd.metadata.deletionTimestamp) continue;
        const types = typesOf(asCrd(crd));
        if (types.some((t) => typeKey(t) === event.typeKey)) this.queue.add(crd.metadata.name!);
      }
    }
  }

  private reconcile(name: string): void {
    const stored = this.store.get(typeKey(CRD_TYPE), undefined, name);
    if (!stored) return;
    const crd = asCrd(clone(stored));
    if (crd.metadata.deletionTimestamp) {
      this.finalize(crd);
      return;
    }
    const names = crd.spec.names ?? {};
    const status = crd.status ?? {};
    const conditions = [...(status.conditions ?? [])];
    const accepted = {
      plural: names.plural,
      singular: names.singular,
      ...(names.shortNames?.length ? { shortNames: names.shortNames } : {}),
      kind: names.kind,
      listKind: names.listKind,
      ...(names.categories?.length ? { categories: names.categories } : {}),
    };
    let changed = JSON.stringify(status.acceptedNames) !== JSON.stringify(accepted);
    changed =
      setCondition(conditions, {
        type: 'NamesAccepted',
        status: 'True',
        reason: 'NoConflicts',
        message: 'no conflicts found',
      }) || changed;
    changed =
      setCondition(conditions, {
        type: 'Established',
        status: 'True',
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      }) || changed;
    if (!changed) return;
    crd.status = { ...status, conditions, acceptedNames: accepted };
    this.client.update(CRD_TYPE, crd, 'status');
  }

  /** crd_finalizer.go: delete every custom resource, then drop the finalizer. */
  private finalize(crd: Crd): void {
    if (!crd.metadata.finalizers?.includes(CLEANUP_FINALIZER)) return;
    const types = typesOf(crd);
    const type = types[0];
    let left = 0;
    if (type) {
      for (const object of this.store.list(typeKey(type))) {
        left++;
        if (!object.metadata.deletionTimestamp)
          this.client.delete(type, object.metadata.namespace, object.metadata.name!, 'Background');
      }
      left = this.store.list(typeKey(type)).length;
    }
    const conditions = [...(crd.status?.conditions ?? [])];
    setCondition(
      conditions,
      left > 0
        ? {
            type: 'Terminating',
            status: 'True',
            reason: 'InstanceDeletionInProgress',
            message: 'CustomResource deletion is in progress',
          }
        : {
            type: 'Terminating',
            status: 'False',
            reason: 'InstanceDeletionCompleted',
            message: 'removed all instances',
          },
    );
    if (left > 0) {
      crd.status = { ...crd.status, conditions };
      this.client.update(CRD_TYPE, crd, 'status');
      return;
    }
    // The CRD stops being served before it goes, as the finalizer controller's last step.
    stopServingCrd(crd.metadata.name!);
    crd.metadata.finalizers = crd.metadata.finalizers.filter((f) => f !== CLEANUP_FINALIZER);
    this.client.update(CRD_TYPE, crd);
  }
}

/** Sets a condition; true when it changed (lastTransitionTime moves only on a status change). */
function setCondition(conditions: Condition[], next: Omit<Condition, 'lastTransitionTime'>): boolean {
  const i = conditions.findIndex((c) => c.type === next.type);
  const current = conditions[i];
  if (
    current &&
    current.status === next.status &&
    current.reason === next.reason &&
    current.message === next.message
  )
    return false;
  const lastTransitionTime =
    current && current.status === next.status && current.lastTransitionTime
      ? current.lastTransitionTime
      : timestamp();
  const condition = { ...next, lastTransitionTime };
  if (i >= 0) conditions[i] = condition;
  else conditions.push(condition);
  return true;
}

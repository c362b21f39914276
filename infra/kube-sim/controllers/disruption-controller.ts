/**
 * The disruption controller's status upkeep of PodDisruptionBudgets (pkg/controller/disruption):
 * from the Pods its selector matches in its namespace (policy/v1: an empty selector matches every
 * Pod, a missing one none):
 * - currentHealthy: matching Pods that are Ready and not being deleted (countHealthyPods);
 * - expectedPods and desiredHealthy (getExpectedPodCount): with an integer minAvailable, the
 *   matching Pods and minAvailable; with a percentage or maxUnavailable, the scale of the Pods'
 *   controllers (a ReplicaSet's owning Deployment, else the ReplicaSet) — a Pod without a
 *   controller counts as one, where upstream would refuse to compute (documented simplification);
 * - disruptionsAllowed = currentHealthy − desiredHealthy (not below 0), and the condition
 *   DisruptionAllowed (SufficientPods / InsufficientPods).
 * No eviction API: nothing here consumes disruptions.
 */
import { findByKind } from '../resources.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import { selectorMatches } from '../validation/selector.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ControllerQueue } from './controller-queue.ts';
import { isPodReady } from './pod-util.ts';
import { type StatusCondition, setCondition } from './status-conditions.ts';
import type { Pod } from './workload-types.ts';

const PDB = findByKind('policy/v1', 'PodDisruptionBudget')!;
const PDB_KEY = 'policy/poddisruptionbudgets';
const POD_KEY = '/pods';

interface PdbSpec {
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  selector?: unknown;
}

/** GetScaledValueFromIntOrPercent with rounding up, as the controller calls it. */
function scaled(value: number | string, total: number): number {
  if (typeof value === 'number') return value;
  return Math.ceil((Number(value.replace('%', '')) * total) / 100);
}

export class DisruptionController implements SimController {
  private readonly queue: ControllerQueue;
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new ControllerQueue(
      (key) => this.sync(key),
      (key, err) => deps.onError(`poddisruptionbudget ${key}`, err),
    );
    for (const pdb of deps.store.list(PDB_KEY)) this.queue.add(keyOf(pdb));
    this.unsubscribe = deps.store.subscribe((event) => this.observe(event));
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    if (event.typeKey === PDB_KEY) {
      if (event.type !== 'DELETED') this.queue.add(keyOf(event.object));
    } else if (event.typeKey === POD_KEY) {
      for (const pdb of this.deps.store.list(PDB_KEY, event.object.metadata.namespace))
        this.queue.add(keyOf(pdb));
    }
  }

  /** The replicas of the controller behind a Pod (getPodReplicaSet → getPodDeployment). */
  private controllerScale(pod: KubeObject): { key: string; replicas: number } | undefined {
    const ref = pod.metadata.ownerReferences?.find((r) => r.controller);
    if (!ref) return undefined;
    const ns = pod.metadata.namespace;
    const type = findByKind(ref.apiVersion, ref.kind);
    const owner = type ? this.deps.store.get(`${type.group}/${type.plural}`, ns, ref.name) : undefined;
    if (!owner) return undefined;
    const ownerRef = owner.metadata.ownerReferences?.find((r) => r.controller && r.kind === 'Deployment');
    const deployment = ownerRef ? this.deps.store.get('apps/deployments', ns, ownerRef.name) : undefined;
    const top = deployment ?? owner;
    return {
      key: `${top.kind}/${top.metadata.name}`,
      replicas: Number((top.spec as { replicas?: number })?.replicas ?? 0),
    };
  }

  private sync(key: string): void {
    const [namespace, name] = key.split('/') as [string, string];
    const pdb = this.deps.store.get(PDB_KEY, namespace, name);
    if (!pdb || pdb.metadata.deletionTimestamp) return;
    const spec = (pdb.spec ?? {}) as PdbSpec;
    const pods = (this.deps.store.list(POD_KEY, namespace) as Pod[]).filter((p) =>
      selectorMatches(spec.selector, p.metadata.labels ?? {}),
    );
    const currentHealthy = pods.filter((p) => !p.metadata.deletionTimestamp && isPodReady(p)).length;
    let expectedPods: number;
    let desiredHealthy: number;
    if (typeof spec.minAvailable === 'number') {
      expectedPods = pods.length;
      desiredHealthy = spec.minAvailable;
    } else {
      const scales = new Map<string, number>();
      let uncontrolled = 0;
      for (const pod of pods) {
        const scale = this.controllerScale(pod);
        if (scale) scales.set(scale.key, scale.replicas);
        else uncontrolled++;
      }
      expectedPods = [...scales.values()].reduce((a, b) => a + b, 0) + uncontrolled;
      if (spec.maxUnavailable !== undefined)
        desiredHealthy = Math.max(0, expectedPods - scaled(spec.maxUnavailable, expectedPods));
      else desiredHealthy = spec.minAvailable !== undefined ? scaled(spec.minAvailable, expectedPods) : 0;
    }
    const disruptionsAllowed = Math.max(0, currentHealthy - desiredHealthy);
    const old = (pdb.status ?? {}) as { conditions?: StatusCondition[] };
    const generation = pdb.metadata.generation ?? 1;
    const status = {
      ...(pdb.status as object),
      observedGeneration: generation,
      disruptionsAllowed,
      currentHealthy,
      desiredHealthy,
      expectedPods,
      conditions: setCondition(
        old.conditions,
        disruptionsAllowed > 0
          ? {
              type: 'DisruptionAllowed',
              status: 'True',
              reason: 'SufficientPods',
              message: '',
              observedGeneration: generation,
            }
          : {
              type: 'DisruptionAllowed',
              status: 'False',
              reason: 'InsufficientPods',
              message: '',
              observedGeneration: generation,
            },
        new Date(),
      ),
    };
    if (semanticEqual(status, pdb.status)) return;
    this.deps.client.update(PDB, { ...clone(pdb), status }, 'status');
  }
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

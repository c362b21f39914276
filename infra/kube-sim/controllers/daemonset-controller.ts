/**
 * The DaemonSet controller (pkg/controller/daemon: daemon_controller.go manage/syncNodes,
 * update.go rollingUpdate, util/daemonset_util.go). For each set, every Node its Pods fit
 * (nodeSelector and required node affinity, scheduler.ts podFitsNode) runs one Pod
 * `<set>-<random>`, made from the template with a node affinity pinning it to that Node
 * (ReplaceDaemonSetPodNodeNameNodeAffinity), the daemon tolerations (AddOrUpdateDaemonPodTolerations)
 * and the labels `controller-revision-hash` (the ControllerRevision's hash) and
 * `pod-template-generation`; Pods on Nodes that no longer fit, surplus Pods on a Node (the oldest
 * is kept) and failed Pods are deleted. RollingUpdate replaces Pods of older revisions at most
 * maxUnavailable (an int, or a percentage of desiredNumberScheduled rounded up) at a time,
 * unavailable ones first; OnDelete leaves them. maxSurge > 0 (surge instead of unavailability) is
 * not simulated: such sets roll as with maxUnavailable 1. Status through `/status`:
 * desiredNumberScheduled, currentNumberScheduled, numberMisscheduled, numberReady,
 * updatedNumberScheduled, numberAvailable, numberUnavailable, observedGeneration. Events as
 * RealPodControl records them: `Created pod: x`, `Deleted pod: x`.
 */
import { typeKey } from '../api/service.ts';
import { StatusError } from '../errors.ts';
import { findByKind } from '../resources.ts';
import { matchesLabelSelectorObject } from '../selectors.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ControllerQueue } from './controller-queue.ts';
import { claimObjects } from './controller-ref-manager.ts';
import { ensureUpdateRevision, HASH_LABEL, REVISION_LABEL, truncateHistory } from './controller-revisions.ts';
import { EventRecorder } from './event-recorder.ts';
import { NODE } from './node-controller.ts';
import { isPodActive, isPodAvailable, isPodReady } from './pod-util.ts';
import { nodeIsReady, podFitsNode, untoleratedTaint } from './scheduler.ts';
import {
  controllerOf,
  controllerRef,
  objectKeyOf,
  POD,
  type Pod,
  type PodTemplateSpec,
  splitKey,
} from './workload-types.ts';

export const DAEMON_SET = findByKind('apps/v1', 'DaemonSet')!;
const DS_KEY = typeKey(DAEMON_SET);
const POD_KEY = typeKey(POD);
const NODE_KEY = typeKey(NODE);
const RETRY_AFTER_ERROR_MS = 1000;
const GENERATION_LABEL = 'pod-template-generation';

interface DaemonSet extends KubeObject {
  spec: {
    selector: { matchLabels?: Record<string, string> };
    template: PodTemplateSpec;
    updateStrategy?: {
      type?: string;
      rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string };
    };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
  };
  status?: Record<string, unknown> & { collisionCount?: number };
}

/** AddOrUpdateDaemonPodTolerations: a daemon Pod stays through node conditions and cordons. */
const DAEMON_TOLERATIONS = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

/** The Node a daemon Pod is for: where it runs, or the one its affinity pins it to. */
function nodeOfPod(pod: Pod): string | undefined {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  const terms = (
    pod.spec.affinity as
      | {
          nodeAffinity?: {
            requiredDuringSchedulingIgnoredDuringExecution?: {
              nodeSelectorTerms?: { matchFields?: { key: string; values?: string[] }[] }[];
            };
          };
        }
      | undefined
  )?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return terms?.[0]?.matchFields?.find((f) => f.key === 'metadata.name')?.values?.[0];
}

export class DaemonSetController implements SimController {
  private readonly queue: ControllerQueue;
  private readonly unsubscribe: () => void;
  private readonly events: EventRecorder;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new ControllerQueue(
      (key) => this.sync(key),
      (key, err) => deps.onError(`daemonset ${key}`, err),
    );
    this.events = new EventRecorder(deps.client, 'daemonset-controller');
    this.unsubscribe = deps.store.subscribe((event) => this.observe(event));
    for (const ds of deps.store.list(DS_KEY)) this.queue.add(objectKeyOf(ds));
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    if (event.typeKey === DS_KEY) {
      const key = objectKeyOf(event.object);
      if (event.type === 'DELETED') this.queue.forget(key);
      else this.queue.add(key);
    } else if (event.typeKey === NODE_KEY) {
      // A Node added, removed or relabelled changes where every set runs.
      for (const ds of this.deps.store.list(DS_KEY)) this.queue.add(objectKeyOf(ds));
    } else if (event.typeKey === POD_KEY) {
      for (const pod of [event.object, event.previous]) {
        const ref = pod && controllerOf(pod);
        if (ref?.kind === 'DaemonSet') this.queue.add(`${pod!.metadata.namespace}/${ref.name}`);
      }
    }
  }

  private sync(key: string): void {
    const { namespace, name } = splitKey(key);
    const ds = this.deps.store.get(DS_KEY, namespace, name) as DaemonSet | undefined;
    if (!ds || ds.metadata.deletionTimestamp) return;
    const { store, client } = this.deps;
    const { update, revisions } = ensureUpdateRevision(store, client, ds);
    const hash = update.metadata.labels?.[HASH_LABEL] ?? '';
    const nodes = store.list(NODE_KEY).filter((n) => !n.metadata.deletionTimestamp);
    const pods = claimObjects(
      ds,
      store.claimable(POD_KEY, namespace!, ds.metadata.uid!) as Pod[],
      (pod) => matchesLabelSelectorObject(ds.spec.selector, pod.metadata.labels),
      (next) => client.update(POD, next) as Pod,
    );
    const byNode = new Map<string, Pod[]>();
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp) continue;
      const node = nodeOfPod(pod) ?? '';
      byNode.set(node, [...(byNode.get(node) ?? []), pod]);
    }
    const template = { spec: ds.spec.template.spec ?? { containers: [] } } as Pod;
    // nodeShouldRunDaemonPod: the scheduler's predicates for a Pod with the daemon tolerations; a
    // NotReady Node has the not-ready:NoSchedule taint, which those tolerations leave out.
    const given = (template.spec.tolerations ?? []) as object[];
    const daemonPod = {
      spec: { ...template.spec, tolerations: [...given, ...DAEMON_TOLERATIONS] },
    } as unknown as Pod;
    const shouldRun = nodes
      .filter((n) => nodeIsReady(n) && podFitsNode(template, n) && !untoleratedTaint(daemonPod, n))
      .map((n) => n.metadata.name!);
    let error: Error | undefined;
    try {
      this.manage(ds, shouldRun, byNode, hash);
      if ((ds.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate')
        this.rollingUpdate(ds, shouldRun, hash);
    } catch (err) {
      const terminating =
        err instanceof StatusError && err.details?.causes?.some((c) => c.reason === 'NamespaceTerminating');
      if (!terminating) error = err instanceof Error ? err : new Error(String(err));
    }
    const live = new Set([update.metadata.name!]);
    for (const rev of revisions)
      if (pods.some((p) => p.metadata.labels?.[REVISION_LABEL] === rev.metadata.labels?.[HASH_LABEL]))
        live.add(rev.metadata.name!);
    truncateHistory(client, ds, revisions, live);
    const status = this.computeStatus(ds, shouldRun, hash);
    const stored = store.get(DS_KEY, namespace, name);
    if (stored && !semanticEqual(status, stored.status))
      client.update(DAEMON_SET, { ...stored, status } as KubeObject, 'status');
    if (error) {
      this.queue.addLater(key, RETRY_AFTER_ERROR_MS);
      throw error;
    }
    const minReady = ds.spec.minReadySeconds ?? 0;
    if (minReady > 0 && status.numberReady !== status.numberAvailable)
      this.queue.addLater(key, minReady * 1000);
  }

  /** manage/podsShouldBeOnNode: one Pod on each Node that should run one, none elsewhere. */
  private manage(ds: DaemonSet, shouldRun: string[], byNode: Map<string, Pod[]>, hash: string): void {
    for (const node of shouldRun) {
      const onNode = (byNode.get(node) ?? []).sort((a, b) =>
        (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''),
      );
      const failed = onNode.filter((p) => p.status?.phase === 'Failed');
      for (const pod of failed) this.deletePod(ds, pod);
      const running = onNode.filter((p) => p.status?.phase !== 'Failed');
      if (running.length === 0) this.createPod(ds, node, hash);
      for (const extra of running.slice(1)) this.deletePod(ds, extra);
    }
    for (const [node, onNode] of byNode)
      if (!shouldRun.includes(node)) for (const pod of onNode) this.deletePod(ds, pod);
  }

  /** rollingUpdate: old Pods go, unavailable ones first, within maxUnavailable. */
  private rollingUpdate(ds: DaemonSet, shouldRun: string[], hash: string): void {
    const current = (node: string) =>
      this.deps.store
        .list(POD_KEY, ds.metadata.namespace)
        .filter((p) => controllerOf(p)?.uid === ds.metadata.uid && nodeOfPod(p as Pod) === node) as Pod[];
    const desired = shouldRun.length;
    const raw = ds.spec.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
    let maxUnavailable =
      typeof raw === 'string' ? Math.ceil((Number(raw.replace('%', '')) / 100) * desired) : raw;
    if (maxUnavailable === 0) maxUnavailable = 1; // maxSurge sets: see the header.
    const minReady = ds.spec.minReadySeconds ?? 0;
    const now = new Date();
    let unavailable = 0;
    const oldAvailable: Pod[] = [];
    for (const node of shouldRun) {
      const pods = current(node).filter((p) => !p.metadata.deletionTimestamp);
      const pod = pods[0];
      const available = pod && isPodAvailable(pod, minReady, now);
      if (!available) unavailable++;
      if (!pod || pod.metadata.labels?.[REVISION_LABEL] === hash) continue;
      // An old Pod that is not available anyway goes at once.
      if (!available) this.deletePod(ds, pod);
      else oldAvailable.push(pod);
    }
    for (const pod of oldAvailable) {
      if (unavailable >= maxUnavailable) break;
      this.deletePod(ds, pod);
      unavailable++;
    }
  }

  private createPod(ds: DaemonSet, node: string, hash: string): void {
    const meta = ds.spec.template.metadata ?? {};
    const spec = clone(ds.spec.template.spec ?? { containers: [] });
    spec.affinity = {
      ...((spec.affinity as object | undefined) ?? {}),
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
        },
      },
    };
    const tolerations = (spec.tolerations ?? []) as { key?: string; effect?: string }[];
    spec.tolerations = [
      ...tolerations,
      ...DAEMON_TOLERATIONS.filter((t) => !tolerations.some((x) => x.key === t.key && x.effect === t.effect)),
    ];
    const created = this.deps.client.create(POD, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${ds.metadata.name}-`,
        namespace: ds.metadata.namespace!,
        labels: {
          ...(meta.labels ?? {}),
          [REVISION_LABEL]: hash,
          [GENERATION_LABEL]: String(ds.metadata.generation ?? 1),
        },
        ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
        ownerReferences: [controllerRef(ds)],
      },
      spec,
    });
    this.events.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
  }

  private deletePod(ds: DaemonSet, pod: Pod): void {
    if (!this.deps.store.get(POD_KEY, pod.metadata.namespace, pod.metadata.name!)) return;
    this.deps.client.delete(POD, pod.metadata.namespace, pod.metadata.name!);
    this.events.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
  }

  /** updateDaemonSetStatus: counted per Node, from the Pods as they are now. */
  private computeStatus(ds: DaemonSet, shouldRun: string[], hash: string): Record<string, number> {
    const pods = (this.deps.store.list(POD_KEY, ds.metadata.namespace) as Pod[]).filter(
      (p) => controllerOf(p)?.uid === ds.metadata.uid && isPodActive(p),
    );
    const minReady = ds.spec.minReadySeconds ?? 0;
    const now = new Date();
    let current = 0;
    let misscheduled = 0;
    let ready = 0;
    let available = 0;
    let updated = 0;
    const nodesWithPods = new Set(pods.map((p) => nodeOfPod(p)));
    for (const node of nodesWithPods) if (node && !shouldRun.includes(node)) misscheduled++;
    for (const node of shouldRun) {
      const onNode = pods.filter((p) => nodeOfPod(p) === node);
      if (onNode.length === 0) continue;
      current++;
      const pod = onNode[0]!;
      if (isPodReady(pod)) {
        ready++;
        if (isPodAvailable(pod, minReady, now)) available++;
      }
      if (onNode.some((p) => p.metadata.labels?.[REVISION_LABEL] === hash)) updated++;
    }
    const unavailable = shouldRun.length - available;
    // DaemonSetStatus: the four counts are always serialized; the others omitempty.
    return {
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      desiredNumberScheduled: shouldRun.length,
      numberReady: ready,
      ...(ds.metadata.generation ? { observedGeneration: ds.metadata.generation } : {}),
      ...(updated ? { updatedNumberScheduled: updated } : {}),
      ...(available ? { numberAvailable: available } : {}),
      ...(unavailable > 0 ? { numberUnavailable: unavailable } : {}),
    };
  }
}

/**
 * The default scheduler's choice of a node for a Pod (pkg/scheduler, reduced to what kube-sim's
 * Nodes can differ in): the feasible nodes are those that are Ready and schedulable (or the Pod
 * tolerates `node.kubernetes.io/unschedulable`), whose labels match spec.nodeSelector and whose
 * labels and name match the required node affinity (plugins/nodeaffinity: nodeSelectorTerms
 * ORed, matchExpressions and matchFields ANDed; In, NotIn, Exists, DoesNotExist, Gt, Lt); of
 * those, the one running the fewest Pods (plugins/noderesources' least-allocated score with
 * every Pod counted alike), ties broken by name — so Pods spread over the nodes. Unschedulable
 * Pods get upstream's FailedScheduling message shape
 * (`0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.`).
 */
import { typeKey } from '../api/service.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import { NODE } from './node-controller.ts';
import type { NodeLoad } from './node-load.ts';
import type { Pod } from './workload-types.ts';

const NODE_KEY = typeKey(NODE);

interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

function matchesRequirement(value: string | undefined, r: Requirement): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const n = Number(value);
      const bound = Number(values[0]);
      if (value === undefined || Number.isNaN(n) || Number.isNaN(bound)) return false;
      return r.operator === 'Gt' ? n > bound : n < bound;
    }
    default:
      return false;
  }
}

interface NodeSelectorTerm {
  matchExpressions?: Requirement[];
  matchFields?: Requirement[];
}

/** nodeaffinity's filter: nodeSelector and required node affinity. */
export function podFitsNode(pod: Pod, node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  const selector = (pod.spec.nodeSelector ?? {}) as Record<string, string>;
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const affinity = pod.spec.affinity as
    | {
        nodeAffinity?: {
          requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] };
        };
      }
    | undefined;
  const terms = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms) return true;
  // An empty term matches nothing (v1 NodeSelectorTerm semantics).
  return terms.some((term) => {
    const exprs = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    if (exprs.length === 0 && fields.length === 0) return false;
    return (
      exprs.every((r) => matchesRequirement(labels[r.key], r)) &&
      fields.every((r) => r.key === 'metadata.name' && matchesRequirement(node.metadata.name, r))
    );
  });
}

function isReady(node: KubeObject): boolean {
  const conditions = ((node.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions ?? []) as { type: string; status: string }[];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

/** v1 Toleration.ToleratesTaint (k8s.io/api/core/v1/toleration.go): key, effect, Exists/Equal. */
function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  // Equal (the default), and an empty key only goes with Exists.
  return Boolean(toleration.key) && (toleration.value ?? '') === (taint.value ?? '');
}

/**
 * The first of the node's NoSchedule/NoExecute taints the Pod does not tolerate (the TaintToleration
 * filter plugin; PreferNoSchedule only scores), or undefined when it tolerates them all.
 */
export function untoleratedTaint(pod: Pod, node: KubeObject): Taint | undefined {
  const taints = ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []) as Taint[];
  const tolerations = (pod.spec.tolerations ?? []) as Toleration[];
  return taints.find(
    (taint) =>
      (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') &&
      !tolerations.some((t) => tolerates(t, taint)),
  );
}

/** Whether the node reports Ready (a NotReady node has upstream's not-ready:NoSchedule taint). */
export function nodeIsReady(node: KubeObject): boolean {
  return isReady(node);
}

function toleratesUnschedulable(pod: Pod): boolean {
  const tolerations = (pod.spec.tolerations ?? []) as { key?: string; operator?: string; effect?: string }[];
  return tolerations.some(
    (t) =>
      (t.key === 'node.kubernetes.io/unschedulable' || (t.key === undefined && t.operator === 'Exists')) &&
      (t.effect === undefined || t.effect === 'NoSchedule'),
  );
}

export type Placement = { node: string } | { unschedulable: string };

/** Where the scheduler puts `pod`, or why it cannot. */
export function schedulePod(store: ObjectStore, load: NodeLoad, pod: Pod): Placement {
  const nodes = store.list(NODE_KEY).filter((n) => !n.metadata.deletionTimestamp);
  let notReady = 0;
  let cordoned = 0;
  let mismatched = 0;
  const tainted = new Map<string, number>();
  const feasible: string[] = [];
  for (const node of nodes) {
    const unschedulable = (node.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true;
    const taint = untoleratedTaint(pod, node);
    if (!isReady(node)) notReady++;
    else if (unschedulable && !toleratesUnschedulable(pod)) cordoned++;
    else if (!podFitsNode(pod, node)) mismatched++;
    else if (taint) {
      const text = `{${taint.key}: ${taint.value ?? ''}}`;
      tainted.set(text, (tainted.get(text) ?? 0) + 1);
    } else feasible.push(node.metadata.name!);
  }
  if (feasible.length > 0) {
    feasible.sort((a, b) => load.of(a) - load.of(b) || a.localeCompare(b));
    return { node: feasible[0]! };
  }
  // framework.Diagnosis as the scheduler's FitError prints it: reasons sorted, counts first.
  const reasons = [
    ...(mismatched ? [`${mismatched} node(s) didn't match Pod's node affinity/selector`] : []),
    ...(notReady ? [`${notReady} node(s) had untolerated taint {node.kubernetes.io/not-ready: }`] : []),
    ...(cordoned ? [`${cordoned} node(s) were unschedulable`] : []),
    ...[...tainted].map(([taint, n]) => `${n} node(s) had untolerated taint ${taint}`),
  ].sort();
  const tail = reasons.length ? ` ${reasons.join(', ')}.` : '';
  const preemption = nodes.length
    ? ` preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`
    : '';
  return { unschedulable: `0/${nodes.length} nodes are available:${tail}${preemption}` };
}

/** The node's InternalIP, for status.hostIP. */
export function hostIPOf(store: ObjectStore, nodeName: string): string | undefined {
  const node = store.get(NODE_KEY, undefined, nodeName);
  const addresses = ((node?.status as { addresses?: { type: string; address: string }[] } | undefined)
    ?.addresses ?? []) as { type: string; address: string }[];
  return addresses.find((a) => a.type === 'InternalIP')?.address;
}

/**
 * Keeps the cluster's Nodes registered: `settings.nodes` of them, created as their kubelets would
 * register them (node-objects.ts) — again if one is deleted, as a running kubelet re-registers
 * (kubelet_node_status.go registerWithAPIServer) — and those beyond the count removed (a node
 * taken out of the cluster). The settings can change at run time, so the count is looked at
 * every CHECK_MS. No Lease heartbeats: nothing in kube-sim reads them.
 */
import { typeKey } from '../api/service.ts';
import { findByKind } from '../resources.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ControllerQueue } from './controller-queue.ts';
import { nodeName, nodeObject, nodeOrdinal } from './node-objects.ts';

export const NODE = findByKind('v1', 'Node')!;
const NODE_KEY = typeKey(NODE);
const CHECK_MS = 200;
const KEY = 'nodes';

export class NodeController implements SimController {
  private readonly queue: ControllerQueue;
  private readonly unsubscribe: () => void;
  private readonly timer: NodeJS.Timeout;
  private seenCount: number;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new ControllerQueue(
      () => this.sync(),
      (key, err) => deps.onError(`node ${key}`, err),
    );
    this.seenCount = deps.settings.nodes;
    this.unsubscribe = deps.store.subscribe((event) => {
      if (event.typeKey === NODE_KEY && event.type === 'DELETED') this.queue.add(KEY);
    });
    // Registered at once, so the first Pods find their node.
    this.sync();
    this.timer = setInterval(() => {
      if (this.deps.settings.nodes !== this.seenCount) this.queue.add(KEY);
    }, CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.unsubscribe();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private sync(): void {
    const count = this.deps.settings.nodes;
    this.seenCount = count;
    for (let i = 1; i <= count; i++) {
      if (!this.deps.client.get(NODE, undefined, nodeName(i))) this.deps.client.create(NODE, nodeObject(i));
    }
    for (const node of this.deps.store.list(NODE_KEY)) {
      const ordinal = nodeOrdinal(node.metadata.name!);
      if (ordinal !== undefined && ordinal > count && !node.metadata.deletionTimestamp)
        this.deps.client.delete(NODE, undefined, node.metadata.name!);
    }
  }
}

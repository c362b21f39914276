/**
 * Two controllers of kube-controller-manager that give every namespace what pods need to talk to
 * the API: the ServiceAccounts controller (pkg/controller/serviceaccount/serviceaccounts_controller.go)
 * keeps a `default` ServiceAccount in every active namespace, recreating it when deleted; the root
 * CA certificate publisher (pkg/controller/certificates/rootcacertpublisher/publisher.go) keeps a
 * `kube-root-ca.crt` ConfigMap with the cluster's CA in `ca.crt` in every namespace, restoring it when
 * deleted or changed.
 */
import { typeKey } from '../api/service.ts';
import { findByKind } from '../resources.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { clone } from '../types.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ReconcileQueue } from './reconcile-queue.ts';

const NAMESPACE = findByKind('v1', 'Namespace')!;
const SERVICE_ACCOUNT = findByKind('v1', 'ServiceAccount')!;
const CONFIG_MAP = findByKind('v1', 'ConfigMap')!;
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
/** publisher.go's annotation naming what the ConfigMap is for. */
const DESCRIPTION = 'kubernetes.io/description';
const DESCRIPTION_TEXT =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

export class ServiceAccountsController implements SimController {
  private readonly queue: ReconcileQueue;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly deps: Pick<ControllerDeps, 'store' | 'client' | 'onError'>,
    private readonly caPem: string,
  ) {
    this.queue = new ReconcileQueue(
      (ns) => this.reconcile(ns),
      (ns, e) => deps.onError(`serviceaccounts in ${ns}`, e),
    );
    this.unsubscribe = deps.store.subscribe((e) => this.observe(e));
    // The initial sync, done at once so the bootstrap namespaces have theirs before anything is served.
    for (const ns of deps.store.list(typeKey(NAMESPACE))) this.reconcile(ns.metadata.name!);
  }

  stop(): void {
    this.unsubscribe();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    if (event.typeKey === typeKey(NAMESPACE)) {
      if (event.type !== 'DELETED') this.queue.add(event.object.metadata.name!);
      return;
    }
    const mine =
      (event.typeKey === typeKey(SERVICE_ACCOUNT) && event.object.metadata.name === 'default') ||
      (event.typeKey === typeKey(CONFIG_MAP) && event.object.metadata.name === ROOT_CA_CONFIGMAP);
    if (mine && event.object.metadata.namespace) this.queue.add(event.object.metadata.namespace);
  }

  private reconcile(namespace: string): void {
    const ns = this.deps.store.get(typeKey(NAMESPACE), undefined, namespace);
    // Nothing is created in a namespace that is going away (the controllers skip terminating ones).
    if (!ns || ns.metadata.deletionTimestamp) return;
    if (!this.deps.store.get(typeKey(SERVICE_ACCOUNT), namespace, 'default')) {
      this.deps.client.create(SERVICE_ACCOUNT, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'default', namespace },
      });
    }
    const cm = this.deps.store.get(typeKey(CONFIG_MAP), namespace, ROOT_CA_CONFIGMAP);
    const data = { 'ca.crt': this.caPem };
    if (!cm) {
      this.deps.client.create(CONFIG_MAP, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { [DESCRIPTION]: DESCRIPTION_TEXT } },
        data,
      });
    } else if ((cm.data as Record<string, string> | undefined)?.['ca.crt'] !== this.caPem) {
      const next = clone(cm);
      next.data = data;
      this.deps.client.update(CONFIG_MAP, next);
    }
  }
}

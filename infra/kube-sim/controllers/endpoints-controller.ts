/**
 * The endpoints and endpointslice controllers (pkg/controller/endpoint, pkg/controller/endpointslice)
 * in one: for each Service with a selector, its Endpoints (same name, the Service's labels,
 * subsets from endpoints-build.ts, the `endpoints.kubernetes.io/last-change-trigger-time`
 * annotation) and its EndpointSlices (`<service>-<random>`, labels `kubernetes.io/service-name`
 * and `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io` over the Service's
 * own, a controller reference to the Service, addressType IPv4, one slice per distinct port set, a
 * placeholder without endpoints when there are none), rewritten when Pods start, become ready or
 * unready, terminate or go, and when the Service changes. A Service without a selector is left to
 * whoever manages its endpoints; the `kubernetes` Service's are the API server's own
 * (pkg/controlplane/reconcilers: the node's address, port 6443 named https). Deleting a Service
 * deletes its Endpoints; its slices go with the garbage collector.
 */
import { timestamp } from '../api/metadata.ts';
import { typeKey } from '../api/service.ts';
import { StatusError } from '../errors.ts';
import { findByKind } from '../resources.ts';
import { matchesEquality } from '../selectors.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ControllerQueue } from './controller-queue.ts';
import { byPortSet, endpointsSubsets, podEndpoints, type Service, sliceEndpoint } from './endpoints-build.ts';
import { nodeInternalIP } from './node-objects.ts';
import { ServiceSelectorIndex } from './service-selector-index.ts';
import { SimClient } from './sim-client.ts';
import { controllerRef, objectKeyOf, POD, type Pod, SERVICE, splitKey } from './workload-types.ts';

export const ENDPOINTS = findByKind('v1', 'Endpoints')!;
export const ENDPOINT_SLICE = findByKind('discovery.k8s.io/v1', 'EndpointSlice')!;
const SERVICE_KEY = typeKey(SERVICE);
const POD_KEY = typeKey(POD);
const ENDPOINTS_KEY = typeKey(ENDPOINTS);
const SLICE_KEY = typeKey(ENDPOINT_SLICE);
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const MANAGED_BY = 'endpointslice-controller.k8s.io';
const TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';

export class EndpointsController implements SimController {
  private readonly queue: ControllerQueue;
  private readonly unsubscribe: () => void;
  private readonly slices: SimClient;
  private readonly selectors = new ServiceSelectorIndex();

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new ControllerQueue(
      (key) => this.sync(key),
      (key, err) => deps.onError(`endpoints ${key}`, err),
    );
    this.slices = new SimClient(deps.client.service, 'endpointslice-controller');
    this.unsubscribe = deps.store.subscribe((event) => this.observe(event));
    for (const svc of deps.store.list(SERVICE_KEY)) {
      this.selectors.update(objectKeyOf(svc), svc);
      this.queue.add(objectKeyOf(svc));
    }
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    if (event.typeKey === SERVICE_KEY) {
      const key = objectKeyOf(event.object);
      this.selectors.update(key, event.type === 'DELETED' ? undefined : event.object);
      this.queue.add(key);
    } else if (event.typeKey === POD_KEY) {
      const ns = event.object.metadata.namespace ?? '';
      const candidates = new Set<string>();
      this.selectors.candidates(ns, event.object.metadata.labels, candidates);
      this.selectors.candidates(ns, event.previous?.metadata.labels, candidates);
      for (const key of candidates) {
        const { name } = splitKey(key);
        const selector = (this.deps.store.get(SERVICE_KEY, ns, name) as Service | undefined)?.spec.selector;
        if (!selector) continue;
        const matches = (o: KubeObject | undefined) => !!o && matchesEquality(selector, o.metadata.labels);
        if (matches(event.object) || matches(event.previous)) this.queue.add(key);
      }
    }
  }

  private sync(key: string): void {
    const { namespace, name } = splitKey(key);
    const service = this.deps.store.get(SERVICE_KEY, namespace, name) as Service | undefined;
    try {
      if (!service || service.metadata.deletionTimestamp) {
        const ep = this.deps.store.get(ENDPOINTS_KEY, namespace, name);
        if (ep) this.deps.client.delete(ENDPOINTS, namespace, name);
        return;
      }
      if (namespace === 'default' && name === 'kubernetes') {
        this.apiServerEndpoints(service);
        return;
      }
      const selector = service.spec.selector;
      if (!selector || Object.keys(selector).length === 0) return;
      const endpoints = podEndpoints(
        service,
        this.deps.store.withLabels(POD_KEY, namespace!, selector) as Pod[],
      );
      this.writeEndpoints(service, endpointsSubsets(endpoints));
      this.writeSlices(
        service,
        byPortSet(endpoints).map((g) => ({
          ports: g.ports,
          endpoints: g.endpoints.map(sliceEndpoint),
        })),
      );
    } catch (err) {
      // A namespace being deleted refuses new objects; its Services go with it.
      if (err instanceof StatusError && err.details?.causes?.some((c) => c.reason === 'NamespaceTerminating'))
        return;
      throw err;
    }
  }

  private writeEndpoints(service: Service, subsets: unknown[]): void {
    const { namespace, name } = service.metadata;
    const existing = this.deps.store.get(ENDPOINTS_KEY, namespace, name!);
    const labels = { ...(service.metadata.labels ?? {}) };
    const body = (meta: KubeObject['metadata']): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: meta,
      ...(subsets.length ? { subsets } : {}),
    });
    if (!existing) {
      this.deps.client.create(
        ENDPOINTS,
        body({
          name,
          namespace,
          ...(Object.keys(labels).length ? { labels } : {}),
          annotations: { [TRIGGER_TIME]: timestamp(new Date()) },
        }),
      );
      return;
    }
    const sameSubsets = semanticEqual(existing.subsets ?? [], subsets);
    const sameLabels = semanticEqual(existing.metadata.labels ?? {}, labels);
    if (sameSubsets && sameLabels) return;
    const meta = clone(existing.metadata);
    if (Object.keys(labels).length) meta.labels = labels;
    else delete meta.labels;
    meta.annotations = { ...(meta.annotations ?? {}), [TRIGGER_TIME]: timestamp(new Date()) };
    this.deps.client.update(ENDPOINTS, body(meta));
  }

  /** reconciler.go: existing slices reused in order, surplus deleted, a placeholder when empty. */
  private writeSlices(service: Service, groups: { ports: unknown[]; endpoints: unknown[] }[]): void {
    const { namespace, name } = service.metadata;
    const existing = this.deps.store
      .withLabels(SLICE_KEY, namespace!, { [SERVICE_NAME_LABEL]: name!, [MANAGED_BY_LABEL]: MANAGED_BY })
      .filter((s) => !s.metadata.deletionTimestamp)
      .sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    const wanted = groups.length ? groups : [{ ports: null, endpoints: null }];
    const labels = {
      ...(service.metadata.labels ?? {}),
      [SERVICE_NAME_LABEL]: name!,
      [MANAGED_BY_LABEL]: MANAGED_BY,
    };
    wanted.forEach((group, i) => {
      const current = existing[i];
      const content = { addressType: 'IPv4', endpoints: group.endpoints, ports: group.ports };
      if (!current) {
        this.slices.create(ENDPOINT_SLICE, {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: {
            generateName: `${name}-`,
            namespace,
            labels,
            annotations: { [TRIGGER_TIME]: timestamp(new Date()) },
            ownerReferences: [controllerRef(service)],
          },
          ...content,
        });
        return;
      }
      const same =
        semanticEqual(current.endpoints ?? null, content.endpoints) &&
        semanticEqual(current.ports ?? null, content.ports) &&
        semanticEqual(current.metadata.labels, labels);
      if (same) return;
      const meta = clone(current.metadata);
      meta.labels = labels;
      meta.annotations = { ...(meta.annotations ?? {}), [TRIGGER_TIME]: timestamp(new Date()) };
      this.slices.update(ENDPOINT_SLICE, { ...current, metadata: meta, ...content });
    });
    for (const surplus of existing.slice(wanted.length))
      this.slices.delete(ENDPOINT_SLICE, namespace, surplus.metadata.name!);
  }

  /** The API server's own endpoints for `kubernetes` (no selector; reconciled by the apiserver). */
  private apiServerEndpoints(service: Service): void {
    const ip = nodeInternalIP(1);
    this.writeEndpoints(service, [
      { addresses: [{ ip }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] },
    ]);
    const { namespace, name } = service.metadata;
    if (this.deps.store.get(SLICE_KEY, namespace, name!)) return;
    this.slices.create(ENDPOINT_SLICE, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name,
        namespace,
        labels: {
          [SERVICE_NAME_LABEL]: name!,
          [MANAGED_BY_LABEL]: 'endpointslicemirroring-controller.k8s.io',
        },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: [ip], conditions: { ready: true } }],
      ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
    });
  }
}

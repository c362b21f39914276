/**
 * kube-sim: an in-process Kubernetes API server simulator speaking the real HTTP API to real
 * clients (@kubernetes/client-node, kubectl, helm). `startSim()` for tests and benchmarks,
 * `longshore sim` for a standalone one. What is simulated and how it was checked against
 * upstream: docs/kube-sim.md.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { ClusterIPAllocator } from './api/cluster-ip.ts';
import { ApiService } from './api/service.ts';
import { bootstrapPolicy } from './auth/bootstrap-policy.ts';
import { type AuthorizationMode, requestAuth } from './auth/request-auth.ts';
import { clusterCaPem, servingCert } from './auth/root-ca.ts';
import { TokenIssuer } from './auth/tokens.ts';
import { bootstrap } from './bootstrap.ts';
import type { SimController } from './controllers/controller.ts';
import { CronJobController } from './controllers/cronjob-controller.ts';
import { DaemonSetController } from './controllers/daemonset-controller.ts';
import { DeploymentController } from './controllers/deployment-controller.ts';
import { DisruptionController } from './controllers/disruption-controller.ts';
import { EndpointsController } from './controllers/endpoints-controller.ts';
import { GarbageCollector } from './controllers/garbage-collector.ts';
import { HorizontalPodAutoscalerController } from './controllers/hpa-controller.ts';
import { JobController } from './controllers/job-controller.ts';
import { NamespaceController } from './controllers/namespace-controller.ts';
import { NodeController } from './controllers/node-controller.ts';
import { PersistentVolumeBinder } from './controllers/persistent-volume-binder.ts';
import { PodLifecycleController } from './controllers/pod-lifecycle.ts';
import { ReplicaSetController } from './controllers/replicaset-controller.ts';
import { ServiceAccountsController } from './controllers/serviceaccounts-controller.ts';
import {
  applySettingsJson,
  type ControllerSettings,
  defaultControllerSettings,
  SettingsError,
  settingsJson,
} from './controllers/settings.ts';
import { SimClient } from './controllers/sim-client.ts';
import { StatefulSetController } from './controllers/statefulset-controller.ts';
import { StorageProtectionController } from './controllers/storage-protection.ts';
import { CrdController } from './crd/controller.ts';
import { statusErrors } from './errors.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
import { NodeRuntime } from './runtime/node-runtime.ts';
import { type FaultRule, Faults } from './server/faults.ts';
import { type HttpServer, startHttpServer } from './server/http-server.ts';
import { servePodLog } from './server/pod-log.ts';
import { servePodStream } from './server/pod-stream.ts';
import { RequestLog } from './server/request-log.ts';
import { DurableState, readSnapshotFile, writeSnapshotFile } from './store/durable-state.ts';
import { ObjectStore } from './store/object-store.ts';
import type { KubeObject } from './types.ts';

export interface SimOptions {
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Write a kubeconfig for the simulator here. */
  kubeconfigPath?: string;
  /** Watch events kept for resuming watches; older resourceVersions get 410 Expired. */
  historyCapacity?: number;
  /** Server-side watch timeout when the client sets none (upstream: 30–60 min). */
  watchTimeoutSeconds?: number;
  bookmarkIntervalMs?: number;
  /** Serve aggregated discovery to clients that ask for it (default true). */
  aggregatedDiscovery?: boolean;
  /** Called with errors of the simulated controllers (default: stderr). */
  onControllerError?: (what: string, err: unknown) => void;
  /** Overrides of the controllers' knobs (delays, failing images, logs); see ControllerSettings. */
  settings?: Partial<ControllerSettings>;
  /** Start from this snapshot file when it exists (see `snapshot`); later writes are not saved. */
  snapshotPath?: string;
  /**
   * Keep the cluster durable in this file: loaded at start when it exists, every write journaled
   * to `<file>.journal` and fsynced before the API answers it, compacted into the file in the
   * background and on stop (see store/durable-state.ts). Without it nothing touches the disk.
   */
  statePath?: string;
  /**
   * Run the workload controllers (Deployments, ReplicaSets, Pods, PVC binding, Jobs, CronJobs).
   * Default true. API-machinery tests turn them off so nothing writes in the background; the
   * garbage collector and the namespace controller always run (they are part of the API's semantics).
   */
  controllers?: boolean;
  /**
   * How requests are authorized: `always-allow` (default, every request) or `rbac` (RBAC rules,
   * as --authorization-mode=RBAC; see auth/). Authentication is the same in both.
   */
  authorization?: AuthorizationMode;
  /**
   * Where fault injection draws its numbers (`sim.faults`, server/faults.ts): Math.random by
   * default. A seeded generator makes the sequence of fault decisions the same for the same
   * sequence of matching requests (the chaos run passes one seeded from its seed); which request
   * meets which decision still depends on the order requests arrive in.
   */
  faultRandom?: () => number;
}

export interface Sim {
  readonly url: string;
  readonly port: number;
  readonly store: ObjectStore;
  readonly service: ApiService;
  readonly requests: RequestLog;
  readonly faults: Faults;
  /** A client for tests that acts inside the simulator (as a controller would). */
  readonly client: SimClient;
  kubeconfig(namespace?: string): string;
  writeKubeconfig(path: string, namespace?: string): void;
  /** Forgets watch history: watches resuming from before now get 410 Expired. */
  compact(): void;
  /** Cuts every open watch stream abruptly. */
  dropWatches(): number;
  /** Knobs of the simulated controllers, mutable while running. */
  readonly settings: ControllerSettings;
  /** The node's container runtime: the processes of running containers, their logs, exec and attach. */
  readonly runtime: NodeRuntime;
  /** Runs a CronJob now, as its schedule would (creates its Job, sets lastScheduleTime). */
  triggerCronJob(namespace: string, name: string): KubeObject;
  /** Writes every object and the resourceVersion counter to a JSON file (atomically, 0600, fsynced). */
  snapshot(path: string): void;
  /** Signs ServiceAccount tokens (TokenRequest); tests issue expired ones with it. */
  readonly tokens: TokenIssuer;
  /** Resolves when the simulated controllers have nothing left to do. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSim(options: SimOptions = {}): Promise<Sim> {
  const store = new ObjectStore(options.historyCapacity ?? 10_000);
  if (options.snapshotPath && existsSync(options.snapshotPath)) {
    const snapshot = readSnapshotFile(options.snapshotPath);
    store.load(snapshot.objects, snapshot.resourceVersion);
  }
  const settings: ControllerSettings = { ...defaultControllerSettings(), ...options.settings };
  const clusterIPs = new ClusterIPAllocator();
  const service = new ApiService(store, clusterIPs);
  const onError =
    options.onControllerError ??
    ((what, err) => process.stderr.write(`kube-sim: ${what}: ${(err as Error).message}\n`));
  // Before bootstrap, so what bootstrap writes is journaled too.
  const durable = options.statePath
    ? DurableState.open(store, options.statePath, (err) => onError('saving the cluster state', err))
    : undefined;
  const client = new SimClient(service, 'kube-sim');
  for (const object of store.dump()) clusterIPs.reserveFrom(object.object);
  bootstrap(client, settings);
  bootstrapPolicy(client);
  const tokens = new TokenIssuer();
  // Always on, like the namespace controller: pods are refused without their ServiceAccount.
  const serviceAccounts = new ServiceAccountsController(
    { store, client: new SimClient(service, 'kube-controller-manager'), onError },
    clusterCaPem(),
  );
  const gc = new GarbageCollector(store, new SimClient(service, 'generic-garbage-collector'), onError);
  const namespaces = new NamespaceController(store, new SimClient(service, 'namespace-controller'), onError);
  // Serves the custom resources of CustomResourceDefinitions: API semantics, so always running.
  const crds = new CrdController(store, new SimClient(service, 'apiextensions-apiserver'), onError);

  const protection = new StorageProtectionController(
    store,
    new SimClient(service, 'pvc-protection-controller'),
    onError,
  );
  // The node's container runtime: the kubelet starts processes in it, logs (and attach, exec) read them.
  const runtime = new NodeRuntime();
  const deps = (manager: string) => ({ store, client: new SimClient(service, manager), settings, onError });
  const cronJobs =
    options.controllers === false ? undefined : new CronJobController(deps('cronjob-controller'));
  const controllers: SimController[] =
    cronJobs === undefined
      ? []
      : [
          // First: the kubelets register their Nodes before anything is scheduled.
          new NodeController(deps('kubelet')),
          new DeploymentController(deps('deployment-controller')),
          new ReplicaSetController(deps('replicaset-controller')),
          new PodLifecycleController(deps('kubelet'), runtime),
          new PersistentVolumeBinder(deps('persistentvolume-binder-controller')),
          new JobController(deps('job-controller')),
          new StatefulSetController(deps('statefulset-controller')),
          new DaemonSetController(deps('daemonset-controller')),
          new EndpointsController(deps('endpoint-controller')),
          cronJobs,
          new DisruptionController(deps('disruption-controller')),
          new HorizontalPodAutoscalerController(deps('horizontal-pod-autoscaler')),
        ];
  const requests = new RequestLog();
  const faults = new Faults(options.faultRandom);
  let http: HttpServer | undefined;
  const tls = options.authorization === 'rbac' ? servingCert() : undefined;

  const admin = (method: string, path: string[], query: URLSearchParams, body: unknown): unknown => {
    const [what] = path;
    if (what === 'requests' && method === 'GET') {
      return path[1] === 'summary'
        ? requests.summary()
        : requests.entries({
            ...(query.get('verb') ? { verb: query.get('verb') as never } : {}),
            ...(query.get('resource') ? { resource: query.get('resource')! } : {}),
          });
    }
    if (what === 'requests' && method === 'DELETE') {
      requests.reset();
      return { reset: true };
    }
    if (what === 'faults') {
      if (method === 'GET') return faults.list();
      if (method === 'DELETE') faults.clear();
      else if (method === 'PUT') faults.set(body as FaultRule[]);
      else if (method === 'POST') faults.add(body as FaultRule);
      return faults.list();
    }
    if (what === 'compact' && method === 'POST') {
      store.compact();
      return { compactedAt: store.currentRv };
    }
    if (what === 'drop-watches' && method === 'POST') return { dropped: http?.dropWatches() ?? 0 };
    if (what === 'stats' && method === 'GET')
      return { objects: store.count(), resourceVersion: store.currentRv, processes: runtime.processCount };
    if (what === 'settings') {
      // What tests outside the process set: failing images, delays, planted log lines.
      if (method === 'POST') {
        try {
          applySettingsJson(settings, body);
        } catch (err) {
          if (err instanceof SettingsError) throw statusErrors.badRequest(err.message);
          throw err;
        }
      } else if (method !== 'GET') throw statusErrors.methodNotAllowed();
      return settingsJson(settings);
    }
    return { error: `unknown admin path /${path.join('/')}` };
  };

  http = await startHttpServer(
    {
      service,
      store,
      log: requests,
      faults,
      admin,
      podLog: (namespace, name, query, res) =>
        servePodLog({ store, settings, runtime }, namespace, name, query, res),
      podStream: (request) => servePodStream({ store, runtime }, request),
      watchTimeoutSeconds: options.watchTimeoutSeconds ?? 1800,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
      aggregatedDiscovery: options.aggregatedDiscovery ?? true,
      ...(durable ? { durable: () => durable.durable() } : {}),
      auth: requestAuth(store, tokens, options.authorization ?? 'always-allow'),
      // kubectl sends tokens only over TLS: with RBAC the simulator serves HTTPS.
      ...(tls ? { tls } : {}),
    },
    options.host ?? '127.0.0.1',
    options.port ?? 0,
  );
  const server = http;
  const sim: Sim = {
    url: server.url,
    port: server.port,
    store,
    service,
    requests,
    faults,
    client,
    settings,
    runtime,
    tokens,
    triggerCronJob: (namespace, name) => {
      if (!cronJobs)
        throw new Error('this simulator runs without controllers (startSim({ controllers: false }))');
      return cronJobs.trigger(namespace, name);
    },
    snapshot: (path) => writeSnapshotFile(path, store),
    kubeconfig: (namespace) => kubeconfigYaml(server.url, namespace, tls?.cert),
    writeKubeconfig: (path, namespace) =>
      writeFileSync(path, kubeconfigYaml(server.url, namespace, tls?.cert), { mode: 0o600 }),
    compact: () => store.compact(),
    dropWatches: () => server.dropWatches(),
    settle: async () => {
      for (let i = 0; i < 50; i++) {
        await gc.idle();
        await namespaces.idle();
        await crds.idle();

        await protection.idle();
        await serviceAccounts.idle();
        for (const controller of controllers) await controller.idle();
        await new Promise((r) => setImmediate(r));
      }
    },
    stop: async () => {
      gc.stop();
      namespaces.stop();
      crds.stop();

      protection.stop();
      serviceAccounts.stop();
      for (const controller of controllers) controller.stop();
      runtime.stop();
      await server.close();
      await durable?.close();
    },
  };
  if (options.kubeconfigPath) sim.writeKubeconfig(options.kubeconfigPath);
  return sim;
}

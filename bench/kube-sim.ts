/**
 * How fast kube-sim answers, so later benchmarks know it is not their bottleneck: requests/s for
 * GET, LIST of 1,000 objects, server-side apply (changing and unchanged), and watch fan-out to
 * 50 watchers; plus memory with the objects of 1,000 apps loaded. Measured with the workload
 * controllers off (the API server alone), then the image-changing apply again with them on, where
 * every apply starts a rollout (new ReplicaSet, Pods, status writes).
 *
 * `--persist` measures a simulator with a state file (what `longshore dev` runs: every write
 * journaled and fsynced before it is answered) in a temporary directory.
 *
 * Usage: npm run bench -- kube-sim [--seconds S] [--concurrency C] [--apps N] [--persist]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim } from '../infra/kube-sim/sim.ts';
import { until } from '../test/helpers/wait.ts';

interface Options {
  seconds: number;
  concurrency: number;
  apps: number;
  persist: boolean;
}

function parseArgs(argv: string[]): Options {
  const get = (name: string, fallback: number) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  return {
    seconds: get('seconds', 3),
    concurrency: get('concurrency', 16),
    apps: get('apps', 1000),
    persist: argv.includes('--persist'),
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = httpRequest(
      `${base}${path}`,
      {
        method,
        agent,
        headers: { 'content-type': contentType, ...(data ? { 'content-length': String(data.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** Runs `fn` from `concurrency` loops for `seconds`; returns completed calls per second. */
async function rate(seconds: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = w; performance.now() < deadline; i += concurrency) {
        await fn(i);
        done++;
      }
    }),
  );
  return done / seconds;
}

function app(i: number) {
  const name = `app-${i}`;
  const labels = { 'app.kubernetes.io/name': name };
  return [
    { kind: 'Secret', apiVersion: 'v1', metadata: { name: `config-${name}`, labels }, data: { A: 'YQ==' } },
    {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: `pull-secret-${name}`, labels },
      type: 'Opaque',
      data: { a: 'YQ==' },
    },
    { kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name, labels } },
    {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: `${name}-web`, labels },
      spec: { selector: labels, ports: [{ port: 80, targetPort: 5000 }] },
    },
    {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: `${name}-web`, labels },
      spec: {
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: 'web',
                image: `registry.example.com/${name}:1`,
                envFrom: [{ secretRef: { name: `config-${name}` } }],
              },
            ],
          },
        },
      },
    },
    {
      kind: 'Ingress',
      apiVersion: 'networking.k8s.io/v1',
      metadata: { name: `${name}-web`, labels },
      spec: {
        rules: [
          {
            host: `${name}.example.com`,
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: `${name}-web`, port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    },
    ...Array.from({ length: 10 }, (_, r) => ({
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: `release-${name}-v${r + 1}`, labels: { owner: 'longshore', release: name } },
      data: { release: Buffer.alloc(2048, r).toString('base64') },
    })),
  ];
}

const PLURAL: Record<string, string> = {
  Secret: '/api/v1/namespaces/NS/secrets',
  ServiceAccount: '/api/v1/namespaces/NS/serviceaccounts',
  Service: '/api/v1/namespaces/NS/services',
  Deployment: '/apis/apps/v1/namespaces/NS/deployments',
  Ingress: '/apis/networking.k8s.io/v1/namespaces/NS/ingresses',
};

export async function benchKubeSim(argv: string[]): Promise<void> {
  const options = parseArgs(argv);
  const alone = await measure(options, false);
  const withControllers = await measure(options, true);
  const width = Math.max(...[...alone, ...withControllers].map(([k]) => k.length));
  console.log(
    `kube-sim: concurrency ${options.concurrency}; ${options.seconds} s per measure${options.persist ? '; with a state file (journal fsynced per write batch)' : ''}`,
  );
  console.log('API server alone (workload controllers off):');
  for (const [k, v] of alone) console.log(`  ${k.padEnd(width)}  ${v}`);
  console.log('With the workload controllers on (each image change starts a rollout):');
  for (const [k, v] of withControllers) console.log(`  ${k.padEnd(width)}  ${v}`);
}

async function measure(options: Options, controllers: boolean): Promise<[string, string][]> {
  const stateDir = options.persist ? mkdtempSync(join(tmpdir(), 'kube-sim-bench-')) : undefined;
  const sim = await startSim({
    controllers,
    onControllerError: () => undefined,
    ...(stateDir ? { statePath: join(stateDir, 'cluster.json') } : {}),
  });
  const base = sim.url;
  try {
    // Load 1,000 apps' worth of objects, each app in its own namespace.
    const heapBefore = process.memoryUsage().heapUsed;
    const loadStart = performance.now();
    for (let i = 0; i < options.apps; i++) {
      const ns = `ns-${i}`;
      await call(base, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
      for (const object of app(i)) {
        const res = await call(base, 'POST', PLURAL[object.kind]!.replace('NS', ns), object);
        if (res.status !== 201) throw new Error(`load failed: ${res.status} ${res.text}`);
      }
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    global.gc?.();
    const objects = sim.store.count();
    const heapMiB = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;

    for (let i = 0; i < 1000; i++)
      await call(base, 'POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name: `cm-${i}` },
        data: { v: String(i) },
      });

    const rows: [string, string][] = [];
    rows.push([
      `load ${objects} objects (${options.apps} apps) by POST`,
      `${(objects / loadSeconds).toFixed(0)} creates/s, ${heapMiB.toFixed(0)} MiB heap`,
    ]);
    const get = await rate(options.seconds, options.concurrency, async (i) => {
      const res = await call(
        base,
        'GET',
        `/api/v1/namespaces/ns-${i % options.apps}/secrets/config-app-${i % options.apps}`,
      );
      if (res.status !== 200) throw new Error(`GET ${res.status}`);
    });
    rows.push(['GET one Secret', `${get.toFixed(0)} req/s`]);
    const list = await rate(options.seconds, Math.min(options.concurrency, 4), async () => {
      const res = await call(base, 'GET', '/api/v1/namespaces/default/configmaps');
      if (res.status !== 200) throw new Error(`LIST ${res.status}`);
    });
    rows.push(['LIST 1,000 ConfigMaps', `${list.toFixed(0)} req/s`]);
    const selected = await rate(options.seconds, Math.min(options.concurrency, 4), async (i) => {
      const res = await call(
        base,
        'GET',
        `/api/v1/namespaces/ns-${i % options.apps}/secrets?labelSelector=owner%3Dlongshore`,
      );
      if (res.status !== 200) throw new Error(`LIST ${res.status}`);
    });
    rows.push(['LIST release Secrets by label (10 of 12 per namespace)', `${selected.toFixed(0)} req/s`]);
    const applyBody = (i: number, image: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: `app-${i}-web`, namespace: `ns-${i}` },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': `app-${i}` } },
        template: {
          metadata: { labels: { 'app.kubernetes.io/name': `app-${i}` } },
          spec: { containers: [{ name: 'web', image }] },
        },
      },
    });
    let flip = 0;
    const applyChanging = await rate(options.seconds, options.concurrency, async (i) => {
      const n = i % options.apps;
      const res = await call(
        base,
        'PATCH',
        `/apis/apps/v1/namespaces/ns-${n}/deployments/app-${n}-web?fieldManager=longshore&force=true`,
        applyBody(n, `registry.example.com/app-${n}:${2 + (flip++ % 2)}`),
        'application/apply-patch+yaml',
      );
      if (res.status !== 200) throw new Error(`APPLY ${res.status} ${res.text}`);
    });
    rows.push(['server-side apply, changing the image', `${applyChanging.toFixed(0)} req/s`]);
    const applySame = await rate(options.seconds, options.concurrency, async () => {
      const res = await call(
        base,
        'PATCH',
        '/apis/apps/v1/namespaces/ns-0/deployments/app-0-web?fieldManager=longshore&force=true',
        applyBody(0, 'registry.example.com/app-0:9'),
        'application/apply-patch+yaml',
      );
      if (res.status !== 200) throw new Error(`APPLY ${res.status}`);
    });
    rows.push(['server-side apply, unchanged (no write)', `${applySame.toFixed(0)} req/s`]);

    // Watch fan-out: 50 watchers on ConfigMaps of one namespace, 1,000 writes.
    const watchers = 50;
    const writes = 1000;
    const counts = new Array<number>(watchers).fill(0);
    const rv = sim.store.currentRv;
    const streams = await Promise.all(
      Array.from(
        { length: watchers },
        (_, w) =>
          new Promise<() => void>((resolve) => {
            const req = httpRequest(
              `${base}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`,
              { agent: false },
              (res) => {
                let buffer = '';
                res.setEncoding('utf8');
                res.on('data', (chunk: string) => {
                  buffer += chunk;
                  let nl = buffer.indexOf('\n');
                  while (nl >= 0) {
                    counts[w]!++;
                    buffer = buffer.slice(nl + 1);
                    nl = buffer.indexOf('\n');
                  }
                });
                resolve(() => req.destroy());
              },
            );
            req.end();
          }),
      ),
    );
    const watchStart = performance.now();
    for (let i = 0; i < writes; i++) {
      await call(
        base,
        'PATCH',
        `/api/v1/namespaces/default/configmaps/cm-${i}`,
        { data: { v: `w${i}` } },
        'application/merge-patch+json',
      );
    }
    // Up to 60 s for every watcher to see every write; a bench measures rather than fails, so the
    // figure is computed either way, as before.
    await until(() => counts.every((c) => c >= writes), 'every watcher to see every write', {
      timeoutMs: 60_000,
      intervalMs: 10,
    }).catch(() => undefined);
    const watchSeconds = (performance.now() - watchStart) / 1000;
    for (const close of streams) close();
    rows.push([
      `watch fan-out: ${writes} writes to ${watchers} watchers`,
      `${((writes * watchers) / watchSeconds).toFixed(0)} events delivered/s (${(writes / watchSeconds).toFixed(0)} writes/s)`,
    ]);

    return rows;
  } finally {
    await sim.stop();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    agent.destroy();
  }
}

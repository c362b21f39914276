/**
 * Helm 4 against longshore's release engine, in the same run, on the same kind of simulator
 * (one kube-sim per system, identical settings, workload controllers on), for a release of 50
 * objects (bench/fixtures/release-objects.ts; Helm gets them as a chart of plain templates):
 *
 *   (a) install                 (b) upgrade changing one ConfigMap
 *   (c) redeploy, no change     (d) history of 10 revisions (Helm; the engine warm, and cold:
 *                                   a new store and engine that must start their informers)
 *
 * and, per phase, API requests (reads: get/list/watch; writes: create/update/patch/delete),
 * discovery requests apart, bytes written to release storage, bytes sent to the API, bytes
 * received (watch streams left out: they stay open across phases) and wall time, all from each
 * simulator's request log. Then the largest release each system can store, grown from random
 * base64 in ConfigMaps until Helm's install fails and the engine refuses it.
 *
 * Neither system waits for rollouts, so the figures measure release work: helm runs without
 * `--wait` (its default, hookOnly, and the chart has no hooks), the engine with `wait: false`.
 * The benchmark prints the table and PASS/FAIL against the issue's targets; it asserts nothing.
 *
 * Usage: npm run bench -- releases [--runs N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { type RequestRecord, WRITE_VERBS } from '../infra/kube-sim/server/request-log.ts';
import { type Sim, type SimOptions, startSim } from '../infra/kube-sim/sim.ts';
import { createReleaseEngine, type ReleaseEngine } from '../src/releases/index.ts';
import { DEFAULT_NAMESPACE, ReleaseTooLargeError, SecretReleaseStore } from '../src/storage/index.ts';
import type { ReleaseObject } from '../src/storage/types.ts';
import { type KubeCli, kubeCli } from '../test/helpers/kubectl.ts';
import {
  blobRelease,
  releaseObjects,
  renderedBytes,
  withConfigRevision,
  writeChart,
} from './fixtures/release-objects.ts';
import { int, median, printTable, ratio } from './fixtures/report.ts';
import { type Figures, sleep, Windows } from './fixtures/request-windows.ts';

/** Both simulators get exactly these settings, so neither system runs on an easier cluster. */
const SIM_OPTIONS: SimOptions = { controllers: true, onControllerError: () => undefined };
const NAMESPACE = 'bench';
const RELEASE = 'bench';
const CHART = { name: 'bench', version: '1.0.0' };
const HISTORY = 10;

type System = 'helm' | 'longshore' | 'longshore-cold';
type Phase = 'install' | 'upgrade' | 'noop' | 'history';

const PHASES: { phase: Phase; label: string }[] = [
  { phase: 'install', label: '(a) install' },
  { phase: 'upgrade', label: '(b) upgrade, 1 object changed' },
  { phase: 'noop', label: '(c) redeploy, nothing changed' },
  { phase: 'history', label: `(d) history of ${HISTORY} revisions` },
];

const SYSTEM_LABEL: Record<System, string> = {
  helm: 'Helm 4',
  longshore: 'longshore',
  'longshore-cold': 'longshore, cold',
};

const METRICS: (keyof Figures)[] = [
  'reads',
  'writes',
  'discovery',
  'storageBytes',
  'bytesSent',
  'bytesReceived',
  'wallMs',
];

const COUNTS: (keyof Figures)[] = ['reads', 'writes', 'discovery'];

function parseArgs(argv: string[]): { runs: number } {
  const i = argv.indexOf('--runs');
  const runs = i >= 0 ? Number(argv[i + 1]) : 3;
  if (!Number.isInteger(runs) || runs <= 0) throw new Error('--runs must be a positive integer');
  return { runs };
}

/**
 * Helm's release storage: its Secrets `sh.helm.release.v1.<release>.v<n>`. A create carries no name
 * in its path, but Helm's storage driver is its only typed (protobuf) client writing Secrets; the
 * chart's own Secrets go through server-side apply (PATCH with the name in the path).
 */
function isHelmStorageWrite(r: RequestRecord): boolean {
  if (!WRITE_VERBS.includes(r.verb) || r.resource !== '/secrets') return false;
  if (r.name) return r.name.startsWith('sh.helm.release.v1.');
  return r.verb === 'create' && (r.contentType ?? '').startsWith('application/vnd.kubernetes.protobuf');
}

/** longshore's release storage: every Secret write in its system namespace (indexes, chunks, app records). */
function isLongshoreStorageWrite(r: RequestRecord): boolean {
  return WRITE_VERBS.includes(r.verb) && r.resource === '/secrets' && r.namespace === DEFAULT_NAMESPACE;
}

function kubeConfigOf(sim: Sim): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  return kc;
}

/** Namespaces an installation would already have (the app's, and the fleet's system namespace). */
async function createNamespaces(sim: Sim, names: string[]): Promise<void> {
  const core = kubeConfigOf(sim).makeApiClient(k8s.CoreV1Api);
  for (const name of names) await core.createNamespace({ body: { metadata: { name } } });
}

async function helmOk(cli: KubeCli, args: string[]): Promise<string> {
  const result = await cli.helm(args);
  if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed: ${result.stderr.trim()}`);
  return result.stdout;
}

interface EngineHandle {
  store: SecretReleaseStore;
  engine: ReleaseEngine;
  stop(): Promise<void>;
}

/** A store and engine as a worker process has them; `start` lists and watches the store's informers. */
async function startEngine(kc: k8s.KubeConfig, maxReleaseBytes?: number): Promise<EngineHandle> {
  const store = new SecretReleaseStore({
    kube: kc,
    ...(maxReleaseBytes !== undefined ? { maxReleaseBytes } : {}),
  });
  await store.start();
  // A fixed key: the bench's engine is the only one reading this storage.
  const engine = createReleaseEngine({
    kube: kc,
    history: store,
    secretDigestKey: Buffer.alloc(32, 'bench'),
  });
  return {
    store,
    engine,
    stop: async () => {
      await engine.stop();
      await store.stop();
    },
  };
}

function upgradeInput(objects: ReleaseObject[], holder: string, release = RELEASE) {
  return { app: release, release, chart: CHART, values: {}, objects, holder, wait: false as const };
}

interface RunResult {
  figures: Map<string, Figures>;
  notes: string[];
}

/** One pass of (a)–(d) on two fresh simulators; `helmFirst` alternates which system goes first. */
async function runScenario(helmFirst: boolean): Promise<RunResult> {
  const helmSim = await startSim(SIM_OPTIONS);
  const engineSim = await startSim(SIM_OPTIONS);
  const cli = await kubeCli(helmSim);
  const chartDir = mkdtempSync(join(tmpdir(), 'longshore-bench-chart-'));
  const windows = new Windows<System, Phase>();
  const notes: string[] = [];
  let cold: EngineHandle | undefined;
  const warm = await (async () => {
    await createNamespaces(helmSim, [NAMESPACE]);
    await createNamespaces(engineSim, [NAMESPACE, DEFAULT_NAMESPACE]);
    // A running worker: its store's informers have listed before the first job arrives.
    return startEngine(kubeConfigOf(engineSim));
  })();
  try {
    const settle = () => Promise.all([helmSim.settle(), engineSim.settle()]);
    const both = async (phase: Phase, helm: () => Promise<void>, longshore: () => Promise<void>) => {
      await settle();
      const steps: [System, () => Promise<void>][] = [
        ['helm', helm],
        ['longshore', longshore],
      ];
      if (!helmFirst) steps.reverse();
      for (const [system, fn] of steps) await windows.measure(system, phase, fn);
    };
    const helmUpgrade = async (objects: ReleaseObject[]) => {
      writeChart(chartDir, CHART.name, objects);
      return helmOk(cli, ['upgrade', RELEASE, chartDir, '--namespace', NAMESPACE]);
    };

    const v1 = releaseObjects(NAMESPACE);
    writeChart(chartDir, CHART.name, v1);
    await both(
      'install',
      async () => {
        await helmOk(cli, ['install', RELEASE, chartDir, '--namespace', NAMESPACE]);
      },
      async () => {
        const r = await warm.engine.upgrade(upgradeInput(v1, 'install'));
        if (r.outcome !== 'deployed') throw new Error(`engine install: ${r.outcome}`);
      },
    );

    const v2 = withConfigRevision(v1, 3, 2);
    writeChart(chartDir, CHART.name, v2);
    let engineUpgrade = '';
    await both(
      'upgrade',
      async () => {
        await helmOk(cli, ['upgrade', RELEASE, chartDir, '--namespace', NAMESPACE]);
      },
      async () => {
        const r = await warm.engine.upgrade(upgradeInput(v2, 'upgrade'));
        engineUpgrade = `${r.outcome}, ${r.applied.length} object(s) applied`;
      },
    );
    notes.push(`(b) longshore: ${engineUpgrade}`);

    let engineNoop = '';
    await both(
      'noop',
      async () => {
        await helmOk(cli, ['upgrade', RELEASE, chartDir, '--namespace', NAMESPACE]);
      },
      async () => {
        const r = await warm.engine.upgrade(upgradeInput(v2, 'noop'));
        engineNoop = `${r.outcome}, revision ${r.revision}`;
      },
    );
    notes.push(`(c) Helm 4: a new revision; longshore: ${engineNoop}`);

    // Upgrades (not measured) until both have 10 revisions; Helm counts (c) as one, longshore does not.
    let helmObjects = v2;
    const helmHistory = async () =>
      (
        JSON.parse(
          await helmOk(cli, ['history', RELEASE, '--namespace', NAMESPACE, '-o', 'json']),
        ) as unknown[]
      ).length;
    for (let rev = (await helmHistory()) + 1; rev <= HISTORY; rev++) {
      helmObjects = withConfigRevision(helmObjects, rev, rev);
      await helmUpgrade(helmObjects);
    }
    let engineObjects = v2;
    for (let rev = warm.engine.history(RELEASE).length + 1; rev <= HISTORY; rev++) {
      engineObjects = withConfigRevision(engineObjects, rev, rev);
      await warm.engine.upgrade(upgradeInput(engineObjects, `rev-${rev}`));
    }

    await settle();
    const counts: Record<System, number> = { helm: 0, longshore: 0, 'longshore-cold': 0 };
    const historySteps: [System, () => Promise<void>][] = [
      [
        'helm',
        async () => {
          counts.helm = (
            JSON.parse(
              await helmOk(cli, ['history', RELEASE, '--namespace', NAMESPACE, '-o', 'json']),
            ) as unknown[]
          ).length;
        },
      ],
      [
        'longshore',
        async () => {
          counts.longshore = warm.engine.history(RELEASE).length;
        },
      ],
      [
        'longshore-cold',
        async () => {
          // Another worker process: nothing cached, its store must list before it can answer.
          cold = await startEngine(kubeConfigOf(engineSim));
          counts['longshore-cold'] = cold.engine.history(RELEASE).length;
        },
      ],
    ];
    if (!helmFirst) historySteps.reverse();
    for (const [system, fn] of historySteps) await windows.measure(system, 'history', fn);
    notes.push(
      `(d) revisions listed: Helm 4 ${counts.helm}, longshore ${counts.longshore}, cold ${counts['longshore-cold']}`,
    );
  } finally {
    // Close every watch before reading the logs: the simulator logs a watch when its stream ends.
    await cold?.stop();
    await warm.stop();
    await sleep(200);
  }
  const figures = new Map<string, Figures>();
  const helmWindows = new Windows<System, Phase>();
  const engineWindows = new Windows<System, Phase>();
  for (const w of windows.list) (w.system === 'helm' ? helmWindows : engineWindows).list.push(w);
  for (const [k, v] of helmWindows.figures(helmSim.requests.entries(), isHelmStorageWrite)) figures.set(k, v);
  for (const [k, v] of engineWindows.figures(engineSim.requests.entries(), isLongshoreStorageWrite))
    figures.set(k, v);
  await helmSim.stop();
  await engineSim.stop();
  rmSync(chartDir, { recursive: true, force: true });
  rmSync(cli.dir, { recursive: true, force: true });
  return { figures, notes };
}

interface Attempt {
  payloadBytes: number;
  renderedBytes: number;
  ok: boolean;
  error?: string;
}

/**
 * The largest payload `attempt` accepts: from `first`, grow by `factor` until refused (or shrink
 * until accepted), then bisect until the bracket is within `precision` or `maxAttempts` ran out.
 */
async function searchLargest(
  attempt: (payloadBytes: number) => Promise<Attempt>,
  first: number,
  factor: number,
  precision: number,
  maxAttempts: number,
): Promise<{ largest?: Attempt; refused?: Attempt; attempts: number }> {
  let largest: Attempt | undefined;
  let refused: Attempt | undefined;
  let attempts = 0;
  let next = first;
  while (attempts < maxAttempts && (!largest || !refused)) {
    const a = await attempt(Math.round(next));
    attempts++;
    if (a.ok) largest = a;
    else refused = a;
    next = a.ok ? next * factor : next / factor;
  }
  while (
    attempts < maxAttempts &&
    largest &&
    refused &&
    (refused.payloadBytes - largest.payloadBytes) / largest.payloadBytes > precision
  ) {
    const a = await attempt(Math.round((largest.payloadBytes + refused.payloadBytes) / 2));
    attempts++;
    if (a.ok) largest = a;
    else refused = a;
  }
  return { ...(largest ? { largest } : {}), ...(refused ? { refused } : {}), attempts };
}

interface SizeResult {
  helm: { largest?: Attempt; refused?: Attempt; attempts: number };
  longshore: { largest?: Attempt; refused?: Attempt; attempts: number };
  wallMs: number;
}

async function largestReleases(): Promise<SizeResult> {
  const t0 = performance.now();
  const helmSim = await startSim(SIM_OPTIONS);
  const engineSim = await startSim(SIM_OPTIONS);
  const cli = await kubeCli(helmSim);
  const chartDir = mkdtempSync(join(tmpdir(), 'longshore-bench-big-'));
  await createNamespaces(helmSim, ['big']);
  await createNamespaces(engineSim, ['big', DEFAULT_NAMESPACE]);
  const handle = await startEngine(kubeConfigOf(engineSim));
  let n = 0;
  try {
    const helm = await searchLargest(
      async (payloadBytes) => {
        const release = `h${n++}`;
        const objects = blobRelease('big', release, payloadBytes);
        writeChart(chartDir, 'big', objects);
        const r = await cli.helm(['install', release, chartDir, '--namespace', 'big']);
        return {
          payloadBytes,
          renderedBytes: renderedBytes(objects),
          ok: r.code === 0,
          ...(r.code !== 0 ? { error: r.stderr.trim().split('\n').at(-1) ?? '' } : {}),
        };
      },
      256 * 1024,
      2,
      0.01,
      14,
    );

    const engineAttempt = async (payloadBytes: number): Promise<Attempt & { stored?: number }> => {
      const release = `e${n++}`;
      const objects = blobRelease('big', release, payloadBytes);
      const rendered = renderedBytes(objects);
      try {
        await handle.engine.upgrade(upgradeInput(objects, release, release));
      } catch (err) {
        if (!(err instanceof ReleaseTooLargeError)) throw err;
        return {
          payloadBytes,
          renderedBytes: rendered,
          ok: false,
          error: err.message,
          ...(err.sizes ? { stored: err.sizes.storedBytes } : {}),
        };
      }
      // Uninstalled at once: tens of MiB per stored release would otherwise pile up in the simulator.
      await handle.engine.uninstall({ release, holder: `${release}-uninstall` });
      return { payloadBytes, renderedBytes: rendered, ok: true };
    };
    // A refusal costs only compression (the cap is checked before any write), a success stores
    // tens of MiB: so first a probe far over the cap, whose error gives the compression ratio,
    // then a search that starts just under the predicted limit with a small growth factor.
    const probePayload = 64 * 1024 * 1024;
    const probe = await engineAttempt(probePayload);
    const limit = 32 * 1024 * 1024;
    const predicted = probe.stored ? (probePayload * limit) / probe.stored : probePayload / 2;
    const longshore = await searchLargest(engineAttempt, predicted * 0.99, 1.02, 0.005, 6);
    if (!probe.ok && (!longshore.refused || probe.payloadBytes < longshore.refused.payloadBytes))
      longshore.refused = probe;
    longshore.attempts++;
    return { helm, longshore, wallMs: performance.now() - t0 };
  } finally {
    await handle.stop();
    await helmSim.stop();
    await engineSim.stop();
    rmSync(chartDir, { recursive: true, force: true });
    rmSync(cli.dir, { recursive: true, force: true });
  }
}

const ms = (n: number) => (n < 1 ? n.toFixed(3) : n.toFixed(1));
const mib = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MiB`;

function formatRow(f: Figures): string[] {
  return [
    int(f.reads),
    int(f.writes),
    int(f.discovery),
    int(f.storageBytes),
    int(f.bytesSent),
    int(f.bytesReceived),
    ms(f.wallMs),
  ];
}

export async function benchReleaseEngine(argv: string[]): Promise<void> {
  const { runs } = parseArgs(argv);
  const objects = releaseObjects(NAMESPACE);
  const kinds = new Map<string, number>();
  for (const o of objects) kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
  console.log(
    `release engine vs Helm 4: a release of ${objects.length} objects ` +
      `(${[...kinds].map(([k, c]) => `${c} ${k}s`).join(', ')}; ${int(renderedBytes(objects))} bytes of JSON), ` +
      `${runs} run(s), median per figure`,
  );
  console.log(
    'one kube-sim per system, same settings (controllers on); neither waits for rollouts: ' +
      'helm without --wait (default hookOnly, no hooks in the chart), the engine with wait: false',
  );

  const results: RunResult[] = [];
  for (let run = 0; run < runs; run++) results.push(await runScenario(run % 2 === 0));
  const med = (key: string): Figures => {
    const all = results.map((r) => r.figures.get(key)).filter((f): f is Figures => f !== undefined);
    const out = {} as Figures;
    for (const m of METRICS) out[m] = median(all.map((f) => f[m]));
    return out;
  };
  const varied = new Set<string>();
  // Byte counts move by a few bytes with timestamps; only request counts must not change.
  for (const key of results[0]!.figures.keys())
    for (const m of METRICS)
      if (COUNTS.includes(m) && new Set(results.map((r) => r.figures.get(key)?.[m])).size > 1)
        varied.add(`${key} ${m}`);

  const header = [
    'phase',
    'system',
    'reads',
    'writes',
    'discovery',
    'release-storage bytes',
    'bytes sent',
    'bytes received',
    'wall ms',
  ];
  const rows: string[][] = [];
  const summary = new Map<string, Figures>();
  for (const { phase, label } of PHASES) {
    const helm = med(`helm/${phase}`);
    summary.set(`helm/${phase}`, helm);
    rows.push([label, SYSTEM_LABEL.helm, ...formatRow(helm)]);
    const ours: System[] = phase === 'history' ? ['longshore', 'longshore-cold'] : ['longshore'];
    for (const system of ours) {
      const f = med(`${system}/${phase}`);
      summary.set(`${system}/${phase}`, f);
      rows.push(['', SYSTEM_LABEL[system], ...formatRow(f)]);
      rows.push(['', `${SYSTEM_LABEL[system]} / Helm`, ...METRICS.map((m) => ratio(f[m], helm[m]))]);
    }
  }
  console.log('');
  printTable(header, rows);
  console.log('');
  console.log(
    'reads = get/list/watch, writes = create/update/patch/delete, discovery = /api, /apis, /openapi, /version; ' +
      'bytes sent = request bodies; bytes received = response bodies except watch streams',
  );
  for (const note of results[0]!.notes) console.log(note);
  console.log(
    varied.size > 0
      ? `request counts that differed between runs (median shown): ${[...varied].join(', ')}`
      : 'request counts were identical in every run (byte counts differ by a few bytes: timestamps)',
  );

  console.log('');
  console.log('largest release each can store (ConfigMaps of random base64, rendered JSON bytes):');
  const sizes = await largestReleases();
  const helmLargest = sizes.helm.largest?.renderedBytes ?? 0;
  const oursLargest = sizes.longshore.largest?.renderedBytes ?? 0;
  printTable(
    ['system', 'refused at', 'largest stored', 'attempts', 'error when refused'],
    [
      [
        SYSTEM_LABEL.helm,
        sizes.helm.refused
          ? `${int(sizes.helm.refused.renderedBytes)} (${mib(sizes.helm.refused.renderedBytes)})`
          : 'never',
        `${int(helmLargest)} (${mib(helmLargest)})`,
        String(sizes.helm.attempts),
        sizes.helm.refused?.error ?? '',
      ],
      [
        SYSTEM_LABEL.longshore,
        sizes.longshore.refused
          ? `${int(sizes.longshore.refused.renderedBytes)} (${mib(sizes.longshore.refused.renderedBytes)})`
          : 'never',
        `${int(oursLargest)} (${mib(oursLargest)})`,
        String(sizes.longshore.attempts),
        sizes.longshore.refused?.error ?? '',
      ],
    ],
  );
  const sizeRatio = helmLargest > 0 ? oursLargest / helmLargest : Number.NaN;
  console.log(
    `ratio longshore / Helm: ${sizeRatio.toFixed(1)}× (search took ${(sizes.wallMs / 1000).toFixed(1)} s)`,
  );

  const noopWrites = Math.max(...results.map((r) => r.figures.get('longshore/noop')?.writes ?? Number.NaN));
  const upgradeShare =
    summary.get('longshore/upgrade')!.storageBytes / summary.get('helm/upgrade')!.storageBytes;
  const targets: [string, boolean, string][] = [
    [
      '(c) redeploy with nothing changed: zero writes (longshore)',
      noopWrites === 0,
      `${noopWrites} writes (max over runs)`,
    ],
    [
      '(b) release-storage bytes ≤ 10% of Helm’s',
      upgradeShare <= 0.1,
      `${(upgradeShare * 100).toFixed(1)}% (${int(summary.get('longshore/upgrade')!.storageBytes)} vs ${int(summary.get('helm/upgrade')!.storageBytes)} bytes)`,
    ],
    ['largest storable release ≥ 20× Helm’s', sizeRatio >= 20, `${sizeRatio.toFixed(1)}×`],
  ];
  console.log('');
  for (const [what, pass, detail] of targets) console.log(`${pass ? 'PASS' : 'FAIL'}  ${what}: ${detail}`);
}

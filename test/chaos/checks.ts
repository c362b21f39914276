/**
 * What must hold after a chaos run (issue 19): every job ended, with a clear reason when it
 * failed; every app's live objects equal what the model (./model.ts) builds from its succeeded
 * jobs; release history has no `pending-*` revision and no revision number twice; after the final
 * prune no chunk is an orphan; no plaintext config value in Redis or in a process's log.
 * Storage: each entry's claim and release exist as the model says, and each Deployment mounts the
 * model's entries; runs: a completed run reports its Job and the command's exit code (or that it
 * was detached), and no run Job or pod is left once their TTL has passed.
 */
import type { Redis } from 'ioredis';
import type { KubeObject } from '../../infra/kube-sim/types.ts';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import type { DeployFleet } from '../helpers/deploy-fleet.ts';
import type { Proc } from '../helpers/processes.ts';
import { everyValueInRedis } from '../helpers/redis-values.ts';
import { entriesOf, expectedState, type ModelApp, type ModelResult, namesOf, type Outcome } from './model.ts';
import type { ChaosPlan, PlannedJob } from './plan.ts';

export interface Finished {
  id: string;
  state: 'completed' | 'failed';
  returnvalue: unknown;
  failedReason?: string;
}

export interface CheckInput {
  fleet: DeployFleet;
  plan: ChaosPlan;
  /** The plan's jobs as they ended, in plan order. */
  finished: Finished[];
  connection: Redis;
  /** Every worker and scheduler process of the run, killed ones included. */
  logs: Proc[];
  /** The `storage-destroy` jobs the fleet enqueued itself (`destroy --with-storage`), by entry. */
  storageDestroys: Map<string, FleetJob>;
}

/** A job the fleet enqueued (not the driver), as it ended or not. */
export interface FleetJob {
  id: string;
  state: string;
  failedReason?: string;
}

export interface CheckResult {
  findings: string[];
  failedReasons: Map<string, number>;
  counts: { completed: number; superseded: number; failed: number };
  /** How the plan's jobs ended, per job type: `type` → `completed/superseded/failed`. */
  byType: Record<string, [number, number, number]>;
}

const NAMESPACE = 'default';

function outcomeOf(f: Finished): Outcome {
  if (f.state === 'failed') return 'failed';
  return (f.returnvalue as { outcome?: string } | null)?.outcome === 'superseded'
    ? 'superseded'
    : 'completed';
}

/**
 * A reason a user can act on: not empty, not a bare stack or `undefined`, and not a JavaScript
 * runtime error (`x is not defined`, `Cannot read properties of undefined`, `… is not a
 * function`), which is a bug in longshore and no reason at all. A run whose every job failed with
 * one of those once passed as "nothing happened, as the model says".
 */
export function unclear(reason: string | undefined): boolean {
  const text = reason?.trim() ?? '';
  return (
    text === '' ||
    /^(undefined|null|Error|\[object Object\])$/.test(text) ||
    /^(ReferenceError|TypeError|SyntaxError|RangeError): /.test(text) ||
    /\bis not defined\b|\bCannot read properties of (undefined|null)\b|\bis not a function\b|\bis not iterable\b|\bCannot access '[^']+' before initialization\b/.test(
      text,
    )
  );
}

/** Ids and numbers vary per run: the reason's shape is what is listed. */
function reasonShape(reason: string, names: string[]): string {
  let shape = reason.split('\n')[0]!;
  for (const name of [...names].sort((a, b) => b.length - a.length)) shape = shape.split(name).join('APP');
  return shape.replace(/\d+/g, 'N').slice(0, 200);
}

function liveOf(fleet: DeployFleet, typeKey: string, app: string): KubeObject[] {
  return (fleet.sim.store.list(typeKey) as KubeObject[]).filter(
    (o) => o.metadata.namespace === NAMESPACE && o.metadata.labels?.['app.kubernetes.io/part-of'] === app,
  );
}

/** What kube-sim serves for `app`, in the model's shape. */
function liveApp(
  fleet: DeployFleet,
  app: string,
): {
  app: Omit<ModelApp, 'mounts'>;
  images: string[];
  configSecret: boolean;
  mounts: Record<string, string[]>;
} {
  const processes: Record<string, number> = {};
  const images: string[] = [];
  const mounts: Record<string, string[]> = {};
  for (const d of liveOf(fleet, 'apps/deployments', app)) {
    const spec = (d as unknown as { spec: { replicas?: number; template: { spec: PodSpec } } }).spec;
    const type = (d.metadata.name ?? '').slice(app.length + 1);
    processes[type] = spec.replicas ?? 1;
    images.push(...spec.template.spec.containers.map((c) => c.image));
    mounts[type] = claimMounts(spec.template.spec);
  }
  const domains = liveOf(fleet, 'networking.k8s.io/ingresses', app)
    .flatMap((i) =>
      ((i as unknown as { spec?: { rules?: { host?: string }[] } }).spec?.rules ?? []).map(
        (r) => r.host ?? '',
      ),
    )
    .sort();
  const secret = (fleet.sim.store.list('/secrets') as KubeObject[]).find(
    (s) => s.metadata.namespace === NAMESPACE && s.metadata.name === `config-${app}`,
  ) as (KubeObject & { data?: Record<string, string> }) | undefined;
  const env = Object.fromEntries(
    Object.entries(secret?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
  return {
    app: { processes, env, domains },
    images: [...new Set(images)],
    configSecret: secret !== undefined,
    mounts,
  };
}

interface PodSpec {
  containers: { image: string; volumeMounts?: { name: string; mountPath: string }[] }[];
  volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[];
}

/** `claim:/path` of each claim a pod spec mounts, over all its containers, sorted. */
function claimMounts(pod: PodSpec): string[] {
  const claims = new Map(
    (pod.volumes ?? []).flatMap((v) =>
      v.persistentVolumeClaim ? [[v.name, v.persistentVolumeClaim.claimName]] : [],
    ),
  );
  const out = new Set<string>();
  for (const c of pod.containers)
    for (const m of c.volumeMounts ?? [])
      if (claims.has(m.name)) out.add(`${claims.get(m.name)}:${m.mountPath}`);
  return [...out].sort();
}

/** The claim of entry `entry` (charts/names.ts storageObjectName: `storage-{entry}`). */
const claimOf = (entry: string) => `storage-${entry}`;

const show = (v: unknown) => JSON.stringify(v);

function compareApp(name: string, want: ModelApp | undefined, fleet: DeployFleet, findings: string[]): void {
  const live = liveApp(fleet, name);
  if (!want) {
    const left = [
      ...Object.keys(live.app.processes).map((t) => `Deployment ${name}-${t}`),
      ...live.app.domains.map((d) => `Ingress for ${d}`),
      ...(live.configSecret ? [`Secret config-${name}`] : []),
    ];
    if (left.length > 0)
      findings.push(`${name}: gone in the model, but kube-sim still has ${left.join(', ')}`);
    return;
  }
  const wantProcesses = want.image ? want.processes : {};
  if (show(sorted(live.app.processes)) !== show(sorted(wantProcesses)))
    findings.push(
      `${name}: replicas ${show(sorted(live.app.processes))}, the model says ${show(sorted(wantProcesses))}`,
    );
  if (want.image && show(live.images) !== show([want.image]))
    findings.push(`${name}: images ${show(live.images)}, the model says ${want.image}`);
  if (show(sorted(live.app.env)) !== show(sorted(want.env)))
    findings.push(
      `${name}: config-${name} holds keys ${show(Object.keys(sorted(live.app.env)))}, the model says ${show(Object.keys(sorted(want.env)))}${sameKeys(live.app.env, want.env) ? ' (values differ)' : ''}`,
    );
  if (want.image && show(live.app.domains) !== show(want.domains))
    findings.push(`${name}: Ingress hosts ${show(live.app.domains)}, the model says ${show(want.domains)}`);
  if (want.image) {
    const wantMounts = Object.entries(want.mounts)
      .map(([entry, path]) => `${claimOf(entry)}:${path}`)
      .sort();
    for (const [type, mounts] of Object.entries(live.mounts))
      if (show(mounts) !== show(wantMounts))
        findings.push(
          `${name}: Deployment ${name}-${type} mounts ${show(mounts)}, the model says ${show(wantMounts)}`,
        );
  }
}

/**
 * Each entry the plan created against kube-sim: its claim `storage-{entry}` (namespace default)
 * and its release's deployed revision are there exactly when the model says it exists — created,
 * and not destroyed by the storage-destroy a `destroy --with-storage` enqueued (when that job
 * failed, its reason is in the report and the entry must still be whole).
 */
function compareEntries(
  input: CheckInput,
  model: ModelResult,
  store: SecretReleaseStore,
  findings: string[],
): void {
  for (const entry of entriesOf(input.plan.jobs)) {
    const before = findings.length;
    compareEntry(entry, input, model, store, findings);
    if (findings.length > before) findings.push(...entryStory(entry, input));
  }
}

/** The jobs of the plan that name `entry`, and the fleet's storage-destroy of it, as they ended. */
function entryStory(entry: string, input: CheckInput): string[] {
  const lines = input.plan.jobs.flatMap((job, i) =>
    'entry' in job && job.entry === entry
      ? [
          `    job ${i} ${input.finished[i]!.id} ${show(job)} → ${input.finished[i]!.state}${input.finished[i]!.failedReason ? `: ${input.finished[i]!.failedReason}` : ''}`,
        ]
      : [],
  );
  const destroy = input.storageDestroys.get(entry);
  if (destroy)
    lines.push(
      `    storage-destroy ${destroy.id} → ${destroy.state}${destroy.failedReason ? `: ${destroy.failedReason}` : ''}`,
    );
  return [`  what happened to storage entry ${entry}:`, ...lines];
}

function compareEntry(
  entry: string,
  input: CheckInput,
  model: ModelResult,
  store: SecretReleaseStore,
  findings: string[],
): void {
  const want = model.entries.get(entry);
  let exists = want?.exists === true;
  if (want?.destroyedBy !== undefined) {
    const destroy = input.storageDestroys.get(entry);
    if (!destroy)
      findings.push(
        `storage entry ${entry}: job ${want.destroyedBy} (destroy --with-storage) succeeded, but no storage-destroy of it was enqueued`,
      );
    else if (destroy.state === 'completed') exists = false;
    else if (destroy.state !== 'failed')
      findings.push(
        `storage entry ${entry}: its storage-destroy ${destroy.id} did not end (${destroy.state})`,
      );
  }
  const claim = (input.fleet.sim.store.list('/persistentvolumeclaims') as KubeObject[]).find(
    (c) => c.metadata.namespace === NAMESPACE && c.metadata.name === claimOf(entry),
  );
  const release = store.deployed(claimOf(entry)) !== undefined;
  const live = [
    ...(claim ? [`claim ${claimOf(entry)}`] : []),
    ...(release ? [`release ${claimOf(entry)}`] : []),
  ];
  if (exists && live.length < 2)
    findings.push(
      `storage entry ${entry}: the model says it exists, kube-sim has ${live.join(' and ') || 'neither its claim nor its release'}`,
    );
  if (!exists && live.length > 0)
    findings.push(
      `storage entry ${entry}: gone (or never made) in the model, but kube-sim still has ${live.join(' and ')}`,
    );
}

/** A run's result: its Job named, and the command's exit code, unless detached or left unfollowed. */
function checkRun(i: number, job: PlannedJob & { type: 'run' }, f: Finished, findings: string[]): void {
  if (f.state !== 'completed') return;
  const rv = (f.returnvalue ?? {}) as {
    jobName?: string;
    exitCode?: number;
    detached?: boolean;
    running?: boolean;
  };
  const what = `job ${i} ${f.id} (run ${job.app}${job.detach ? ' --detach' : ''}, exit ${job.exitCode})`;
  if (typeof rv.jobName !== 'string') findings.push(`${what} completed without naming its Job: ${show(rv)}`);
  if (job.detach) {
    if (rv.detached !== true) findings.push(`${what} completed, but not as detached: ${show(rv)}`);
  } else if (rv.exitCode !== undefined) {
    if (rv.exitCode !== job.exitCode) findings.push(`${what} completed with exitCode ${rv.exitCode}`);
  } else if (rv.running !== true)
    findings.push(`${what} completed with neither an exit code nor an unfollowed run: ${show(rv)}`);
}

/**
 * Run Jobs and their pods still in kube-sim (label `longshore.dev/job=run`): every run's command
 * ends at once, so each Job finishes and the cluster deletes it `ttlSecondsAfterFinished` later,
 * its pods with it (docs/apps.md, "run"); a pod that could not start has its Job deleted at once.
 */
export function runObjectsLeft(f: DeployFleet): string[] {
  const left: string[] = [];
  for (const [typeKey, kind] of [
    ['batch/jobs', 'Job'],
    ['/pods', 'Pod'],
  ] as const)
    for (const o of f.sim.store.list(typeKey) as KubeObject[])
      if (o.metadata.labels?.['longshore.dev/job'] === 'run')
        left.push(
          `${kind} ${o.metadata.namespace}/${o.metadata.name}${o.metadata.deletionTimestamp ? ' (being deleted)' : ''} ${runObjectState(o)}`,
        );
  return left.sort();
}

/** A left run object's state, so a finding says why it stayed (never finished, or not collected). */
function runObjectState(o: KubeObject): string {
  const status = (o.status ?? {}) as {
    active?: number;
    succeeded?: number;
    failed?: number;
    phase?: string;
    conditions?: { type: string; status: string; reason?: string }[];
    containerStatuses?: { state?: { waiting?: { reason?: string; message?: string } } }[];
  };
  const conditions = (status.conditions ?? [])
    .filter((c) => c.status === 'True')
    .map((c) => `${c.type}${c.reason ? `/${c.reason}` : ''}`);
  const waiting = (status.containerStatuses ?? [])
    .map((c) => c.state?.waiting)
    .filter((w) => w !== undefined)
    .map((w) => `${w.reason}: ${w.message ?? ''}`);
  return show({
    ...(o.kind === 'Job'
      ? { active: status.active ?? 0, succeeded: status.succeeded ?? 0, failed: status.failed ?? 0 }
      : { phase: status.phase }),
    conditions,
    ...(waiting.length ? { waiting } : {}),
    created: o.metadata.creationTimestamp,
  });
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function sameKeys(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return show(Object.keys(a).sort()) === show(Object.keys(b).sort());
}

/** What happened to `name`, for a finding's reader: its jobs as they ended, its app release's history. */
function story(name: string, input: CheckInput, outcomes: Outcome[], store: SecretReleaseStore): string[] {
  const lines = input.plan.jobs.flatMap((job, i) =>
    job.app === name || (job.type === 'rename' && job.newName === name)
      ? [
          `    job ${i} ${input.finished[i]!.id} ${show(job)} → ${outcomes[i]}${input.finished[i]!.failedReason ? `: ${input.finished[i]!.failedReason}` : ''}`,
        ]
      : [],
  );
  const history = store
    .history(name)
    .map((r) => `    ${name} revision ${r.revision} ${r.status} (${r.holder ?? '-'}): ${r.description}`);
  return [`  what happened to ${name}:`, ...lines, ...history];
}

export async function runChecks(input: CheckInput): Promise<CheckResult> {
  const { fleet, plan, finished } = input;
  const findings: string[] = [];
  const failedReasons = new Map<string, number>();
  const names = namesOf(plan.jobs);
  const outcomes = finished.map(outcomeOf);
  for (const [i, f] of finished.entries()) {
    if (f.state !== 'failed') continue;
    if (unclear(f.failedReason))
      findings.push(
        `job ${f.id} (${plan.jobs[i]!.type}) failed without a clear reason: ${show(f.failedReason)}`,
      );
    const shape = `${plan.jobs[i]!.type}: ${reasonShape(f.failedReason ?? '', names)}`;
    failedReasons.set(shape, (failedReasons.get(shape) ?? 0) + 1);
  }

  // The model against what kube-sim serves, for every name the plan used.
  const model = expectedState(plan.jobs, outcomes);
  findings.push(...model.impossible);
  const store = await fleet.store();
  for (const name of names) {
    const before = findings.length;
    compareApp(name, model.apps.get(name), fleet, findings);
    if (findings.length > before) findings.push(...story(name, input, outcomes, store));
  }

  compareEntries(input, model, store, findings);
  plan.jobs.forEach((job, i) => {
    if (job.type === 'run') checkRun(i, job, finished[i]!, findings);
  });

  // Release history: no revision left pending, no number twice, nothing of a gone app.
  for (const release of store.releases()) {
    const history = store.history(release);
    const pending = history.filter((r) => r.status.startsWith('pending-'));
    if (pending.length > 0)
      findings.push(
        `${release}: revision(s) ${pending.map((r) => `${r.revision} ${r.status}`).join(', ')} left pending`,
      );
    const numbers = history.map((r) => r.revision);
    const twice = numbers.filter((n, i) => numbers.indexOf(n) !== i);
    if (twice.length > 0) findings.push(`${release}: revision number(s) ${twice.join(', ')} stored twice`);
  }
  for (const name of names)
    if (!model.apps.has(name) && store.releases(name).length > 0)
      findings.push(`${name}: gone in the model, but its releases ${store.releases(name).join(', ')} remain`);
  const orphans: string[] = [];
  await store.sweepOrphans({ minAgeMs: 0, dryRun: true, onOrphan: (chunk) => orphans.push(chunk) });
  if (orphans.length > 0) findings.push(`orphan chunk(s) after the final prune: ${orphans.join(', ')}`);

  // No plaintext config value anywhere in Redis or in a log line.
  const texts = await everyValueInRedis(input.connection);
  const inRedis = plan.secrets.filter((s) => texts.some((t) => t.includes(s)));
  if (inRedis.length > 0)
    findings.push(`plaintext config value(s) in Redis: ${inRedis.slice(0, 5).join(', ')}`);
  const logText = input.logs.map((p) => p.output()).join('\n');
  const inLogs = plan.secrets.filter((s) => logText.includes(s));
  if (inLogs.length > 0)
    findings.push(`plaintext config value(s) in worker logs: ${inLogs.slice(0, 5).join(', ')}`);

  const byType: Record<string, [number, number, number]> = {};
  plan.jobs.forEach((job, i) => {
    byType[job.type] ??= [0, 0, 0];
    const row = byType[job.type]!;
    row[['completed', 'superseded', 'failed'].indexOf(outcomes[i]!)]!++;
  });
  return {
    findings,
    failedReasons,
    byType,
    counts: {
      completed: outcomes.filter((o) => o === 'completed').length,
      superseded: outcomes.filter((o) => o === 'superseded').length,
      failed: outcomes.filter((o) => o === 'failed').length,
    },
  };
}

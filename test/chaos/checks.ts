/**
 * What must hold after a chaos run (issue 19): every job ended, with a clear reason when it
 * failed; every app's live objects equal what the model (./model.ts) builds from its succeeded
 * jobs; release history has no `pending-*` revision and no revision number twice; after the final
 * prune no chunk is an orphan; no plaintext config value in Redis or in a process's log.
 */
import type { Redis } from 'ioredis';
import type { KubeObject } from '../../infra/kube-sim/types.ts';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import type { DeployFleet } from '../helpers/deploy-fleet.ts';
import type { Proc } from '../helpers/processes.ts';
import { everyValueInRedis } from '../helpers/redis-values.ts';
import { expectedState, type ModelApp, namesOf, type Outcome } from './model.ts';
import type { ChaosPlan } from './plan.ts';

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
}

export interface CheckResult {
  findings: string[];
  failedReasons: Map<string, number>;
  counts: { completed: number; superseded: number; failed: number };
}

const NAMESPACE = 'default';

function outcomeOf(f: Finished): Outcome {
  if (f.state === 'failed') return 'failed';
  return (f.returnvalue as { outcome?: string } | null)?.outcome === 'superseded'
    ? 'superseded'
    : 'completed';
}

/** A reason a user can act on: not empty, not a bare stack or `undefined`. */
function unclear(reason: string | undefined): boolean {
  const text = reason?.trim() ?? '';
  return text === '' || /^(undefined|null|Error|\[object Object\])$/.test(text);
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
): { app: ModelApp; images: string[]; configSecret: boolean } {
  const processes: Record<string, number> = {};
  const images: string[] = [];
  for (const d of liveOf(fleet, 'apps/deployments', app)) {
    const spec = (
      d as unknown as { spec: { replicas?: number; template: { spec: { containers: { image: string }[] } } } }
    ).spec;
    processes[(d.metadata.name ?? '').slice(app.length + 1)] = spec.replicas ?? 1;
    images.push(...spec.template.spec.containers.map((c) => c.image));
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
  };
}

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

  return {
    findings,
    failedReasons,
    counts: {
      completed: outcomes.filter((o) => o === 'completed').length,
      superseded: outcomes.filter((o) => o === 'superseded').length,
      failed: outcomes.filter((o) => o === 'failed').length,
    },
  };
}

/**
 * apps:rename with its worker killed (SIGKILL) at each step of the saga (src/workers/rename/plan.ts:
 * planned → installed → uninstalled → moved), end to end: CLI → Redis → worker process → kube-sim.
 * The job's lock expires, the next worker takes it over with the recorded plan, and the end state is
 * the uninterrupted rename's (test/helpers/rename-checks.ts, `expectRenamed`), with one revision of
 * each new release.
 *
 * Each case holds the worker at its step with the simulator: a latency fault on one request (the
 * worker is killed while the request is in flight, seen in the request log; the simulator still
 * serves it, as an API server that received it does) or slow pods (the rollout wait). The steps
 * that are Redis writes only (`uninstalled`, then the projection move and `moved`) follow one
 * another with no request between them, so no kill lands there on cue: those cases kill the worker
 * at its last request before them (deleting OLD's app record) and then write what the killed
 * worker would have written next, as it would have (the plan step, and the projection move); the
 * move's own idempotence is tested against real Redis in test/integration/rename-projection.test.ts.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../infra/kube-sim/server/faults.ts';
import type { InFlightRequest } from '../../infra/kube-sim/server/request-log.ts';
import { JOB_FIELDS, keys } from '../../src/jobs/keys.ts';
import { moveProjection } from '../../src/jobs/renamed.ts';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import { appRecordName, DEFAULT_NAMESPACE, indexName } from '../../src/storage/names.ts';
import { type RenameStep, readRenamePlan } from '../../src/workers/rename/plan.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { renameChecks } from '../helpers/rename-checks.ts';
import { until } from '../helpers/wait.ts';

let fleet: DeployFleet;
let store: SecretReleaseStore;
let redis: Redis;
let checks: ReturnType<typeof renameChecks>;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  store = await fleet.store();
  redis = new Redis(fleet.redis.url, { maxRetriesPerRequest: null });
  checks = renameChecks(fleet, store);
  await checks.createStorage();
});

afterAll(async () => {
  redis?.disconnect();
  await fleet?.stop();
});

/**
 * How long the simulator holds the request: the probe that sees it in flight polls every 50 ms in
 * this process, where the hold's timer also runs, so the worker is killed before it is answered.
 */
const HOLD_MS = 1_000;

/** One request held by a latency fault: the worker is killed while the simulator holds it. */
interface HeldRequest extends Required<Pick<InFlightRequest, 'verb' | 'resource' | 'namespace' | 'name'>> {}

interface KillCase {
  step: string;
  /** The plan's step when the worker dies (what the next worker resumes from, unless `afterKill`). */
  recorded: RenameStep;
  from: string;
  to: string;
  /** The request the worker is killed in (a latency fault holds it), or slow pods (the rollout). */
  held?: (from: string, to: string) => HeldRequest;
  /** Without `held`: the worker is at the step when this probe holds. */
  at?: (from: string, to: string) => boolean;
  /** After the kill, before the next worker: what the killed worker would have written next. */
  afterKill?: (from: string, to: string, jobId: string) => Promise<void>;
}

const system = DEFAULT_NAMESPACE;
/** OLD's app record deleted: the uninstall step's last request. */
const recordDelete = (from: string): HeldRequest => ({
  verb: 'delete',
  resource: '/secrets',
  namespace: system,
  name: appRecordName(from),
});
const savePlan = (jobId: string, step: string) =>
  redis.hset(keys.job(jobId), JOB_FIELDS.renamePlan, JSON.stringify({ step }));

const CASES: KillCase[] = [
  {
    step: 'installing config-{new}',
    recorded: 'planned',
    from: 'inky',
    to: 'inked',
    held: (_, to) => ({ verb: 'patch', resource: '/secrets', namespace: 'default', name: `config-${to}` }),
  },
  {
    step: 'installing pull-secret-{new}',
    recorded: 'planned',
    from: 'pully',
    to: 'pulled',
    held: (_, to) => ({
      verb: 'patch',
      resource: '/secrets',
      namespace: 'default',
      name: `pull-secret-${to}`,
    }),
  },
  {
    step: 'waiting for the rollout of the new app release',
    recorded: 'planned',
    from: 'crashy',
    to: 'steady',
    at: (_, to) =>
      store.last(to)?.status === 'pending-install' &&
      fleet.sim.store.get('apps/deployments', 'default', `${to}-web`) !== undefined,
  },
  {
    step: "deleting OLD's web Deployment",
    recorded: 'installed',
    from: 'wooden',
    to: 'iron',
    held: (from) => ({
      verb: 'delete',
      resource: 'apps/deployments',
      namespace: 'default',
      name: `${from}-web`,
    }),
  },
  {
    step: "deleting the history of OLD's config release",
    recorded: 'installed',
    from: 'papery',
    to: 'inkless',
    held: (from) => ({
      verb: 'delete',
      resource: '/secrets',
      namespace: system,
      name: indexName(`config-${from}`, store.last(`config-${from}`)!.revision),
    }),
  },
  {
    step: 'between uninstalled and moved',
    recorded: 'installed',
    from: 'halfway',
    to: 'across',
    held: recordDelete,
    afterKill: async (_from, _to, jobId) => {
      await savePlan(jobId, 'uninstalled');
    },
  },
  {
    step: 'between moved and the end of the job',
    recorded: 'installed',
    from: 'almost',
    to: 'arrived',
    held: recordDelete,
    afterKill: async (from, to, jobId) => {
      await moveProjection(redis, from, to, jobId);
      await savePlan(jobId, 'moved');
    },
  },
];

describe('a worker killed at each step of a rename', () => {
  it.each(CASES)(
    '$step ($recorded): the next worker finishes it, the same end state, nothing doubled',
    async (c) => {
      const { from, to } = c;
      const before = await checks.prepare(from);
      // One worker at a time: none runs between the kill and the next one's start.
      const killed = fleet.workers.at(-1)!;
      const readyDelay = fleet.sim.settings.podReadyDelayMs;
      let held: HeldRequest | undefined;
      // Slow pods for the rollout case; a request held for the others.
      if (!c.held) fleet.sim.settings.podReadyDelayMs = 4_000;
      else {
        held = c.held(from, to);
        fleet.sim.faults.set([{ ...held, latencyMs: HOLD_MS } satisfies FaultRule]);
      }
      const waiting = fleet.cli(['apps:rename', from, to, '--wait'], { timeoutMs: 120_000 });
      try {
        await until(
          () => (held ? fleet.sim.requests.inFlight(held).length > 0 : c.at!(from, to)) || undefined,
          `the worker at the step: ${c.step}`,
          { timeoutMs: 60_000 },
        );
        killed.kill('SIGKILL');
        await killed.exited;
      } finally {
        fleet.sim.faults.clear();
        fleet.sim.settings.podReadyDelayMs = readyDelay;
      }
      // The rename is the head of OLD's lane (everything the case deployed before it is done), and
      // its plan is what the killed worker left: no worker runs until the next one starts below.
      const jobId = (await redis.zrange(keys.lanePending(`app.${from}`), 0, 0))[0]!;
      expect(jobId).toMatch(new RegExp(`^app\\.${from}\\.\\d+$`));
      expect(await readRenamePlan(redis, jobId)).toEqual({ step: c.recorded });
      // The held request reached the API server before its client died: it lands all the same.
      if (held) {
        const { resource, namespace, name, verb } = held;
        await until(() => {
          const live = fleet.sim.store.get(resource, namespace, name);
          return (
            (verb === 'delete' ? !live || live.metadata.deletionTimestamp !== undefined : !!live) || undefined
          );
        }, `the held ${verb} of ${name} to land`);
      }
      await c.afterKill?.(from, to, jobId);
      const next = await fleet.startWorker();

      const result = await waiting;
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`completed: renamed ${from} to ${to}`));
      await checks.expectRenamed(from, to, before);
      // Two attempts: the killed worker's, never ended, and the one that finished the saga.
      const shown = JSON.parse(await fleet.ok(['jobs:show', jobId, '--json'])) as {
        attempts: { pid: number; outcome?: string }[];
      };
      expect(shown.attempts.map((a) => [a.pid, a.outcome])).toEqual([
        [killed.pid, undefined],
        [next.pid, 'completed'],
      ]);
    },
  );
});

/**
 * A fleet credential rotation (`registry:login --global`, the fleet lane) against an app's own
 * jobs writing `pull-secret-{app}` (its lane), end to end: CLI → Redis → two worker processes →
 * kube-sim. Latency faults on single objects fix the interleaving:
 *
 * A. the app's job read the old credential, then is held in its config write while the rotation
 *    runs and reports success; the job then writes the old credential over the new one;
 * B. the rotation's Secret write and the job's (repairing towards the old credential) overlap:
 *    the rotation's revision ends deployed while the live Secret holds the job's value, so history
 *    and the cluster disagree (a later job finds the value "changed by hand");
 * C. a first deploy writes the old credential, then is held in its rollout while the rotation runs,
 *    which does not list the app by its spec yet (its spec is saved last);
 *
 * each time the end state holds the new credential, history's digest matches the live Secret, and
 * a later deploy finds nothing to repair. And, with the rotation's own write of an app's Secret
 * held in flight while a job of the app takes it off the fleet credential:
 *
 * D. `registry:login --app` gives the app a credential of its own for the same registry;
 * E. a deploy moves the app's image to another registry, with a credential of its own for it, or
 *    with none (the fleet pull secret of the old registry is then uninstalled);
 *
 * each time the app's job wins: the rotation's held write does not land over it, the app ends
 * with what its job wrote, and a later deploy finds nothing lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITE_VERBS } from '../../infra/kube-sim/server/request-log.ts';
import { Sealer } from '../../src/jobs/sealing.ts';
import { ValueDigester } from '../../src/releases/secret-values.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { TEST_SECRET } from '../helpers/processes.ts';
import { until } from '../helpers/wait.ts';

const SERVER = 'registry.example.com';
const PROCFILE = 'web: bundle exec puma -p 5000\n';
const DOCKER_CONFIG = '.dockerconfigjson';
const digester = new ValueDigester(new Sealer(TEST_SECRET).valueDigestKey());

let fleet: DeployFleet;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  await fleet.startWorker();
});

afterAll(async () => {
  await fleet?.stop();
});

function deployArgs(app: string, image: string): string[] {
  return ['deploy', app, '--image', image, '--procfile', fleet.file(`${app}.Procfile`, PROCFILE), '--wait'];
}

function rotate(password: string) {
  return fleet.cli(['registry:login', SERVER, 'ci', '--password-stdin', '--global', '--wait'], {
    stdin: `${password}\n`,
    timeoutMs: 120_000,
  });
}

/** The credentials in the live `pull-secret-{app}` by registry (undefined when the Secret is absent). */
async function liveAuths(app: string): Promise<Record<string, { password: string }> | undefined> {
  const secret = await fleet.core
    .readNamespacedSecret({ name: `pull-secret-${app}`, namespace: 'default' })
    .catch((err: { code?: number }) => {
      if (err.code === 404) return undefined;
      throw err;
    });
  if (!secret) return undefined;
  const config = JSON.parse(Buffer.from(secret.data?.[DOCKER_CONFIG] ?? '', 'base64').toString()) as {
    auths: Record<string, { password: string }>;
  };
  return config.auths;
}

async function livePassword(app: string, server = SERVER): Promise<string | undefined> {
  return (await liveAuths(app))?.[server]?.password;
}

/** Whether the deployed revision's digest of the docker config is the live Secret's value. */
async function historyMatchesLive(app: string): Promise<boolean> {
  const release = `pull-secret-${app}`;
  const store = await fleet.store();
  const deployed = store.deployed(release);
  if (!deployed) return false;
  const content = await store.read(release, deployed.revision);
  const stored = content.objects.find((o) => o.kind === 'Secret') as
    | { redactedData?: Record<string, string> }
    | undefined;
  const live = await fleet.core.readNamespacedSecret({ name: release, namespace: 'default' });
  const digest = stored?.redactedData?.[DOCKER_CONFIG];
  const value = live.data?.[DOCKER_CONFIG];
  return (
    digest !== undefined &&
    value !== undefined &&
    digester.verdict(digest, release, DOCKER_CONFIG, value) === 'match'
  );
}

/** The end state every case must reach: the new credential live, and history agreeing with it. */
async function expectCurrent(app: string, password: string): Promise<void> {
  expect(await livePassword(app), `pull-secret-${app} holds the rotated credential`).toBe(password);
  await until(
    () => historyMatchesLive(app) || undefined,
    `pull-secret-${app}: history's digest matches the live Secret`,
    {
      timeoutMs: 10_000,
    },
  );
  // A later job builds on it: nothing lost, nothing to repair.
  const later = await fleet.ok(deployArgs(app, `${SERVER}/team/${app}:1`));
  expect(later).toMatch(new RegExp(`pull-secret-${app}: unchanged`));
  expect(later).not.toMatch(/cannot restore the registry credentials/);
  expect(await livePassword(app)).toBe(password);
}

/** Waits until the `index`-th fault rule has seen `count` requests (the held request is in flight). */
function matched(index: number, count: number, what: string): Promise<true> {
  return until(() => ((fleet.sim.faults.matched()[index] ?? 0) >= count ? true : undefined), what, {
    timeoutMs: 30_000,
    intervalMs: 20,
  });
}

describe('a fleet credential rotation while an app job writes its pull secret', () => {
  beforeAll(async () => {
    const first = await rotate('pass-1');
    expect(first.code, first.stderr).toBe(0);
    await fleet.ok(deployArgs('alpha', `${SERVER}/team/alpha:1`));
    expect(await livePassword('alpha')).toBe('pass-1');
  });

  it('A: a job that read the old credential before the rotation writes the new one in the end', async () => {
    fleet.sim.faults.add({
      verb: 'patch',
      resource: '/secrets',
      namespace: 'default',
      name: 'config-alpha',
      latencyMs: 3_000,
      limit: 1,
    });
    const job = fleet.cli(['config:set', 'alpha', 'A=1', '--wait'], { timeoutMs: 120_000 });
    await matched(0, 1, "the config job's config-alpha write held (it has read the store)");
    const rotation = await rotate('pass-2');
    expect(rotation.code, rotation.stderr).toBe(0);
    expect(rotation.stdout).toMatch(/pull-secret-alpha: revision \d+ deployed/);
    expect(await livePassword('alpha')).toBe('pass-2');
    const done = await job;
    fleet.sim.faults.clear();
    expect(done.code, done.stderr).toBe(0);
    await expectCurrent('alpha', 'pass-2');
    expect(done.stdout).toMatch(
      /pull-secret-alpha: the fleet credential for registry\.example\.com changed while this job ran/,
    );
  });

  it("B: the rotation's and the job's writes of the Secret overlap: history and the live Secret end agreeing", async () => {
    fleet.sim.faults.add({
      verb: 'patch',
      resource: '/secrets',
      namespace: 'default',
      name: 'config-alpha',
      latencyMs: 4_000,
      limit: 1,
    });
    // The rotation writes the Secret with a conditional replace (update), the job with an apply (patch).
    fleet.sim.faults.add({
      verb: 'update',
      resource: '/secrets',
      namespace: 'default',
      name: 'pull-secret-alpha',
      latencyMs: 6_000,
    });
    fleet.sim.faults.add({
      verb: 'patch',
      resource: '/secrets',
      namespace: 'default',
      name: 'pull-secret-alpha',
      latencyMs: 6_000,
    });
    const job = fleet.cli(['config:set', 'alpha', 'B=1', '--wait'], { timeoutMs: 120_000 });
    await matched(0, 1, "the config job's config-alpha write held (it has read the store)");
    const rotation = rotate('pass-3');
    await matched(1, 1, "the rotation's pull-secret-alpha write held");
    // The job goes on meanwhile and writes the credential it read, while the rotation's is held.
    await matched(2, 1, "the job's pull-secret-alpha write, while the rotation's is still held");
    const rotated = await rotation;
    expect(rotated.code, rotated.stderr).toBe(0);
    fleet.sim.faults.clear();
    const done = await job;
    expect(done.code, done.stderr).toBe(0);
    await expectCurrent('alpha', 'pass-3');
  });

  it('C: a first deploy held in its rollout while the rotation runs (which does not list it yet) ends with the new credential', async () => {
    fleet.sim.faults.add({
      verb: 'patch',
      resource: 'apps/deployments',
      namespace: 'default',
      name: 'beta-web',
      latencyMs: 3_000,
      limit: 1,
    });
    const deploy = fleet.cli(deployArgs('beta', `${SERVER}/team/beta:1`), { timeoutMs: 120_000 });
    await matched(0, 1, "the first deploy's Deployment write held (its pull secret is written)");
    expect(await livePassword('beta')).toBe('pass-3');
    const rotation = await rotate('pass-4');
    expect(rotation.code, rotation.stderr).toBe(0);
    // Only alpha has a saved spec yet; beta is reached through its deployed pull secret.
    expect(rotation.stdout).toMatch(/2 app\(s\) pull from it/);
    const done = await deploy;
    fleet.sim.faults.clear();
    expect(done.code, done.stderr).toBe(0);
    await expectCurrent('beta', 'pass-4');
    expect(await livePassword('alpha')).toBe('pass-4');
  });
});

/** Writes to `pull-secret-{app}` that the simulator is serving right now (held by a latency fault). */
function writesInFlight(app: string) {
  return fleet.sim.requests
    .inFlight({ resource: '/secrets', namespace: 'default', name: `pull-secret-${app}` })
    .filter((r) => WRITE_VERBS.includes(r.verb));
}

/** Writes to `pull-secret-{app}` the simulator has served since the request log had `from` entries. */
function writesServed(app: string, from: number) {
  return fleet.sim.requests
    .entries()
    .slice(from)
    .filter(
      (r) =>
        WRITE_VERBS.includes(r.verb) &&
        r.resource === '/secrets' &&
        r.namespace === 'default' &&
        r.name === `pull-secret-${app}`,
    );
}

/**
 * Starts a rotation whose write of `pull-secret-{app}` is held in flight for 10 s, then runs
 * `job` (a job of the app that takes it off the fleet credential) while it is held: the job's own
 * pull-secret write is served first. Returns both outcomes once both ended.
 */
async function rotationHeldWhile(app: string, password: string, job: () => ReturnType<DeployFleet['cli']>) {
  for (const verb of WRITE_VERBS)
    fleet.sim.faults.add({
      verb,
      resource: '/secrets',
      namespace: 'default',
      name: `pull-secret-${app}`,
      latencyMs: 10_000,
      limit: 1,
    });
  const rotation = rotate(password);
  await until(
    () => writesInFlight(app).length === 1 || undefined,
    `the rotation's pull-secret-${app} write held`,
    {
      timeoutMs: 60_000,
      intervalMs: 20,
    },
  );
  // What is already delayed stays delayed; the job's writes are not.
  fleet.sim.faults.clear();
  const from = fleet.sim.requests.entries().length;
  const running = job();
  await until(
    () => writesServed(app, from).length > 0 || undefined,
    `the job's own write of pull-secret-${app}`,
    { timeoutMs: 60_000, intervalMs: 20 },
  );
  // The interleaving this test is about: the job's write was served while the rotation's is held.
  expect(writesInFlight(app).length, "the rotation's write still held when the job's was served").toBe(1);
  const [rotated, done] = await Promise.all([rotation, running]);
  expect(rotated.code, rotated.stderr).toBe(0);
  expect(done.code, done.stderr).toBe(0);
  return { rotated, done };
}

async function podPullSecrets(app: string): Promise<unknown> {
  const d = await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace: 'default' });
  return d.spec?.template.spec?.imagePullSecrets;
}

/** A later deploy of the app at `image` builds on what is live: nothing lost, nothing repaired. */
async function laterDeployFindsNothingLost(app: string, image: string): Promise<void> {
  const later = await fleet.ok(deployArgs(app, image));
  expect(later).not.toMatch(/cannot restore the registry credentials|changed in Secret/);
  expect(later).toMatch(new RegExp(`pull-secret-${app}: unchanged`));
}

const OTHER = 'registry2.example.com';
const PLAIN = 'plain.example.com';

describe('a fleet credential rotation while an app job takes the app off it', () => {
  beforeAll(async () => {
    const first = await rotate('pass-10');
    expect(first.code, first.stderr).toBe(0);
    for (const app of ['gamma', 'delta', 'eps']) {
      await fleet.ok(deployArgs(app, `${SERVER}/team/${app}:1`));
      expect(await livePassword(app)).toBe('pass-10');
    }
  });

  it("D: registry:login --app during the rotation: the app's own credential stays live", async () => {
    const { rotated } = await rotationHeldWhile('gamma', 'pass-11', () =>
      fleet.cli(['registry:login', SERVER, 'gamma-user', '--password-stdin', '--app', 'gamma', '--wait'], {
        stdin: 'gamma-own\n',
        timeoutMs: 120_000,
      }),
    );
    expect(await livePassword('gamma')).toBe('gamma-own');
    expect(rotated.stdout).toMatch(/pull-secret-gamma: left to gamma's own job/);
    await until(() => historyMatchesLive('gamma') || undefined, "gamma's history matches the live Secret", {
      timeoutMs: 10_000,
    });
    await laterDeployFindsNothingLost('gamma', `${SERVER}/team/gamma:1`);
    expect(await livePassword('gamma')).toBe('gamma-own');
    // The other apps of the registry got the rotation.
    expect(await livePassword('delta')).toBe('pass-11');
  });

  it('E: a deploy moving the image to another registry with a credential of its own: that one stays live', async () => {
    const image = `${OTHER}/team/delta:2`;
    await rotationHeldWhile('delta', 'pass-12', () =>
      fleet.cli(
        [
          ...deployArgs('delta', image),
          '--registry-server',
          OTHER,
          '--registry-username',
          'delta-user',
          '--registry-password-stdin',
        ],
        { stdin: 'delta-own\n', timeoutMs: 120_000 },
      ),
    );
    expect(Object.keys((await liveAuths('delta')) ?? {})).toEqual([OTHER]);
    expect(await livePassword('delta', OTHER)).toBe('delta-own');
    await until(() => historyMatchesLive('delta') || undefined, "delta's history matches the live Secret", {
      timeoutMs: 10_000,
    });
    await laterDeployFindsNothingLost('delta', image);
    expect(await livePassword('delta', OTHER)).toBe('delta-own');
  });

  it('E: a deploy moving the image to a registry with no credential: no pull secret is left', async () => {
    const image = `${PLAIN}/team/eps:2`;
    const { done } = await rotationHeldWhile('eps', 'pass-13', () =>
      fleet.cli(deployArgs('eps', image), { timeoutMs: 120_000 }),
    );
    expect(done.stdout).toMatch(/pull-secret-eps: uninstalled/);
    expect(await liveAuths('eps')).toBeUndefined();
    expect(await podPullSecrets('eps')).toBeUndefined();
    const store = await fleet.store();
    await until(
      () => store.history('pull-secret-eps').length === 0 || undefined,
      'no pull-secret-eps history',
      {
        timeoutMs: 10_000,
      },
    );
    const later = await fleet.ok(deployArgs('eps', image));
    expect(later).not.toMatch(/pull-secret-eps/);
    expect(await liveAuths('eps')).toBeUndefined();
  });
});

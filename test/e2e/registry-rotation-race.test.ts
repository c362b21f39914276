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
 *    which does not list the app yet (its spec is saved last).
 *
 * Each time the end state holds the new credential, history's digest matches the live Secret, and
 * a later deploy finds nothing to repair.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

async function livePassword(app: string): Promise<string | undefined> {
  const secret = await fleet.core.readNamespacedSecret({ name: `pull-secret-${app}`, namespace: 'default' });
  const config = JSON.parse(Buffer.from(secret.data?.[DOCKER_CONFIG] ?? '', 'base64').toString()) as {
    auths: Record<string, { password: string }>;
  };
  return config.auths[SERVER]?.password;
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
    await matched(1, 2, "the job's pull-secret-alpha write, while the rotation's is still held");
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
    // Only alpha has a saved spec yet.
    expect(rotation.stdout).toMatch(/1 app\(s\) pull from it/);
    const done = await deploy;
    fleet.sim.faults.clear();
    expect(done.code, done.stderr).toBe(0);
    await expectCurrent('beta', 'pass-4');
    expect(await livePassword('alpha')).toBe('pass-4');
  });
});

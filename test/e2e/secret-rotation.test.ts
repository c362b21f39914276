/**
 * Changing the fleet secret (LONGSHORE_SECRET) changes the key of every digest that release history
 * keeps in place of Secret values. The live values stay the app's values: the next job writes one
 * new `config-{app}` revision with the same values digested under the new key, and nothing is
 * reported lost or refused (docs/releases.md, "Secret values").
 * CLI → Redis → worker process → kube-sim over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { runCli } from '../helpers/processes.ts';

const ROTATED = 'rotated-fleet-passphrase-9876543210-zyxwvutsrq';

let fleet: DeployFleet;
let store: SecretReleaseStore;

beforeAll(async () => {
  fleet = await startDeployFleet();
  store = await fleet.store();
});

afterAll(async () => {
  await fleet?.stop();
});

async function liveData(app: string): Promise<Record<string, string>> {
  const secret = await fleet.core.readNamespacedSecret({ name: `config-${app}`, namespace: 'default' });
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

describe('a new fleet secret', () => {
  it('keeps the live config values: one new revision, nothing lost, config:set still works', async () => {
    const app = 'rotor';
    const procfile = fleet.file(`${app}.Procfile`, 'web: nginx -g "daemon off;"\n');
    const deploy = ['deploy', app, '--image', 'nginx:1.27', '--procfile', procfile, '--wait'];
    const first = await fleet.startWorker();
    await fleet.ok(['config:set', app, 'A=alpha', 'B=beta', '--wait']);
    await fleet.ok(deploy);
    const revisions = store.history(`config-${app}`).length;

    // Every producer and worker moves to the new secret.
    first.kill('SIGTERM');
    await first.exited;
    await fleet.startWorker({ LONGSHORE_SECRET: ROTATED });
    const env = { ...fleet.env, LONGSHORE_SECRET: ROTATED };

    const redeploy = await runCli(deploy, env);
    expect(redeploy.code, redeploy.stdout + redeploy.stderr).toBe(0);
    expect(redeploy.stdout).not.toMatch(/cannot restore|lost/);
    expect(redeploy.stdout).toMatch(new RegExp(`config-${app}: revision ${revisions + 1} deployed`));
    expect(await liveData(app)).toEqual({ A: 'alpha', B: 'beta' });

    // The values verify under the new key now: a config change builds on them, unrefused.
    const set = await runCli(['config:set', app, 'C=gamma', '--wait'], env);
    expect(set.code, set.stdout + set.stderr).toBe(0);
    expect(await liveData(app)).toEqual({ A: 'alpha', B: 'beta', C: 'gamma' });
    const again = await runCli(deploy, env);
    expect(again.stdout).toMatch(new RegExp(`config-${app}: unchanged`));
  });
});

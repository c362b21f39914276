/**
 * registry:login end to end: CLI → Redis → worker process → kube-sim over HTTP. A fleet-wide
 * credential reaches the pull secret of every app pulling from its server (and no other app); a
 * rotation is one job that changes those Secrets' data in every namespace with zero Deployment
 * writes; the password is never in Redis in clear; an app's own credential (--app) wins over the
 * fleet's; a worker killed mid-rotation leaves a job the next one finishes with one revision per
 * pull secret; registry:logout uninstalls what login installed.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { everyValueInRedis } from '../helpers/redis-values.ts';
import { until } from '../helpers/wait.ts';

let fleet: DeployFleet;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
});

afterAll(async () => {
  await fleet?.stop();
});

const PROCFILE = 'web: bundle exec puma -p 5000\n';
const SERVER = 'registry.example.com';
/** Two apps pull from SERVER (in two namespaces), one from elsewhere. */
const APPS = [
  { app: 'alpha', image: `${SERVER}/team/alpha:1`, namespace: 'default' },
  { app: 'beta', image: `${SERVER}/team/beta:1`, namespace: 'beta-ns' },
  { app: 'gamma', image: 'ghcr.io/other/gamma:1', namespace: 'default' },
] as const;

function deployArgs(app: string, image: string): string[] {
  return ['deploy', app, '--image', image, '--procfile', fleet.file(`${app}.Procfile`, PROCFILE), '--wait'];
}

function login(password: string, scope: string[]): Promise<string> {
  return fleet.ok(['registry:login', SERVER, 'ci', '--password-stdin', ...scope, '--wait'], {
    stdin: `${password}\n`,
  });
}

/** The credentials in `pull-secret-{app}` (decoded dockerconfigjson), or undefined when it is absent. */
async function pullAuths(
  app: string,
  namespace: string,
): Promise<Record<string, { username: string; password: string; auth: string }> | undefined> {
  const secret = await fleet.core
    .readNamespacedSecret({ name: `pull-secret-${app}`, namespace })
    .catch(() => undefined);
  if (!secret) return undefined;
  expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
  return (
    JSON.parse(Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString()) as {
      auths: Record<string, { username: string; password: string; auth: string }>;
    }
  ).auths;
}

async function pullSecretsOf(app: string, namespace: string): Promise<unknown> {
  const d = await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace });
  return d.spec?.template.spec?.imagePullSecrets;
}

async function redisValuesContaining(text: string): Promise<string[]> {
  const client = new Redis(fleet.redis.url);
  try {
    return (await everyValueInRedis(client)).filter((v) => v.includes(text));
  } finally {
    client.disconnect();
  }
}

describe('registry:login --global', () => {
  it('reaches every app pulling from the server, and a rotation writes only their pull Secrets', async () => {
    await fleet.ok(['properties:set', 'beta', 'namespace', 'beta-ns', '--wait']);
    for (const { app, image } of APPS) await fleet.ok(deployArgs(app, image));

    // 1. The first login: the two apps of registry.example.com get the credential, gamma not.
    const first = await fleet.writesDuring(async () => {
      const out = await login('first-pass', ['--global']);
      expect(out).toMatch(/fleet credential for registry\.example\.com stored \(sealed\)/);
      expect(out).toMatch(/2 app\(s\) pull from it, 2 pull secret\(s\) updated/);
    });
    expect(first.filter((w) => w.includes('/deployments'))).toEqual([]);
    for (const { app, namespace } of APPS.slice(0, 2)) {
      expect((await pullAuths(app, namespace))?.[SERVER]).toEqual({
        username: 'ci',
        password: 'first-pass',
        auth: Buffer.from('ci:first-pass').toString('base64'),
      });
    }
    expect(await pullAuths('gamma', 'default')).toBeUndefined();

    // 2. Their next deploy lists the pull secret in the pods (the credential itself is unchanged).
    for (const { app, image, namespace } of APPS.slice(0, 2)) {
      const out = await fleet.ok(deployArgs(app, image));
      expect(out).toMatch(new RegExp(`pull-secret-${app}: unchanged`));
      expect(await pullSecretsOf(app, namespace)).toEqual([{ name: `pull-secret-${app}` }]);
    }
    expect(await pullSecretsOf('gamma', 'default')).toBeUndefined();

    // 3. Rotation: one job; the Secret data changes in both namespaces; no Deployment is written.
    const rotation = await fleet.writesDuring(async () => {
      const out = await login('second-pass', ['--global']);
      expect(out).toMatch(/pull-secret-alpha: revision 2 deployed/);
      expect(out).toMatch(/pull-secret-beta: revision 2 deployed/);
    });
    expect(rotation.filter((w) => w.includes('/deployments'))).toEqual([]);
    expect(rotation.filter((w) => w.includes('/secrets default/pull-secret-alpha')).length).toBeGreaterThan(
      0,
    );
    expect(rotation.filter((w) => w.includes('/secrets beta-ns/pull-secret-beta')).length).toBeGreaterThan(0);
    expect(rotation.filter((w) => w.includes('gamma'))).toEqual([]);
    for (const { app, namespace } of APPS.slice(0, 2))
      expect((await pullAuths(app, namespace))?.[SERVER]?.password).toBe('second-pass');
    expect(await pullAuths('gamma', 'default')).toBeUndefined();

    // A deploy after the rotation keeps the rotated credential (it reads the same store).
    expect(await fleet.ok(deployArgs('alpha', `${SERVER}/team/alpha:2`))).toMatch(
      /pull-secret-alpha: unchanged/,
    );

    // 4. Never in Redis in clear, nor in the worker's output.
    expect(await redisValuesContaining('first-pass')).toEqual([]);
    expect(await redisValuesContaining('second-pass')).toEqual([]);
    expect(fleet.workers[0]?.output()).not.toContain('second-pass');
  });

  it("leaves an app's own credential (--app) alone when the fleet's is rotated", async () => {
    const own = await login('alpha-own', ['--app', 'alpha']);
    expect(own).toMatch(/registry credentials for registry\.example\.com set/);
    expect((await pullAuths('alpha', 'default'))?.[SERVER]?.password).toBe('alpha-own');

    const rotation = await fleet.writesDuring(async () => {
      const out = await login('third-pass', ['--global']);
      expect(out).toMatch(/1 app\(s\) pull from it, 1 pull secret\(s\) updated/);
    });
    expect(rotation.filter((w) => w.includes('/deployments'))).toEqual([]);
    expect(rotation.filter((w) => w.includes('pull-secret-alpha'))).toEqual([]);
    expect((await pullAuths('alpha', 'default'))?.[SERVER]?.password).toBe('alpha-own');
    expect((await pullAuths('beta', 'beta-ns'))?.[SERVER]?.password).toBe('third-pass');
    expect(await redisValuesContaining('alpha-own')).toEqual([]);
  });

  it('refuses a login without exactly one of --global and --app, enqueueing nothing', async () => {
    const neither = await fleet.cli(['registry:login', SERVER, 'ci', '--password-stdin'], { stdin: 'x' });
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/give exactly one of --global or --app APP/);
    const both = await fleet.cli(
      ['registry:login', SERVER, 'ci', '--password-stdin', '--global', '--app', 'alpha'],
      { stdin: 'x' },
    );
    expect(both.code).toBe(2);
    const noStdin = await fleet.cli(['registry:login', SERVER, 'ci', '--global']);
    expect(noStdin.code).toBe(2);
    expect(noStdin.stderr).toMatch(/--password-stdin/);
  });
});

describe('a worker killed mid-rotation', () => {
  it('leaves a job the next worker finishes: every pull Secret rotated once, no Deployment written', async () => {
    await fleet.ok(deployArgs('delta', `${SERVER}/team/delta:1`));
    await login('fourth-pass', ['--global']);
    await fleet.ok(deployArgs('delta', `${SERVER}/team/delta:1`));
    const store = await fleet.store();
    const before = {
      beta: store.history('pull-secret-beta').length,
      delta: store.history('pull-secret-delta').length,
    };

    // Slow Secret writes (the rotation's are conditional replaces), so the job is still between the
    // two apps when its worker dies.
    fleet.sim.faults.add({ verb: 'patch', resource: '/secrets', latencyMs: 1_500 });
    fleet.sim.faults.add({ verb: 'update', resource: '/secrets', latencyMs: 1_500 });
    const [first] = fleet.workers;
    const writes = await fleet.writesDuring(async () => {
      const waiting = fleet.cli(['registry:login', SERVER, 'ci', '--password-stdin', '--global', '--wait'], {
        stdin: 'fifth-pass',
        timeoutMs: 120_000,
      });
      await until(
        () => (store.last('pull-secret-beta')?.revision === before.beta + 1 ? true : undefined),
        'pull-secret-beta to get its new revision',
        { timeoutMs: 60_000 },
      );
      first!.kill('SIGKILL');
      await first!.exited;
      fleet.sim.faults.clear();
      await fleet.startWorker();
      const result = await waiting;
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      // Two attempts: the killed worker's, never ended, and the one that finished the rotation.
      const id = /enqueued registry-login job (\S+)/.exec(result.stdout)?.[1];
      const shown = JSON.parse((await fleet.cli(['jobs:show', id!, '--json'])).stdout) as {
        attempts: { outcome?: string }[];
      };
      expect(shown.attempts.map((a) => a.outcome)).toEqual([undefined, 'completed']);
    });
    expect(writes.filter((w) => w.includes('/deployments'))).toEqual([]);
    for (const [app, namespace] of [
      ['beta', 'beta-ns'],
      ['delta', 'default'],
    ] as const) {
      expect((await pullAuths(app, namespace))?.[SERVER]?.password).toBe('fifth-pass');
      await until(
        () => (store.last(`pull-secret-${app}`)?.status === 'deployed' ? true : undefined),
        `pull-secret-${app} deployed`,
      );
      // One new revision per rotation, whichever worker wrote it.
      expect(store.history(`pull-secret-${app}`).length).toBe(before[app] + 1);
    }
    expect(await redisValuesContaining('fifth-pass')).toEqual([]);
  });
});

describe('registry:logout', () => {
  it('--global uninstalls the pull secrets holding the fleet credential, writing no Deployment', async () => {
    const writes = await fleet.writesDuring(async () => {
      const out = await fleet.ok(['registry:logout', SERVER, '--global', '--wait']);
      expect(out).toMatch(
        /fleet credential for registry\.example\.com removed; 2 pull secret\(s\) uninstalled/,
      );
    });
    expect(writes.filter((w) => w.includes('/deployments'))).toEqual([]);
    await until(
      async () =>
        (await pullAuths('beta', 'beta-ns')) === undefined &&
        (await pullAuths('delta', 'default')) === undefined
          ? true
          : undefined,
      'the fleet pull secrets to be deleted',
    );
    // An app's own credential stays; the next deploy of beta no longer lists a pull secret.
    expect((await pullAuths('alpha', 'default'))?.[SERVER]?.password).toBe('alpha-own');
    await fleet.ok(deployArgs('beta', `${SERVER}/team/beta:1`));
    expect(await pullSecretsOf('beta', 'beta-ns')).toBeUndefined();
    expect(await pullAuths('beta', 'beta-ns')).toBeUndefined();
  });

  it('--app forgets only a credential the app has for that server', async () => {
    const wrong = await fleet.cli(['registry:logout', 'ghcr.io', '--app', 'alpha', '--wait']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /app alpha has no credential of its own for ghcr\.io \(it has one for registry\.example\.com\)/,
    );
    expect((await pullAuths('alpha', 'default'))?.[SERVER]?.password).toBe('alpha-own');

    const out = await fleet.ok(['registry:logout', SERVER, '--app', 'alpha', '--wait']);
    expect(out).toMatch(/pull-secret-alpha: uninstalled/);
    expect(await pullSecretsOf('alpha', 'default')).toBeUndefined();
  });
});

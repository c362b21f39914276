/**
 * Secrets at rest (issue 11, case 9): the release history of `config-{app}` and
 * `pull-secret-{app}` in the system namespace keeps keys, digests and the values sealed under the
 * fleet key (for rollbacks), never a value in clear; the live Secrets in the app's namespace hold
 * the values. Through real processes: CLI → Redis → worker
 * process → kube-sim over HTTP; the storage is read back by decoding every Secret of the system
 * namespace the way the driver writes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { valuesFoundIn } from '../helpers/stored-secrets.ts';
import { until } from '../helpers/wait.ts';

const SYSTEM = 'longshore-system';
let fleet: DeployFleet;
let store: SecretReleaseStore;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  store = await fleet.store();
});

afterAll(async () => {
  await fleet?.stop();
});

const ok = (args: string[], stdin?: string) => fleet.ok(args, stdin !== undefined ? { stdin } : {});

async function liveData(name: string, namespace = 'default'): Promise<Record<string, string>> {
  const secret = await fleet.core.readNamespacedSecret({ name, namespace });
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

const writesDuring = (fn: () => Promise<unknown>) => fleet.writesDuring(fn);

const reconcile = (app: string) => [
  'jobs:enqueue',
  'reconcile',
  '--payload',
  JSON.stringify({ app }),
  '--wait',
];

describe('config values at rest', () => {
  const ONE = 'sup3r-secret-one';
  const TWO = 'sup3r-secret-two';

  it('config:set, rotation and config:unset leave no value in any Secret of the system namespace', async () => {
    await ok(['deploy', 'vault', '--image', 'registry.example.com/vault:1', '--wait']);

    await ok(['config:set', 'vault', `K=${ONE}`, '--wait']);
    expect(await liveData('config-vault')).toEqual({ K: ONE });
    expect(await valuesFoundIn(fleet.core, SYSTEM, [ONE])).toEqual([]);

    await ok(['config:set', 'vault', `K=${TWO}`, '--wait']);
    expect(await liveData('config-vault')).toEqual({ K: TWO });
    expect(await valuesFoundIn(fleet.core, SYSTEM, [ONE, TWO])).toEqual([]);

    await ok(['config:unset', 'vault', 'K', '--wait']);
    expect(await liveData('config-vault')).toEqual({});
    expect(await valuesFoundIn(fleet.core, SYSTEM, [ONE, TWO])).toEqual([]);

    // History still names the keys of each revision, with a digest per value.
    await until(() => (store.deployed('config-vault')?.revision === 4 ? true : undefined), 'revision 4');
    const rotated = await store.read('config-vault', 3);
    const secret = rotated.objects[0] as { data?: unknown; redactedData?: Record<string, string> };
    expect(secret.data).toBeUndefined();
    expect(Object.keys(secret.redactedData ?? {})).toEqual(['K']);
    expect(secret.redactedData?.K).toMatch(/^hmac-sha256:[0-9a-f]{8}:[0-9a-f]{64}$/);
  });

  it('a redeploy with the same config writes nothing', async () => {
    await ok(['config:set', 'vault', 'A=alpha-value', 'B=beta-value', '--wait']);
    const writes = await writesDuring(async () => {
      const out = await ok(['deploy', 'vault', '--image', 'registry.example.com/vault:1', '--wait']);
      expect(out).toMatch(/config-vault: unchanged/);
      expect(out).toMatch(/vault: unchanged/);
      expect(await ok(reconcile('vault'))).toMatch(/config-vault: unchanged/);
    });
    expect(writes).toEqual([]);
    expect(await valuesFoundIn(fleet.core, SYSTEM, ['alpha-value', 'beta-value'])).toEqual([]);
  });

  it('reconcile repairs drift other than values, and says which values it cannot restore', async () => {
    // A label removed by hand: repaired from the live values, which still match their digests.
    await fleet.core.patchNamespacedSecret({
      name: 'config-vault',
      namespace: 'default',
      body: [{ op: 'remove', path: '/metadata/labels/longshore.dev~1release' }],
    });
    expect(await ok(reconcile('vault'))).toMatch(/config-vault: drift repaired/);
    const repaired = await fleet.core.readNamespacedSecret({ name: 'config-vault', namespace: 'default' });
    expect(repaired.metadata?.labels?.['longshore.dev/release']).toBe('config-vault');

    // A value removed by hand: history has its digest only, so nothing can bring it back.
    await fleet.core.patchNamespacedSecret({
      name: 'config-vault',
      namespace: 'default',
      body: [{ op: 'remove', path: '/data/A' }],
    });
    const before = store.last('config-vault')?.revision;
    const writes = await writesDuring(async () => {
      const out = await ok(reconcile('vault'));
      expect(out).toMatch(
        /config-vault: cannot restore A \(removed from Secret default\/config-vault\).*config:set vault A=/,
      );
    });
    expect(writes).toEqual([]);
    expect(store.last('config-vault')?.revision).toBe(before);
    expect(await liveData('config-vault')).toEqual({ B: 'beta-value' });

    // A config change that does not give A again is refused before any write, naming A…
    const refused = await fleet.cli(['config:set', 'vault', 'C=gamma', '--wait']);
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toMatch(/A \(removed from Secret default\/config-vault\)/);
    // …and giving it again (or unsetting it) is how the operator repairs it.
    await ok(['config:set', 'vault', 'A=alpha-again', '--wait']);
    expect(await liveData('config-vault')).toEqual({ A: 'alpha-again', B: 'beta-value' });
    expect(await ok(reconcile('vault'))).toMatch(/config-vault: unchanged/);
    expect(await valuesFoundIn(fleet.core, SYSTEM, ['alpha-again', 'beta-value'])).toEqual([]);
  });

  it('the app moves namespace with its values, read from the live Secret', async () => {
    await ok(['config:set', 'roamer', 'TOKEN=roaming-token-value', '--wait']);
    await ok(['deploy', 'roamer', '--image', 'registry.example.com/roamer:1', '--wait']);
    await ok(['properties:set', 'roamer', 'namespace', 'roamer-ns', '--wait']);
    expect(await liveData('config-roamer', 'roamer-ns')).toEqual({ TOKEN: 'roaming-token-value' });
    expect(await valuesFoundIn(fleet.core, SYSTEM, ['roaming-token-value'])).toEqual([]);
  });
});

describe('registry credentials at rest', () => {
  const PASSWORD = 'hunter2-registry-token';
  const credentials = [
    '--registry-server',
    'registry.example.com',
    '--registry-username',
    'deployer',
    '--registry-password-stdin',
  ];
  const deployPriv = ['deploy', 'priv', '--image', 'registry.example.com/priv:1', '--wait'];

  async function livePassword(): Promise<string | undefined> {
    const data = await liveData('pull-secret-priv');
    const config = JSON.parse(data['.dockerconfigjson'] ?? '{}') as {
      auths?: Record<string, { password?: string }>;
    };
    return config.auths?.['registry.example.com']?.password;
  }

  it('keeps the password in the live Secret only, and asks for it again when that Secret is gone', async () => {
    await ok([...deployPriv, ...credentials], `${PASSWORD}\n`);
    expect(await livePassword()).toBe(PASSWORD);
    expect(await valuesFoundIn(fleet.core, SYSTEM, [PASSWORD])).toEqual([]);

    // A deploy that does not mention credentials keeps them, reading them from the live Secret.
    const kept = await ok(deployPriv);
    expect(kept).toMatch(/pull-secret-priv: unchanged/);

    // Edited by hand: repaired back from the live password (the digest still matches it).
    await fleet.core.patchNamespacedSecret({
      name: 'pull-secret-priv',
      namespace: 'default',
      body: [{ op: 'remove', path: '/metadata/labels/longshore.dev~1release' }],
    });
    expect(await ok(deployPriv)).toMatch(/pull-secret-priv: drift repaired/);

    // Deleted by hand: nothing stored can bring the password back; the job log says what to do.
    await fleet.core.deleteNamespacedSecret({ name: 'pull-secret-priv', namespace: 'default' });
    const lost = await ok(deployPriv);
    expect(lost).toMatch(
      /pull-secret-priv: cannot restore the registry credentials .*deploy priv .*--registry-password-stdin/,
    );
    await expect(
      fleet.core.readNamespacedSecret({ name: 'pull-secret-priv', namespace: 'default' }),
    ).rejects.toThrow();

    // Given again: installed again.
    await ok([...deployPriv, ...credentials], `${PASSWORD}\n`);
    expect(await livePassword()).toBe(PASSWORD);
    expect(await valuesFoundIn(fleet.core, SYSTEM, [PASSWORD])).toEqual([]);
  });
});

describe('rollback', () => {
  it('restores an older config revision from the values history keeps sealed, never in clear', async () => {
    const { createReleaseEngine } = await import('../../src/releases/index.ts');
    const { Sealer } = await import('../../src/jobs/sealing.ts');
    await ok(['config:set', 'rolly', 'X=x-value-1', '--wait']);
    await ok(['config:set', 'rolly', 'Y=y-value-1', '--wait']);
    await until(() => (store.deployed('config-rolly')?.revision === 2 ? true : undefined), 'revision 2');
    const sealer = new Sealer(fleet.env.LONGSHORE_SECRET!);
    const engineWith = (secretSealKey?: Buffer) =>
      createReleaseEngine({
        kube: fleet.kc,
        history: store,
        secretDigestKey: sealer.valueDigestKey(),
        ...(secretSealKey ? { secretSealKey } : {}),
      });
    const engine = engineWith(sealer.historySealKey());
    try {
      // Revision 1 had X only: Y goes.
      const rolled = await engine.rollback({
        release: 'config-rolly',
        revision: 1,
        holder: 'op-1',
        wait: false,
      });
      expect(rolled.outcome).toBe('deployed');
      await until(async () => {
        const data = await liveData('config-rolly');
        return data.Y === undefined ? data : undefined;
      }, 'Y to be removed');
      expect(await liveData('config-rolly')).toEqual({ X: 'x-value-1' });

      // X changed since revision 2: its old value comes back from history, where it is sealed.
      await ok(['config:set', 'rolly', 'X=x-value-2', '--wait']);
      await until(() => (store.deployed('config-rolly')?.revision === 4 ? true : undefined), 'revision 4');
      await engine.rollback({ release: 'config-rolly', revision: 2, holder: 'op-2', wait: false });
      await until(async () => {
        const data = await liveData('config-rolly');
        return data.X === 'x-value-1' ? data : undefined;
      }, 'X back at x-value-1');
      expect(await liveData('config-rolly')).toEqual({ X: 'x-value-1', Y: 'y-value-1' });
    } finally {
      await engine.stop();
    }

    // Without the seal key history holds no value it can open: a value the live Secret no longer
    // has (X is x-value-1 now, revision 4 had x-value-2) is refused before any write.
    const digestsOnly = engineWith();
    try {
      await expect(
        digestsOnly.rollback({ release: 'config-rolly', revision: 4, holder: 'op-3', wait: false }),
      ).rejects.toThrow(
        /revision 4 of config-rolly cannot be restored: .*X \(changed in Secret default\/config-rolly\)/,
      );
      expect(store.last('config-rolly')?.revision).toBe(5);
    } finally {
      await digestsOnly.stop();
    }
    expect(await valuesFoundIn(fleet.core, SYSTEM, ['x-value-1', 'x-value-2', 'y-value-1'])).toEqual([]);
  });
});

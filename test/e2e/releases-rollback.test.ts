/**
 * `releases` and `releases:rollback` end to end: CLI → Redis → worker process → kube-sim over HTTP.
 * A rollback restores the revision's objects, its spec (the next job builds on it) and the
 * `config-{app}` revision it ran with — as far as the live Secret still holds that revision's
 * values: history keeps digests, never values (docs/releases.md, "Secret values").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';

let fleet: DeployFleet;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
});

afterAll(async () => {
  await fleet?.stop();
});

const ok = (args: string[]) => fleet.ok(args);

async function imageOf(app: string): Promise<string | undefined> {
  const d = await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace: 'default' });
  return d.spec?.template.spec?.containers[0]?.image;
}

async function envOf(app: string): Promise<Record<string, string>> {
  const secret = await fleet.core.readNamespacedSecret({ name: `config-${app}`, namespace: 'default' });
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

interface Row {
  revision: number;
  status: string;
  image?: string;
  change: string;
  job?: string;
  by?: string;
  rollbackable: boolean;
}

async function releases(app: string): Promise<Row[]> {
  const out = await ok(['releases', app, '--json']);
  return (JSON.parse(out) as { result: { releases: Row[] } }).result.releases;
}

describe('releases and rollback', () => {
  it('rolls back image, spec and config; the next config:set builds on what runs', async () => {
    await ok(['config:set', 'roll', 'A=1', '--wait']);
    await ok(['deploy', 'roll', '--image', 'nginx:1', '--wait']);
    await ok(['deploy', 'roll', '--image', 'nginx:2', '--wait']);
    await ok(['config:set', 'roll', 'B=2', '--wait']);
    expect(await imageOf('roll')).toBe('nginx:2');
    expect(await envOf('roll')).toEqual({ A: '1', B: '2' });

    await ok(['releases:rollback', 'roll', '1', '--wait']);
    expect(await imageOf('roll')).toBe('nginx:1');
    // config-roll is back at the revision revision 1 ran with: B did not exist then.
    expect(await envOf('roll')).toEqual({ A: '1' });

    const history = await releases('roll');
    expect(history.map((r) => [r.revision, r.status, r.image])).toEqual([
      [4, 'deployed', 'nginx:1'],
      [3, 'superseded', 'nginx:2'],
      [2, 'superseded', 'nginx:2'],
      [1, 'superseded', 'nginx:1'],
    ]);
    expect(history[0]!.change).toBe('Rollback to 1');
    expect(history[1]!.change).toBe('config set B');
    expect(history[3]!.change).toBe('deployed nginx:1');
    expect(history.every((r) => r.rollbackable && r.job && r.by?.startsWith('cli:'))).toBe(true);

    // The saved spec followed the rollback: config:set keeps image nginx:1.
    await ok(['config:set', 'roll', 'B=3', '--wait']);
    expect(await imageOf('roll')).toBe('nginx:1');
    expect(await envOf('roll')).toEqual({ A: '1', B: '3' });

    // Without a revision: the previous deployed one (4, image nginx:1, env A=1).
    await ok(['releases:rollback', 'roll', '--wait']);
    expect((await releases('roll'))[0]).toMatchObject({
      revision: 6,
      change: 'Rollback to 4',
      image: 'nginx:1',
    });
    expect(await envOf('roll')).toEqual({ A: '1' });

    const table = await ok(['releases', 'roll']);
    expect(table).toMatch(/REVISION\s+STATUS\s+IMAGE\s+CHANGE\s+WHEN\s+BY/);
    expect(table).toMatch(/6\s+deployed\s+nginx:1\s+Rollback to 4/);
  });

  it('refuses an unknown revision, and a value changed since, writing nothing', async () => {
    await ok(['config:set', 'refuse', 'A=1', '--wait']);
    await ok(['deploy', 'refuse', '--image', 'nginx:1', '--wait']);
    await ok(['config:set', 'refuse', 'A=2', '--wait']);

    const writes = await fleet.writesDuring(async () => {
      const unknown = await fleet.cli(['releases:rollback', 'refuse', '9', '--wait']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/app refuse has no revision 9 \(its revisions: 1, 2\)/);

      // History never kept A=1, and the live Secret now holds A=2: refused, not half restored.
      const changed = await fleet.cli(['releases:rollback', 'refuse', '1', '--wait']);
      expect(changed.code).toBe(1);
      expect(changed.stderr).toMatch(/revision 1 of config-refuse cannot be restored/);
    });
    expect(writes).toEqual([]);
    expect(await envOf('refuse')).toEqual({ A: '2' });
    expect((await releases('refuse')).map((r) => r.revision)).toEqual([2, 1]);
  });

  it('refuses bad input before enqueueing', async () => {
    const bad = await fleet.cli(['releases:rollback', 'roll', 'x1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/revision: "x1" is not a revision number/);
  });
});

/**
 * Dry runs end to end (CLI → Redis → worker process → kube-sim over HTTP): `--dry-run` on a deployed
 * app shows, per release, what the job would create, update (with the diff of the fields longshore
 * owns; Secret values by key only), delete or leave unchanged — and the simulator's request log
 * shows that it wrote nothing, to the cluster or to history; the status projection and the saved
 * spec stay as they were, and the real jobs after it still work.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingressName } from '../../charts/index.ts';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { everyValueInRedis } from '../helpers/redis-values.ts';
import { until } from '../helpers/wait.ts';

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

const ok = (args: string[]) => fleet.ok(args);
const PROCFILE = 'web: bin/server -p 5000\n';
const deploy = (image: string, ...extra: string[]) =>
  ok(['deploy', 'shop', '--image', image, '--procfile', fleet.file('shop.Procfile', PROCFILE), ...extra]);

/** What a dry run must leave alone: revisions, the projection's revision, the saved app record. */
async function facts() {
  const record = await fleet.core.readNamespacedSecret({
    name: 'longshore.app.shop',
    namespace: 'longshore-system',
  });
  const status = JSON.parse(await ok(['apps:status', 'shop', '--json'])) as Record<string, unknown>;
  return {
    app: store.history('shop').map((r) => [r.revision, r.status]),
    config: store.history('config-shop').map((r) => [r.revision, r.status]),
    record: record.metadata?.resourceVersion,
    revision: status.revision,
    image: status.image,
    lastChange: status.lastChangeJobId,
  };
}

describe('--dry-run', () => {
  const removed = ingressName('shop', 'b.example.com');

  it('shows an update of config-shop and the delete of a removed domain’s Ingress, with zero writes', async () => {
    await ok(['config:set', 'shop', 'GREETING=hello', 'OTHER=kept', '--wait']);
    await ok(['domains:add', 'shop', 'a.example.com', 'b.example.com', '--wait']);
    await deploy('registry.example.com/shop:1', '--wait');
    await until(() => store.deployed('shop'), 'the app revision to reach the test store');
    const before = await facts();
    expect(before).toMatchObject({ app: [[1, 'deployed']], config: [[1, 'deployed']], revision: 1 });

    let config = '';
    let domains = '';
    let image = '';
    let json = '';
    const writes = await fleet.writesDuring(async () => {
      config = await ok(['config:set', 'shop', 'GREETING=goodbye-value', '--dry-run']);
      domains = await ok(['domains:remove', 'shop', 'b.example.com', '--dry-run']);
      image = await deploy('registry.example.com/shop:2', '--dry-run');
      json = await ok(['config:set', 'shop', 'GREETING=goodbye-value', '--dry-run', '--json']);
    });
    // No POST, PUT, PATCH or DELETE of anything: no namespace, object, history or app record.
    expect(writes).toEqual([]);

    // The changed variable: config-shop gets a new revision that changes GREETING (masked), and the
    // pods would roll (the config digest annotation of the Deployment).
    expect(config).toContain('config-shop (new revision after 1)');
    expect(config).toMatch(/~ update Secret\/config-shop \(namespace default\)\n\s+GREETING: \(changed\)\n/);
    expect(config).not.toMatch(/OTHER: \(/);
    expect(config).toMatch(/shop \(new revision after 1\)\n {2}~ update Deployment\/shop-web/);
    expect(config).toMatch(/^ {6}-\s+longshore\.dev\/config-digest: [0-9a-f]{64}$/m);
    expect(config).toMatch(
      /dry run of config shop set GREETING: 2 to update, \d+ unchanged; nothing was written/,
    );

    // The removed domain: its Ingress is deleted, config-shop stays as it is.
    expect(domains).toContain('config-shop (no new revision; revision 1 stays)');
    expect(domains).toContain(`- delete Ingress/${removed} (namespace default)`);
    expect(domains).not.toContain(`delete Ingress/${ingressName('shop', 'a.example.com')}`);

    // A new image: a unified diff of the Deployment's image line.
    expect(image).toMatch(/@@ -\d+,\d+ \+\d+,\d+ @@/);
    expect(image).toMatch(/^ {6}-\s+image: registry\.example\.com\/shop:1$/m);
    expect(image).toMatch(/^ {6}\+\s+image: registry\.example\.com\/shop:2$/m);
    expect(image).toMatch(
      /dry run of deploy shop registry\.example\.com\/shop:2: 1 to update, \d+ unchanged;/,
    );

    // --json: the job with the raw plan as its result.
    const parsed = JSON.parse(json) as {
      state: string;
      result: {
        dryRun: boolean;
        releases: { release: string; objects: { kind: string; action: string; values?: unknown }[] }[];
      };
    };
    expect(parsed.state).toBe('completed');
    expect(parsed.result.dryRun).toBe(true);
    const secret = parsed.result.releases
      .find((r) => r.release === 'config-shop')
      ?.objects.find((o) => o.kind === 'Secret');
    expect(secret).toMatchObject({ action: 'update', values: { GREETING: 'changed' } });

    // Nothing a dry run made claims a revision or a change, and the new value is nowhere in Redis.
    expect(await facts()).toEqual(before);
    const client = new Redis(fleet.redis.url);
    try {
      const values = await everyValueInRedis(client);
      expect(values.filter((v) => v.includes('goodbye-value'))).toEqual([]);
      expect(values.some((v) => v.includes('"dryRun":true'))).toBe(true);
    } finally {
      client.disconnect();
    }

    // The real jobs after the dry runs do what the plans said.
    await ok(['config:set', 'shop', 'GREETING=goodbye-value', '--wait']);
    await ok(['domains:remove', 'shop', 'b.example.com', '--wait']);
    await until(() => store.deployed('shop')?.revision === 3 || undefined, 'revision 3 of shop');
    expect(store.history('config-shop').map((r) => r.revision)).toEqual([1, 2]);
    await expect(
      fleet.networking.readNamespacedIngress({ name: removed, namespace: 'default' }),
    ).rejects.toThrow();
    // A dry run runs in the app's lane after the jobs enqueued before it, and sees what they did:
    // behind a config:set that is not waited for, the same change has nothing left to do.
    await ok(['config:set', 'shop', 'GREETING=third-value']);
    const behind = await ok(['config:set', 'shop', 'GREETING=third-value', '--dry-run']);
    expect(behind).toContain('config-shop (no new revision; revision 3 stays)');
    // Planned again now, nothing is left to do.
    const again = await ok(['domains:remove', 'shop', 'b.example.com', '--dry-run']);
    expect(again).toMatch(
      /dry run of domains remove shop b\.example\.com: \d+ unchanged; nothing was written/,
    );
  });

  it('plans a deploy that changes an env var and removes a domain as one job: config update, Ingress delete, zero writes', async () => {
    const cartDeploy = (...extra: string[]) =>
      ok(['deploy', 'cart', '--procfile', fleet.file('cart.Procfile', PROCFILE), ...extra]);
    await ok(['config:set', 'cart', 'GREETING=hello', 'OTHER=kept', '--wait']);
    await ok(['domains:add', 'cart', 'c.example.com', 'd.example.com', '--wait']);
    await cartDeploy('--image', 'registry.example.com/cart:1', '--wait');
    await until(() => store.deployed('cart'), 'the app revision of cart to reach the test store');
    const gone = ingressName('cart', 'd.example.com');
    const change = ['--image', 'registry.example.com/cart:1', '--env', 'GREETING=changed-value'];

    let plan = '';
    const writes = await fleet.writesDuring(async () => {
      plan = await cartDeploy(...change, '--remove-domain', 'd.example.com', '--dry-run');
    });
    expect(writes).toEqual([]);
    expect(plan).toContain('config-cart (new revision after 1)');
    expect(plan).toMatch(/~ update Secret\/config-cart \(namespace default\)\n\s+GREETING: \(changed\)\n/);
    expect(plan).not.toMatch(/OTHER: \(/);
    expect(plan).toContain(`- delete Ingress/${gone} (namespace default)`);
    expect(plan).not.toContain(`delete Ingress/${ingressName('cart', 'c.example.com')}`);
    expect(plan).toMatch(
      /dry run of deploy cart registry\.example\.com\/cart:1 with env GREETING; domains -d\.example\.com: 2 to update, 1 to delete, \d+ unchanged; nothing was written/,
    );
    expect(store.history('config-cart').map((r) => r.revision)).toEqual([1]);
    expect(plan).not.toContain('changed-value');

    // The same deploy for real: one job releases the new value and drops the Ingress.
    await cartDeploy(...change, '--remove-domain', 'd.example.com', '--wait');
    await until(() => store.deployed('cart')?.revision === 2 || undefined, 'revision 2 of cart');
    expect(store.history('config-cart').map((r) => r.revision)).toEqual([1, 2]);
    expect(await ok(['config:get', 'cart', 'GREETING'])).toBe('changed-value');
    expect(await ok(['config:get', 'cart', 'OTHER'])).toBe('kept');
    await expect(
      fleet.networking.readNamespacedIngress({ name: gone, namespace: 'default' }),
    ).rejects.toThrow();
    const kept = ingressName('cart', 'c.example.com');
    expect(
      (await fleet.networking.readNamespacedIngress({ name: kept, namespace: 'default' })).metadata?.name,
    ).toBe(kept);
  });

  it('plans a destroy as deletes, asks for no confirmation, and refuses --dry-run where a job has none', async () => {
    const before = await facts();
    const writes = await fleet.writesDuring(async () => {
      const out = await ok(['apps:destroy', 'shop', '--dry-run']);
      expect(out).toContain('shop (uninstall: its history goes too)');
      expect(out).toContain('- delete Deployment/shop-web (namespace default)');
      expect(out).toContain('- delete Secret/config-shop (namespace default)');
      expect(out).not.toMatch(/unchanged|create|update/);
      expect(out).toMatch(/dry run of destroy shop: \d+ to delete; nothing was written/);
    });
    expect(writes).toEqual([]);
    expect(await facts()).toEqual(before);

    const renamed = await fleet.cli(['apps:rename', 'shop', 'store', '--dry-run']);
    expect(renamed.code).toBe(2);
    expect(renamed.stderr).toMatch(/--dry-run: rename jobs have no dry run: a rename installs/);
    expect(renamed.stdout).not.toContain('enqueued');
  });
});

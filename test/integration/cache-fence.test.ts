/**
 * Cache fences (src/kube/cache-fence.ts, docs/ordering.md "Cache fences"): a job that runs on
 * another worker than the app's previous job waits until its informer caches hold what that job
 * wrote, instead of building on the older spec and history they still hold.
 *
 * Two real worker processes. Worker B reaches kube-sim through a proxy that can hold the watch
 * streams of the system namespace (test/helpers/watch-gate.ts): while B is stopped (SIGSTOP),
 * worker A scales the app and adds a domain, and B's watches of release storage are held, while
 * its watches of the app's namespace go on. So when B runs the next job, a reconcile, its cache of
 * the app record still has the spec from before A's jobs, while its caches of live objects have
 * A's Deployment. Without the fence, B "repaired" that as drift: the scale was undone (what the
 * chaos suite found). With it, B waits, and its reconcile finds nothing to change.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingressName } from '../../charts/index.ts';
import { kubeconfigYaml } from '../../infra/kube-sim/kubeconfig.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import type { Proc } from '../helpers/processes.ts';
import { holdFor, until, within } from '../helpers/wait.ts';
import { startWatchGate, type WatchGate } from '../helpers/watch-gate.ts';

let fleet: DeployFleet;
let gate: WatchGate;

beforeAll(async () => {
  fleet = await startDeployFleet();
  gate = await startWatchGate(fleet.sim.url, (path) => path.includes('/namespaces/longshore-system/'));
});

afterAll(async () => {
  await fleet?.stop();
  await gate?.stop();
});

const HELLO = ['--image', 'nginx:1.27', '--procfile', 'examples/hello/Procfile'];

describe('a job on another worker than the app previous one', () => {
  it('waits for its caches to hold what the previous jobs wrote, and undoes none of it', async () => {
    const behindGate = join(fleet.dir, 'kubeconfig-gated');
    writeFileSync(behindGate, kubeconfigYaml(gate.url));
    const workerB = await fleet.startWorker({ KUBECONFIG: behindGate });
    await fleet.ok(['deploy', 'shop', ...HELLO, '--wait']);

    // B is frozen and its watches of release storage held while A changes the app.
    gate.close();
    workerB.child.kill('SIGSTOP');
    let workerA: Proc | undefined;
    try {
      workerA = await fleet.startWorker();
      await fleet.ok(['ps:scale', 'shop', 'web=2', '--wait']);
      await fleet.ok(['domains:add', 'shop', 'shop.example.com', '--wait']);
      workerA.kill('SIGTERM');
      await within(workerA.exited, 30_000, 'worker A to stop');
    } finally {
      workerB.child.kill('SIGCONT');
    }
    await until(() => gate.heldBytes() > 0 || undefined, 'watch events of release storage held for worker B');

    const reconciled = fleet.cli(['jobs:enqueue', 'reconcile', '--payload', '{"app":"shop"}', '--wait']);
    await workerB.waitForLine(/waiting for this worker's caches/);
    // Long enough for the reconcile to have gone ahead on the caches it had, were there no fence.
    await holdFor(1_000, 'the reconcile waits on the fence while the watches are held');
    gate.open();
    const result = await reconciled;
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/unchanged/);

    const web = await fleet.apps.readNamespacedDeployment({ name: 'shop-web', namespace: 'default' });
    expect(web.spec?.replicas).toBe(2);
    const ingress = await fleet.networking.readNamespacedIngress({
      name: ingressName('shop', 'shop.example.com'),
      namespace: 'default',
    });
    expect(ingress.spec?.rules?.[0]?.host).toBe('shop.example.com');
  }, 180_000);
});

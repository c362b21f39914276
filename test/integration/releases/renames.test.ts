/**
 * The name scheme change of issue 11 (case 4) as an upgrade sees it: a process type with a `-`
 * used to be Deployment `{app}-{process}` and is now `{app}-{process}-{app length}` with a new
 * instance label. The engine creates the new Deployment (a new object, so its new selector is no
 * immutable-field change) and deletes the old one, but never an object that is live as another
 * release's: under the old names, `cx-y-web` of app cx could be app cx-y's web Deployment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppChartValues, appChart, LABEL_INSTANCE } from '../../../charts/index.ts';
import type { ProgressEvent } from '../../../src/releases/events.ts';
import { RELEASE_LABEL } from '../../../src/releases/index.ts';
import type { ReleaseObject } from '../../../src/storage/types.ts';
import { until } from '../../helpers/wait.ts';
import { type Harness, startHarness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

function values(app: string, namespace: string, processes: string[]): AppChartValues {
  return {
    app,
    namespace,
    image: 'nginx:1.27',
    configDigest: 'd',
    imagePullSecrets: [],
    processes: Object.fromEntries(processes.map((p) => [p, { replicas: 1 }])),
    ports: ['http:80:5000'],
    domains: [],
    tls: null,
    ingressClass: 'nginx',
    cron: [],
    mounts: [],
    labels: {},
    annotations: {},
  };
}

/** The objects the old scheme rendered: Deployment `{app}-{process}`, instance label the same. */
function oldScheme(objects: ReleaseObject[], app: string, process: string): ReleaseObject[] {
  const oldName = `${app}-${process}`;
  return objects.map((o) => {
    if (o.kind !== 'Deployment' || o.metadata.labels?.['app.kubernetes.io/name'] !== process) return o;
    const copy = structuredClone(o) as ReleaseObject & {
      spec: {
        selector: { matchLabels: Record<string, string> };
        template: { metadata: { labels: Record<string, string> } };
      };
    };
    copy.metadata.name = oldName;
    copy.metadata.labels = { ...copy.metadata.labels, [LABEL_INSTANCE]: oldName };
    copy.spec.selector.matchLabels[LABEL_INSTANCE] = oldName;
    copy.spec.template.metadata.labels[LABEL_INSTANCE] = oldName;
    return copy;
  });
}

const upgrade = (app: string, objects: ReleaseObject[], holder: string, events: ProgressEvent[] = []) =>
  h.engine.upgrade({
    app,
    release: app,
    chart: { name: 'app', version: '1.0.0' },
    values: {},
    objects,
    holder,
    wait: { timeoutMs: 60_000 },
    onProgress: (e) => events.push(e),
  });

async function names(namespace: string): Promise<string[]> {
  return (await h.c.apps.listNamespacedDeployment({ namespace })).items.map((d) => d.metadata!.name!).sort();
}

async function namespace(name: string): Promise<void> {
  await h.c.core.createNamespace({ body: { metadata: { name } } });
}

describe('renamed Deployments', () => {
  it('replaces {app}-{process} of a process type with "-" by its new name, and the new one rolls out', async () => {
    await namespace('mig');
    const current = appChart.render(values('cx', 'mig', ['web', 'y-web'])) as ReleaseObject[];
    await upgrade('cx', oldScheme(current, 'cx', 'y-web'), 'job-1');
    expect(await names('mig')).toEqual(['cx-web', 'cx-y-web']);

    const result = await upgrade('cx', current, 'job-2');
    expect(result.outcome).toBe('deployed');
    expect(result.deleted.map((r) => r.name)).toEqual(['cx-y-web']);
    await until(async () => !(await names('mig')).includes('cx-y-web'), 'the old Deployment to go');
    expect(await names('mig')).toEqual(['cx-web', 'cx-y-web-2']);
    const renamed = await h.c.apps.readNamespacedDeployment({ namespace: 'mig', name: 'cx-y-web-2' });
    expect(renamed.spec?.selector.matchLabels?.[LABEL_INSTANCE]).toBe('cx-y-web-2');
    expect(renamed.status?.availableReplicas).toBe(1);
  });

  it("keeps a dropped object that is live as another release's (old names of two apps met)", async () => {
    await namespace('met');
    const cx = appChart.render(values('cx', 'met', ['web', 'y-web'])) as ReleaseObject[];
    await upgrade('cx', oldScheme(cx, 'cx', 'y-web'), 'job-3');
    // App cx-y's web Deployment is cx-y-web too; the old scheme let it replace cx's object.
    await h.c.apps.deleteNamespacedDeployment({ namespace: 'met', name: 'cx-y-web' });
    await until(async () => !(await names('met')).includes('cx-y-web'), 'the Deployment to go');
    await upgrade('cx-y', appChart.render(values('cx-y', 'met', ['web'])) as ReleaseObject[], 'job-4');

    const events: ProgressEvent[] = [];
    const result = await upgrade('cx', cx, 'job-5', events);
    expect(result.outcome).toBe('deployed');
    expect(result.deleted).toEqual([]);
    expect(events.map((e) => e.message)).toContain(
      'keeping apps/v1 Deployment met/cx-y-web: it is live as an object of release cx-y',
    );
    expect(await names('met')).toEqual(['cx-web', 'cx-y-web', 'cx-y-web-2']);
    const kept = await h.c.apps.readNamespacedDeployment({ namespace: 'met', name: 'cx-y-web' });
    expect(kept.metadata?.labels?.[RELEASE_LABEL]).toBe('cx-y');

    // Uninstalling cx leaves cx-y's object alone too.
    await h.engine.uninstall({ release: 'cx', holder: 'job-6' });
    await until(async () => (await names('met')).length === 1, 'cx to be gone');
    expect(await names('met')).toEqual(['cx-y-web']);
  });
});

/**
 * HorizontalPodAutoscaler (autoscaling/v2), PodDisruptionBudget (policy/v1) and IngressClass
 * (networking.k8s.io/v1): served with upstream's discovery names, validated, defaulted, and with
 * status from the simulated HPA and disruption controllers; `helm create`'s chart with
 * autoscaling on installs; the DefaultIngressClass admission plugin defaults an Ingress's class.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

describe('kube-sim HPA, PDB and IngressClass', () => {
  let c: SimClients;
  let cli: KubeCli;
  let hpa: k8s.AutoscalingV2Api;
  let policy: k8s.PolicyV1Api;
  const ns = 'default';

  const deployment = (name: string, replicas: number): k8s.V1Deployment => ({
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
      },
    },
  });

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { podReadyDelayMs: 5 } });
    cli = await kubeCli(c.sim);
    hpa = c.kc.makeApiClient(k8s.AutoscalingV2Api);
    policy = c.kc.makeApiClient(k8s.PolicyV1Api);
  });
  afterAll(() => c.sim.stop());

  it('lists the kinds in discovery as upstream does', async () => {
    const got = await cli.kubectl(['api-resources', '-o', 'wide', '--no-headers']);
    expect(got.code).toBe(0);
    const line = (name: string) =>
      got.stdout
        .split('\n')
        .find((l) => l.startsWith(`${name} `))
        ?.split(/\s+/);
    expect(line('horizontalpodautoscalers')?.slice(0, 5)).toEqual([
      'horizontalpodautoscalers',
      'hpa',
      'autoscaling/v2',
      'true',
      'HorizontalPodAutoscaler',
    ]);
    expect(line('poddisruptionbudgets')?.slice(0, 5)).toEqual([
      'poddisruptionbudgets',
      'pdb',
      'policy/v1',
      'true',
      'PodDisruptionBudget',
    ]);
    expect(line('ingressclasses')?.slice(0, 4)).toEqual([
      'ingressclasses',
      'networking.k8s.io/v1',
      'false',
      'IngressClass',
    ]);
  });

  it("installs helm create's chart with autoscaling on; the HPA reports its target", async () => {
    const created = await cli.helm(['create', `${cli.dir}/demo`]);
    expect(created.code).toBe(0);
    const install = await cli.helm([
      'install',
      'demo',
      `${cli.dir}/demo`,
      '-n',
      ns,
      '--set',
      'autoscaling.enabled=true',
      '--wait',
      '--timeout',
      '60s',
    ]);
    expect(install.stderr).toBe('');
    expect(install.code).toBe(0);
    const status = await until(async () => {
      const h = await hpa.readNamespacedHorizontalPodAutoscaler({ namespace: ns, name: 'demo' });
      return h.status?.conditions?.length === 2 && h.status;
    }, 'the HPA status');
    expect(status.currentReplicas).toBe(1);
    expect(status.desiredReplicas).toBe(1);
    expect(status.conditions?.map((x) => [x.type, x.status, x.reason])).toEqual([
      ['AbleToScale', 'True', 'SucceededGetScale'],
      ['ScalingActive', 'False', 'FailedGetResourceMetric'],
    ]);
    const get = await cli.kubectl([
      'get',
      'hpa',
      'demo',
      '-o',
      'jsonpath={.spec.minReplicas}/{.spec.maxReplicas}',
    ]);
    expect(get.stdout).toBe('1/100');
    const uninstall = await cli.helm(['uninstall', 'demo', '-n', ns, '--wait']);
    expect(uninstall.code).toBe(0);
  });

  it('scales its target into [minReplicas, maxReplicas] and records the rescale', async () => {
    await c.apps.createNamespacedDeployment({ namespace: ns, body: deployment('web', 1) });
    const created = await hpa.createNamespacedHorizontalPodAutoscaler({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          minReplicas: 3,
          maxReplicas: 5,
        },
      },
    });
    // Defaults: no metrics means 80% average CPU.
    expect(created.spec?.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
      },
    ]);
    await until(
      async () =>
        (await c.apps.readNamespacedDeployment({ namespace: ns, name: 'web' })).spec?.replicas === 3,
      'the Deployment scaled to minReplicas',
    );
    const h = await until(async () => {
      const x = await hpa.readNamespacedHorizontalPodAutoscaler({ namespace: ns, name: 'web' });
      return x.status?.lastScaleTime && x.status.currentReplicas === 3 && x;
    }, 'the HPA status after the rescale');
    expect(h.status?.desiredReplicas).toBe(3);
    const events = await c.core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: 'involvedObject.name=web',
    });
    expect(events.items.find((e) => e.reason === 'SuccessfulRescale')?.message).toBe(
      'New size: 3; reason: Current number of replicas below Spec.MinReplicas',
    );
  });

  it('refuses invalid HPAs with upstream messages', async () => {
    const bad = await statusOf(
      hpa.createNamespacedHorizontalPodAutoscaler({
        namespace: ns,
        body: {
          metadata: { name: 'bad' },
          spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, minReplicas: 4, maxReplicas: 2 },
        },
      }),
    );
    expect(bad.code).toBe(422);
    expect(bad.message).toBe(
      'HorizontalPodAutoscaler.autoscaling "bad" is invalid: spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
    );
    // minReplicas defaults to 1 first, so a maxReplicas of 0 breaks both rules (as upstream).
    const noTarget = await statusOf(
      hpa.createNamespacedHorizontalPodAutoscaler({
        namespace: ns,
        body: {
          metadata: { name: 'bad' },
          spec: { scaleTargetRef: { kind: '', name: '' }, maxReplicas: 0 } as never,
        },
      }),
    );
    expect(noTarget.message).toBe(
      'HorizontalPodAutoscaler.autoscaling "bad" is invalid: [spec.scaleTargetRef.kind: Required value, spec.scaleTargetRef.name: Required value, spec.maxReplicas: Invalid value: 0: must be greater than 0, spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`]',
    );
  });

  it('keeps a PDB status from the Pods it selects', async () => {
    await c.apps.createNamespacedDeployment({ namespace: ns, body: deployment('api', 3) });
    await policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: {
        metadata: { name: 'api' },
        spec: { minAvailable: 2, selector: { matchLabels: { app: 'api' } } },
      },
    });
    const status = await until(async () => {
      const p = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: 'api' });
      return p.status?.currentHealthy === 3 && p.status;
    }, 'three healthy Pods');
    expect(status).toMatchObject({
      desiredHealthy: 2,
      expectedPods: 3,
      disruptionsAllowed: 1,
      observedGeneration: 1,
    });
    expect(status.conditions?.map((x) => [x.type, x.status, x.reason])).toEqual([
      ['DisruptionAllowed', 'True', 'SufficientPods'],
    ]);
    // maxUnavailable as a percentage counts the Deployment's scale.
    await policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: {
        metadata: { name: 'api-max' },
        spec: { maxUnavailable: '0%', selector: { matchLabels: { app: 'api' } } },
      },
    });
    const strict = await until(async () => {
      const p = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: 'api-max' });
      return p.status?.currentHealthy === 3 && p.status;
    }, 'the maxUnavailable budget');
    expect(strict).toMatchObject({ desiredHealthy: 3, expectedPods: 3, disruptionsAllowed: 0 });
    expect(strict.conditions?.[0]?.reason).toBe('InsufficientPods');
  });

  it('refuses a PDB with both minAvailable and maxUnavailable', async () => {
    const both = await statusOf(
      policy.createNamespacedPodDisruptionBudget({
        namespace: ns,
        body: { metadata: { name: 'both' }, spec: { minAvailable: 1, maxUnavailable: 1 } },
      }),
    );
    expect(both.code).toBe(422);
    expect(both.message).toContain('minAvailable and maxUnavailable cannot be both set');
    const over = await statusOf(
      policy.createNamespacedPodDisruptionBudget({
        namespace: ns,
        body: { metadata: { name: 'over' }, spec: { minAvailable: '150%' } },
      }),
    );
    expect(over.message).toBe(
      'PodDisruptionBudget.policy "over" is invalid: spec.minAvailable: Invalid value: "150%": must not be greater than 100%',
    );
  });

  it('gives an Ingress without a class the default IngressClass, the newest of several', async () => {
    const ingressClass = (name: string) =>
      c.networking.createIngressClass({
        body: {
          metadata: { name, annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
          spec: { controller: 'k8s.io/ingress-nginx' },
        },
      });
    const ingress = (name: string, spec: k8s.V1IngressSpec = {}) =>
      c.networking.createNamespacedIngress({
        namespace: ns,
        body: {
          metadata: { name },
          spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } }, ...spec },
        },
      });
    const first = await ingressClass('nginx');
    expect((await ingress('a')).spec?.ingressClassName).toBe('nginx');
    expect((await ingress('b', { ingressClassName: 'other' })).spec?.ingressClassName).toBe('other');
    // Creation timestamps have one-second resolution: the second default must be a second newer.
    const firstSecond = Date.parse(String(first.metadata?.creationTimestamp));
    await until(() => Date.now() >= firstSecond + 1000, 'a newer creation second', { timeoutMs: 3000 });
    await ingressClass('traefik');
    expect((await ingress('c')).spec?.ingressClassName).toBe('traefik');
    const invalid = await statusOf(
      c.networking.createIngressClass({ body: { metadata: { name: 'x' }, spec: { controller: 'nginx' } } }),
    );
    expect(invalid.message).toBe(
      'IngressClass.networking.k8s.io "x" is invalid: spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")',
    );
  });
});

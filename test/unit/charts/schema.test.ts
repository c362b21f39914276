import { describe, expect, it } from 'vitest';
import {
  type AppChartValues,
  appChart,
  configChart,
  pullSecretChart,
  type RenderedObject,
  storageChart,
} from '../../../charts/index.ts';
import {
  config,
  fullApp,
  hostPathStorage,
  minimalApp,
  provisionedStorage,
  pullSecret,
  traefikApp,
} from './cases.ts';
import { validateObject } from './kubernetes-schema.ts';
import { longNamesApp } from './long-names.ts';

const appVariants: Record<string, AppChartValues> = {
  full: fullApp,
  minimal: minimalApp,
  traefik: traefikApp,
  'long names': longNamesApp,
  'grpc only, nginx': {
    ...minimalApp,
    ports: ['grpc:50051:50051'],
    domains: ['api.example.com'],
    tls: { issuer: 'ca', issuerKind: 'Issuer' },
  },
  'no web process': { ...fullApp, processes: { worker: fullApp.processes.worker! } },
  'no processes, cron only': { ...fullApp, processes: {} },
  'scaled to zero': { ...minimalApp, processes: { web: { replicas: 0 } } },
};

describe('rendered objects validate against the Kubernetes schemas', () => {
  for (const [name, values] of Object.entries(appVariants)) {
    it(`app chart: ${name}`, () => {
      const objects = appChart.render(values);
      expect(objects.length).toBeGreaterThan(0);
      for (const object of objects) validateObject(object);
    });
  }

  it('config and pull-secret charts', () => {
    for (const object of [...configChart.render(config), ...pullSecretChart.render(pullSecret)]) {
      validateObject(object);
    }
    for (const object of configChart.render({ ...config, env: {} })) validateObject(object);
  });

  it('storage chart', () => {
    const { storageClassName: _, ...defaultClass } = provisionedStorage;
    for (const values of [provisionedStorage, hostPathStorage, defaultClass])
      for (const object of storageChart.render(values)) validateObject(object);
  });

  it('the check itself refuses wrong types and unknown fields', () => {
    const [deployment] = appChart.render(minimalApp).filter((o) => o.kind === 'Deployment');
    const badType = structuredClone(deployment!) as RenderedObject & { spec: { replicas: unknown } };
    badType.spec.replicas = 'three';
    expect(() => validateObject(badType)).toThrow(/replicas/);
    const unknown = structuredClone(deployment!) as RenderedObject & { spec: Record<string, unknown> };
    unknown.spec.replica = 3;
    expect(() => validateObject(unknown)).toThrow(/unknown fields spec\.replica/);
  });
});

import { describe, it } from 'vitest';
import { appChart, configChart, pullSecretChart, storageChart } from '../../../charts/index.ts';
import {
  config,
  fullApp,
  hostPathStorage,
  minimalApp,
  provisionedStorage,
  pullSecret,
  traefikApp,
} from './cases.ts';
import { expectGolden } from './golden.ts';

describe('golden output', () => {
  it('app: two processes, domains with TLS, cron, mounts, pull secret', () => {
    expectGolden('app-full', appChart.render(fullApp));
  });

  it('app: minimal one-process app', () => {
    expectGolden('app-minimal', appChart.render(minimalApp));
  });

  it('app: traefik, wildcard domain, tcp and udp maps', () => {
    expectGolden('app-traefik', appChart.render(traefikApp));
  });

  it('config', () => {
    expectGolden('config', configChart.render(config));
  });

  it('pull-secret', () => {
    expectGolden('pull-secret', pullSecretChart.render(pullSecret));
  });

  it('storage: a claim from a named class', () => {
    expectGolden('storage-provisioned', storageChart.render(provisionedStorage));
  });

  it('storage: a hostPath volume pre-bound to its claim', () => {
    expectGolden('storage-host-path', storageChart.render(hostPathStorage));
  });
});

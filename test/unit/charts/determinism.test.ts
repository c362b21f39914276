import { describe, expect, it } from 'vitest';
import { type AppChartValues, appChart, configChart } from '../../../charts/index.ts';
import { config, fullApp, traefikApp } from './cases.ts';

/** Deterministic shuffle (a seeded LCG), so a failure reproduces. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function shuffledRecord<T>(record: Record<string, T>, seed: number): Record<string, T> {
  return Object.fromEntries(shuffled(Object.entries(record), seed));
}

/** The same app with every order-insensitive list and map given in another order. */
function reordered(values: AppChartValues, seed: number): AppChartValues {
  return {
    ...values,
    processes: shuffledRecord(values.processes, seed),
    ports: shuffled(values.ports, seed + 1),
    domains: shuffled(values.domains, seed + 2),
    cron: shuffled(values.cron, seed + 3),
    mounts: shuffled(values.mounts, seed + 4),
    labels: shuffledRecord(values.labels, seed + 5),
    annotations: shuffledRecord(values.annotations, seed + 6),
  };
}

const render = (values: AppChartValues): string => JSON.stringify(appChart.render(values));

describe('determinism', () => {
  it('renders byte-identical JSON twice', () => {
    expect(render(fullApp)).toBe(render(fullApp));
    expect(JSON.stringify(configChart.render(config))).toBe(JSON.stringify(configChart.render(config)));
  });

  it('does not depend on the order of processes, domains, ports, cron tasks, mounts or labels', () => {
    const rich: AppChartValues = {
      ...fullApp,
      processes: { ...fullApp.processes, clock: { replicas: 1, command: 'bin/clock' }, api: { replicas: 2 } },
      ports: [...fullApp.ports, 'tcp:9000:9000', 'udp:9000:9000', 'https:8443:5000'],
      domains: [...fullApp.domains, '*.shop.example.com', 'a.example.org', 'shop-example.com'],
      labels: { team: 'storefront', tier: 'frontend', 'example.com/cost-center': '42' },
      annotations: { ...fullApp.annotations, 'example.com/a': '1', 'example.com/z': '2' },
    };
    const expected = render(rich);
    for (let seed = 1; seed <= 25; seed++) expect(render(reordered(rich, seed))).toBe(expected);
    expect(render(reordered(traefikApp, 7))).toBe(render(traefikApp));
  });

  it('does not depend on the order of env keys', () => {
    const reversed = { ...config, env: Object.fromEntries(Object.entries(config.env).reverse()) };
    expect(JSON.stringify(configChart.render(reversed))).toBe(JSON.stringify(configChart.render(config)));
  });

  it('keeps imagePullSecrets in the order given, without duplicates', () => {
    const objects = appChart.render({ ...fullApp, imagePullSecrets: ['b-secret', 'a-secret', 'b-secret'] });
    for (const object of objects.filter((o) => o.kind === 'Deployment')) {
      const spec = (object as unknown as { spec: { template: { spec: { imagePullSecrets: unknown } } } })
        .spec;
      expect(spec.template.spec.imagePullSecrets).toEqual([{ name: 'b-secret' }, { name: 'a-secret' }]);
    }
  });
});

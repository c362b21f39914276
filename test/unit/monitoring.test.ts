/**
 * The Grafana dashboard and the Prometheus alert rules in infra/monitoring/ query only metrics the
 * workers and API servers serve, with the labels those metrics have: renaming a metric without
 * updating them fails here, not silently on a dashboard.
 */
import { readFileSync } from 'node:fs';
import type { Queue } from 'bullmq';
import Fastify from 'fastify';
import type { Redis } from 'ioredis';
import { Histogram } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registerApiMetrics } from '../../src/producers/http/metrics.ts';
import { WorkerMetrics } from '../../src/workers/metrics.ts';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

/** Served metric names with their label names (histograms also as _bucket/_sum/_count). */
function servedMetrics(): Map<string, Set<string>> {
  const worker = new WorkerMetrics([{} as Queue], {} as Redis).registry;
  const api = registerApiMetrics(Fastify());
  const served = new Map<string, Set<string>>();
  for (const registry of [worker, api]) {
    for (const metric of registry.getMetricsAsArray()) {
      // Read off the metric objects: get() would scrape, and the queue gauges read Redis.
      const { name, labelNames } = metric as unknown as { name: string; labelNames?: string[] };
      const labels = new Set(labelNames ?? []);
      served.set(name, labels);
      if (metric instanceof Histogram) {
        served.set(`${name}_bucket`, new Set([...labels, 'le']));
        for (const suffix of ['_sum', '_count']) served.set(`${name}${suffix}`, labels);
      }
    }
  }
  return served;
}

/** `metric{label="…"}` selectors of an expression: each metric with the labels it filters on. */
function selectors(expr: string): { metric: string; labels: string[] }[] {
  return [...expr.matchAll(/\b(longshore_[a-z0-9_]+)(\{([^}]*)\})?/g)].map((m) => ({
    metric: m[1]!,
    labels: [...(m[3] ?? '').matchAll(/([a-z_]+)\s*(=~|!=|!~|=)/g)].map((l) => l[1]!),
  }));
}

const alertRules = () =>
  (
    parse(read('infra/monitoring/prometheus-alerts.yml')) as {
      groups: { rules: Record<string, unknown>[] }[];
    }
  ).groups.flatMap((g) => g.rules);
const dashboardExprs = () =>
  (
    JSON.parse(read('infra/monitoring/grafana-dashboard.json')) as {
      panels: { targets: { expr: string }[] }[];
    }
  ).panels.flatMap((p) => p.targets.map((t) => t.expr));

describe('infra/monitoring', () => {
  it('queries only served metrics, filtered by labels they have', async () => {
    const served = servedMetrics();
    const exprs = [...alertRules().map((r) => String(r.expr)), ...dashboardExprs()];
    expect(exprs.length).toBeGreaterThan(10);
    for (const expr of exprs) {
      const found = selectors(expr);
      expect(found.length, expr).toBeGreaterThan(0);
      for (const { metric, labels } of found) {
        expect(served.has(metric), `${metric} in ${expr}`).toBe(true);
        for (const label of labels)
          expect(served.get(metric), `${metric}{${label}} in ${expr}`).toContain(label);
      }
    }
  });

  it('gives every alert a severity, a summary and a duration', () => {
    for (const rule of alertRules()) {
      expect(rule.alert).toMatch(/^Longshore[A-Z]\w+$/);
      expect(rule.for).toMatch(/^\d+[smh]$/);
      expect((rule.labels as { severity: string }).severity).toMatch(/^(warning|critical)$/);
      expect((rule.annotations as { summary: string }).summary).toBeTruthy();
    }
  });
});

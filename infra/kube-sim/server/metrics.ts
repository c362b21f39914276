/**
 * `/metrics` in the Prometheus text format: the two request metrics of kube-apiserver
 * (staging/src/k8s.io/apiserver/pkg/endpoints/metrics/metrics.go), counted from every request the
 * request log records (request-log.ts):
 * - `apiserver_request_total` {code, component, dry_run, group, resource, scope, subresource, verb, version}
 * - `apiserver_request_duration_seconds` histogram {component, dry_run, group, resource, scope,
 *   subresource, verb, version} with upstream's buckets.
 * Label values follow upstream: verbs as the installer names them (GET, LIST, WATCH, POST, PUT,
 * PATCH, APPLY for server-side apply, DELETE, DELETECOLLECTION, CONNECT for exec/attach), scope as
 * CleanScope (resource for a named object or a create, namespace, cluster), dry_run `All` or empty,
 * non-resource paths (discovery, /version) with the path as subresource and empty scope. The
 * counters are cumulative for the life of the process: resetting the request log does not reset them.
 */
import type { RequestRecord } from './request-log.ts';

/** requestLatencies' buckets in 1.33. */
const BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

interface Series {
  labels: string;
  count: number;
  sum: number;
  buckets: number[];
}

function reportedVerb(record: RequestRecord): string {
  if (record.subresource === 'exec' || record.subresource === 'attach') return 'CONNECT';
  switch (record.verb) {
    case 'create':
      return 'POST';
    case 'update':
      return 'PUT';
    case 'patch':
      return record.contentType?.startsWith('application/apply-patch') ? 'APPLY' : 'PATCH';
    case 'other':
      return record.method.toUpperCase();
    default:
      return record.verb.toUpperCase();
  }
}

/** `/api/v1/…` → v1; `/apis/apps/v1/…` → apps, v1. */
function groupVersionOf(path: string): { group: string; version: string } {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'api') return { group: '', version: parts[1] ?? '' };
  if (parts[0] === 'apis') return { group: parts[1] ?? '', version: parts[2] ?? '' };
  return { group: '', version: '' };
}

function scopeOf(record: RequestRecord): string {
  if (!record.resource) return '';
  if (record.name || record.verb === 'create') return 'resource';
  if (record.namespace) return 'namespace';
  return 'cluster';
}

/** Prometheus label value escaping: backslash, double quote and newline. */
const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const render = (labels: [string, string][]) => labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',');

export class ApiMetrics {
  private readonly totals = new Map<string, number>();
  private readonly durations = new Map<string, Series>();

  observe(record: RequestRecord): void {
    const { group, version } = record.resource ? groupVersionOf(record.path) : { group: '', version: '' };
    const base: [string, string][] = [
      ['component', 'apiserver'],
      ['dry_run', record.dryRun ? 'All' : ''],
      ['group', group],
      ['resource', record.resource ? record.resource.slice(record.resource.indexOf('/') + 1) : ''],
      ['scope', scopeOf(record)],
      ['subresource', record.resource ? (record.subresource ?? '') : record.path],
      ['verb', reportedVerb(record)],
      ['version', version],
    ];
    const total = render([['code', String(record.status)], ...base]);
    this.totals.set(total, (this.totals.get(total) ?? 0) + 1);
    const key = render(base);
    let series = this.durations.get(key);
    if (!series) {
      series = { labels: key, count: 0, sum: 0, buckets: BUCKETS.map(() => 0) };
      this.durations.set(key, series);
    }
    const seconds = record.durationMs / 1000;
    series.count++;
    series.sum += seconds;
    BUCKETS.forEach((le, i) => {
      if (seconds <= le) series.buckets[i]!++;
    });
  }

  /** The exposition text (format 0.0.4), series sorted for stable output. */
  text(): string {
    const lines = [
      '# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      '# TYPE apiserver_request_total counter',
    ];
    for (const [labels, n] of [...this.totals].sort(([a], [b]) => a.localeCompare(b)))
      lines.push(`apiserver_request_total{${labels}} ${n}`);
    lines.push(
      '# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      '# TYPE apiserver_request_duration_seconds histogram',
    );
    for (const s of [...this.durations.values()].sort((a, b) => a.labels.localeCompare(b.labels))) {
      BUCKETS.forEach((le, i) => {
        lines.push(`apiserver_request_duration_seconds_bucket{${s.labels},le="${le}"} ${s.buckets[i]}`);
      });
      lines.push(`apiserver_request_duration_seconds_bucket{${s.labels},le="+Inf"} ${s.count}`);
      lines.push(`apiserver_request_duration_seconds_sum{${s.labels}} ${s.sum}`);
      lines.push(`apiserver_request_duration_seconds_count{${s.labels}} ${s.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

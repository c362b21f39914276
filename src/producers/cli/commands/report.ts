/**
 * `apps:report APP`: everything the fleet knows of an app. The cluster's part (saved spec, deployed
 * revision) comes from a `report` read job; Redis's part (status projection, last jobs) is read here.
 */
import type { Command } from 'commander';
import type { AppSpec } from '../../../apps/spec.ts';
import { laneId } from '../../../jobs/lane.ts';
import { readLaneStatus } from '../../../jobs/status.ts';
import { type JobSummary, listJobs } from '../../ops/jobs-ops.ts';
import { columns, formatTime, keyValues } from '../output.ts';
import { action, type CommonOptions, type ResultView, submit } from '../runtime.ts';
import { type Style, stdoutStyle } from '../style.ts';

const LAST_JOBS = 5;

interface Revision {
  revision: number;
  status: string;
  change: string;
  at: string;
}

interface Report {
  known: boolean;
  spec?: AppSpec;
  unreadableSpec?: string;
  deployed?: Revision;
  last?: Revision;
  status?: Awaited<ReturnType<typeof readLaneStatus>>;
  jobs: JobSummary[];
}

export function registerReport(program: Command): void {
  program
    .command('apps:report')
    .description(
      'Everything the fleet knows of an app: spec, formation, domains, ports, properties, resources, revision, image, last jobs',
    )
    .argument('<app>', 'app name')
    .option('--timeout <seconds>', 'stop waiting after this many seconds')
    .option('--json', 'print JSON')
    .action(
      action(async (app: string, options: CommonOptions) =>
        submit('report', { app }, { ...options, wait: true }, undefined, reportView(app)),
      ),
    );
}

function reportView(app: string): ResultView {
  return {
    async enrich(result, client, redis) {
      const status = await readLaneStatus(redis, laneId({ kind: 'app', name: app }));
      const jobs = await listJobs(client, { app, limit: LAST_JOBS + 1 });
      // The report job itself is the newest: leave it out.
      const others = jobs.filter((j) => j.type !== 'report').slice(0, LAST_JOBS);
      return { ...(result as object), ...(status ? { status } : {}), jobs: others };
    },
    print(result, output) {
      for (const line of reportLines(app, result as Report, stdoutStyle())) output.out(line);
    },
  };
}

/** The report as a key/value block (keys bold on a terminal), then the last jobs as a table. */
export function reportLines(app: string, r: Report, style: Style, now: number = Date.now()): string[] {
  const rows: [string, string][] = [];
  const row = (key: string, value: string): [string, string] => [
    key.startsWith(' ') || key === '' ? key : style.bold(key),
    value,
  ];
  if (r.unreadableSpec) rows.push(row('spec', `unreadable: ${r.unreadableSpec}`));
  else if (!r.spec) rows.push(row('spec', 'none saved (no job of this app has succeeded in this cluster)'));
  const s = r.spec;
  if (s) {
    rows.push(row('image', s.image ?? '-'));
    if (s.source) rows.push(row('source', `${s.source.sha} ${s.source.ref} by ${s.source.pusher}`));
    const formation = Object.entries(s.processes)
      .map(([type, p]) => `${type}=${p.replicas}`)
      .join(' ');
    rows.push(row('formation', formation || '-'));
    if (s.stoppedFormation)
      rows.push(
        row(
          'stopped',
          `ps:start brings back ${Object.entries(s.stoppedFormation)
            .map(([t, n]) => `${t}=${n}`)
            .join(' ')}`,
        ),
      );
    for (const [type, p] of Object.entries(s.processes)) {
      const res = p.resources ?? {};
      const parts = [
        res.cpu || res.memory ? `requests cpu=${res.cpu ?? 'default'} memory=${res.memory ?? 'default'}` : '',
        res.cpuLimit || res.memoryLimit
          ? `limits cpu=${res.cpuLimit ?? '-'} memory=${res.memoryLimit ?? '-'}`
          : '',
        p.restartedAt ? `restarted ${formatTime(p.restartedAt, now)}` : '',
        p.maxParallel !== undefined ? `max_parallel ${p.maxParallel}` : '',
        p.profile ? `profile ${p.profile}` : '',
      ].filter(Boolean);
      if (parts.length > 0) rows.push(row(`  ${type}`, parts.join('; ')));
    }
    for (const field of ['labels', 'annotations'] as const) {
      const entries = s.metadata?.[field] ?? [];
      if (entries.length === 0) continue;
      rows.push(
        row(
          field,
          entries
            .map(
              (e) =>
                `${e.key}=${e.value}${e.processType ? ` (${e.processType}` : ''}${e.resourceType ? `${e.processType ? ', ' : ' ('}${e.resourceType}` : ''}${e.processType || e.resourceType ? ')' : ''}`,
            )
            .join(' '),
        ),
      );
    }
    // The release task and postdeploy (docs/apps.md, "The release phase", "Postdeploy").
    rows.push(
      row(
        'release task',
        s.release
          ? `${s.release.command} (${s.release.source === 'procfile' ? 'Procfile release' : 'app.json scripts.dokku.predeploy'})`
          : '- (no Procfile release, no app.json scripts.dokku.predeploy)',
      ),
    );
    if (s.postdeploy)
      rows.push(row('postdeploy', `${s.postdeploy.command} (app.json scripts.dokku.postdeploy)`));
    const auth: Record<string, string[] | undefined> = s.autoscalingAuth ?? {};
    if (Object.keys(auth).length > 0)
      rows.push(
        row(
          'trigger auth',
          Object.keys(auth)
            .sort()
            .map((t) => `${t} (${(auth[t] ?? []).join(', ')})`)
            .join(' '),
        ),
      );
    rows.push(row('domains', s.domains.join(' ') || '-'));
    rows.push(row('ports', s.ports.join(' ') || '- (default http:80:5000 for web)'));
    rows.push(
      row(
        'properties',
        Object.entries(s.properties)
          .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
          .join(' ') || '-',
      ),
    );
    if (s.cron.length > 0) rows.push(row('cron', s.cron.map((t) => `${t.schedule} ${t.command}`).join('; ')));
    if (s.mounts.length > 0)
      rows.push(
        row('mounts', s.mounts.map((m) => `${m.entry}:${m.mountPath}${m.readOnly ? ':ro' : ''}`).join(' ')),
      );
    if (s.registry) rows.push(row('registry', `${s.registry.username}@${s.registry.server}`));
  }
  rows.push(
    row(
      'revision',
      r.deployed ? `${r.deployed.revision} ${style.green('deployed')} (${r.deployed.change})` : '-',
    ),
  );
  if (r.last)
    rows.push(row('', `revision ${r.last.revision} ${style.status(r.last.status)}: ${r.last.change}`));
  if (r.status?.activeJobId) rows.push(row('running', style.yellow(r.status.activeJobId)));
  rows.push(row('last jobs', r.jobs.length === 0 ? '-' : ''));
  const jobs = columns(
    r.jobs.map((j) => [
      j.id,
      style.status(j.state),
      formatTime(j.finishedAt ?? j.enqueuedAt, now),
      j.description,
    ]),
  ).map((l) => `  ${l}`);
  return [style.bold(`=====> ${app}`), ...keyValues(rows), ...jobs];
}

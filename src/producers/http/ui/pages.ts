/** The dashboard's pages as HTML (pure: data in, text out). Every value is escaped; no script but the job page's event stream. */
import type { LaneStatus } from '../../../jobs/status.ts';
import type { JobDetails } from '../../ops/jobs-ops.ts';

export const html = (text: unknown) =>
  String(text ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:72rem;margin:1.5rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}
.failed{color:#b00020;font-weight:600}.completed{color:#1b5e20}.superseded{color:#666}nav a{margin-right:1rem}
pre{background:#f4f4f4;padding:.6rem;overflow:auto;max-height:30rem}button{font:inherit;padding:.3rem .8rem}.error{color:#b00020}`;

function page(title: string, body: string, who?: { name: string; csrf: string }): string {
  const nav = who
    ? `<nav><a href="/ui">Apps</a><a href="/ui/queues/">Queue (Bull Board)</a><a href="/api/v1/docs">API</a>
<form method="post" action="/ui/logout" style="display:inline"><input type="hidden" name="csrf" value="${html(who.csrf)}"><button>Log out ${html(who.name)}</button></form></nav>`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${html(title)} · longshore</title><style>${STYLE}</style></head>
<body>${nav}<h1>${html(title)}</h1>${body}</body></html>`;
}

export function loginPage(error?: string): string {
  return page(
    'Log in',
    `${error ? `<p class="error">${html(error)}</p>` : ''}<form method="post" action="/ui/login">
<label>API token <input type="password" name="token" autocomplete="off" size="60" autofocus></label> <button>Log in</button></form>
<p>A token from <code>longshore api-token:create NAME --scope read|write</code>.</p>`,
  );
}

const time = (ms: number | undefined) => (ms ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : '');
const jobLink = (id: string | undefined, text?: string) =>
  id ? `<a href="/ui/jobs/${encodeURIComponent(id)}">${html(text ?? id)}</a>` : '';

export function appsPage(apps: LaneStatus[], who: { name: string; csrf: string }): string {
  const rows = apps.map(
    (
      a,
    ) => `<tr><td>${html(a.name ?? a.lane)}</td><td>${a.revision ?? ''}</td><td><code>${html(a.image ?? '')}</code></td>
<td>${jobLink(a.lastJobId, `${a.lastType ?? ''} ${a.lastJobId ?? ''}`)}</td><td class="${html(a.lastOutcome ?? '')}">${html(a.lastOutcome ?? '')}</td>
<td>${html(a.lastError ?? '')}</td><td>${a.pending}</td><td>${jobLink(a.activeJobId)}</td><td>${html(time(a.updatedAt))}</td></tr>`,
  );
  return page(
    'Apps',
    apps.length === 0
      ? '<p>No apps yet.</p>'
      : `<table><thead><tr><th>App</th><th>Revision</th><th>Image</th><th>Last job</th><th>Outcome</th><th>Error</th><th>Pending</th><th>Running</th><th>Updated</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`,
    who,
  );
}

export function jobPage(
  job: JobDetails,
  who: { name: string; csrf: string; canWrite: boolean },
  notice?: string,
): string {
  const retry =
    job.state === 'failed' && who.canWrite
      ? `<form method="post" action="/ui/jobs/${encodeURIComponent(job.id)}/retry"><input type="hidden" name="csrf" value="${html(who.csrf)}"><button>Retry</button></form>`
      : '';
  const live =
    job.state === 'completed' || job.state === 'failed'
      ? ''
      : `<p>Following the job: this page reloads when it ends.</p>
<script>const s=new EventSource(${JSON.stringify(`/ui/jobs/${encodeURIComponent(job.id)}/events`)});s.addEventListener('outcome',()=>{s.close();location.reload()});</script>`;
  return page(
    `Job ${job.id}`,
    `${notice ? `<p class="error">${html(notice)}</p>` : ''}<table>
<tr><th>Type</th><td>${html(job.type)}</td></tr><tr><th>State</th><td class="${html(job.state)}">${html(job.state)}</td></tr>
<tr><th>Lane</th><td>${html(job.lane ?? '')}</td></tr><tr><th>Enqueued by</th><td>${html(job.enqueuedBy ?? '')}</td></tr>
<tr><th>Reason</th><td>${html(job.failedReason ?? '')}</td></tr></table>${retry}${live}
<h2>Stream</h2><pre>${html(job.logs.join('\n'))}</pre>`,
    who,
  );
}

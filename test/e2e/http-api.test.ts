/**
 * The HTTP API (docs/http-api.md) as a client meets it: a real `longshore serve` process, real
 * HTTP on loopback (fetch), the fleet's worker and kube-sim behind it. Bearer tokens by scope,
 * JSON errors a client acts on, bodies validated by the job contracts, secret values sealed before
 * Redis, a job's events as server-sent events, the rate limit counted in Redis.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/private-redis.ts';
import { JobClient } from '../../src/jobs/client.ts';
import { BODY_LIMIT_BYTES } from '../../src/producers/http/server.ts';
import { newToken } from '../../src/producers/http/tokens.ts';
import { signBody } from '../../src/producers/http/webhooks.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { CLI, type Proc, startProcess } from '../helpers/processes.ts';

let fleet: DeployFleet;
let serve: Proc;
let base: string;
let redis: Redis;
let jobs: JobClient;
const writer = newToken('ci', 'write');
const reader = newToken('dashboard', 'read');
const limitedReader = newToken('poller', 'read');
const otherReader = newToken('cron', 'read');
const WEBHOOK_SECRET = 'webhook-secret-0123456789';

async function startServe(extraEnv: Record<string, string> = {}): Promise<{ proc: Proc; url: string }> {
  const port = await freePort();
  const proc = startProcess(CLI, ['serve', '--port', String(port)], {
    ...fleet.env,
    LONGSHORE_API_TOKENS: `${writer.entry},${reader.entry},${limitedReader.entry},${otherReader.entry}`,
    LONGSHORE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    LONGSHORE_WEBHOOKS: JSON.stringify([
      { repository: 'team/shop', branch: 'main', app: 'shop', image: 'registry.example.com/{app}:{sha}' },
    ]),
    ...extraEnv,
  });
  await proc.waitForLine(/longshore API listening on/, 30_000);
  return { proc, url: `http://127.0.0.1:${port}` };
}

async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: string; url?: string } = {},
): Promise<{ status: number; headers: Headers; json: ReturnType<typeof JSON.parse> }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined || options.raw !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${options.url ?? base}${path}`, {
    method,
    headers,
    ...(options.raw !== undefined
      ? { body: options.raw }
      : options.body !== undefined
        ? { body: JSON.stringify(options.body) }
        : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
}

/**
 * A POST over a plain socket: its head, then `body` (which may be less than the head announces),
 * then its answer, whole. A body over the limit is answered before the server has read it, and the
 * connection closed (fastify sets `connection: close` on a body error): fetch loses such an answer
 * to the EPIPE of its own unfinished upload, so these requests send no more than the server reads.
 */
async function rawPost(
  path: string,
  head: Record<string, string>,
  body = '',
): Promise<{ status: number; json: ReturnType<typeof JSON.parse> }> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  const lines = [
    `POST ${path} HTTP/1.1`,
    `host: ${url.host}`,
    ...Object.entries(head).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  // Bounded: a socket silent for 10 s is destroyed with an error.
  socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to POST ${path} within 10 s`)));
  const text = await new Promise<string>((resolve, reject) => {
    let data = '';
    socket
      .setEncoding('utf8')
      .on('data', (chunk: string) => {
        data += chunk;
      })
      .on('error', reject)
      .on('close', () => resolve(data));
  });
  const end = text.indexOf('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]),
    json: JSON.parse(text.slice(end + 4)),
  };
}

/** Everything in the private Redis's data directory (its append-only files), as text. */
function aofText(dir = fleet.redis.dir): string {
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .map((path) => (statSync(path).isDirectory() ? aofText(path) : readFileSync(path, 'latin1')))
    .join('\n');
}

/** A GET's whole answer as text (a stream is read until it ends). */
async function fetchText(path: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(`${base}${path}`, { headers, redirect: 'manual' });
  expect(response.status, path).toBe(200);
  return response.text();
}

/** The job's server-sent events until the stream ends: [event, data] pairs. */
async function events(id: string): Promise<[string, ReturnType<typeof JSON.parse>][]> {
  const response = await fetch(`${base}/api/v1/jobs/${id}/events`, {
    headers: { authorization: `Bearer ${reader.token}` },
  });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
      return [event, JSON.parse(data)];
    });
}

/** Every job the queue holds, in any state, across its shards: "nothing enqueued" is this unchanged. */
async function jobCount(): Promise<number> {
  const counts = await Promise.all(jobs.queues.map((queue) => queue.getJobCounts()));
  return counts.flatMap((c) => Object.values(c)).reduce((a, b) => a + b, 0);
}

beforeAll(async () => {
  fleet = await startDeployFleet();
  // Debug logs, so "no secret in a log line" covers everything either process can log.
  await fleet.startWorker({ LONGSHORE_LOG_LEVEL: 'debug' });
  redis = fleet.redis.connect();
  jobs = new JobClient(redis, { attempts: 1, backoffMs: 50 });
  const started = await startServe({ LONGSHORE_LOG_LEVEL: 'debug' });
  serve = started.proc;
  base = started.url;
});

afterAll(async () => {
  await jobs?.close();
  redis?.disconnect();
  serve?.kill('SIGTERM');
  await fleet?.stop();
});

describe('the HTTP API', () => {
  it('answers health without a token, and 401 or 403 by token and scope', async () => {
    expect(await call('GET', '/api/v1/health')).toMatchObject({ status: 200, json: { status: 'ok' } });
    const none = await call('GET', '/api/v1/apps');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="longshore"');
    expect(none.json).toEqual({ error: 'unauthorized', message: 'send Authorization: Bearer TOKEN' });
    expect((await call('GET', '/api/v1/apps', { token: 'lst_not-a-real-token' })).json).toMatchObject({
      error: 'unauthorized',
      message: 'the bearer token is not valid',
    });
    expect(await call('GET', '/api/v1/apps', { token: reader.token })).toMatchObject({
      status: 200,
      json: { apps: [] },
    });
    const readOnly = await call('POST', '/api/v1/apps/shop/deploys', {
      token: reader.token,
      body: { image: 'nginx:1.27' },
    });
    expect(readOnly.status).toBe(403);
    expect(readOnly.json.message).toBe('the token "dashboard" has the read scope; this needs write');
  });

  it('refuses a job POST without a valid write token, and enqueues nothing', async () => {
    const before = await jobCount();
    const deploy = { image: 'nginx:1.27' };
    const config = { set: { API_KEY: 'not-stored-anywhere' } };
    for (const [segment, body] of [
      ['deploys', deploy],
      ['config', config],
    ] as const) {
      const path = `/api/v1/apps/shop/${segment}`;
      expect(await call('POST', path, { body })).toMatchObject({
        status: 401,
        json: { error: 'unauthorized', message: 'send Authorization: Bearer TOKEN' },
      });
      expect(await call('POST', path, { body, token: 'lst_not-a-real-token' })).toMatchObject({
        status: 401,
        json: { error: 'unauthorized', message: 'the bearer token is not valid' },
      });
      expect(await call('POST', path, { body, token: reader.token })).toMatchObject({
        status: 403,
        json: { error: 'forbidden' },
      });
    }
    expect(await jobCount()).toBe(before);
  });

  it('refuses a body over the limit with 413 before reading it, and enqueues nothing', async () => {
    const before = await jobCount();
    const head = { authorization: `Bearer ${writer.token}`, 'content-type': 'application/json' };
    // Refused from its Content-Length, before a byte of it is read.
    const tooLarge = await rawPost('/api/v1/apps/shop/deploys', {
      ...head,
      'content-length': String(BODY_LIMIT_BYTES + 1),
    });
    expect(tooLarge).toEqual({
      status: 413,
      json: {
        error: 'payload_too_large',
        message: `the request body is over ${BODY_LIMIT_BYTES} bytes, the API's limit; nothing was enqueued`,
      },
    });
    // Without a Content-Length (chunked), refused once more than the limit has arrived.
    const chunk = `{"image":"nginx:1.27","labels":{"x":"${'a'.repeat(BODY_LIMIT_BYTES)}`;
    const streamed = await rawPost(
      '/api/v1/apps/shop/deploys',
      { ...head, 'transfer-encoding': 'chunked' },
      `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}`,
    );
    expect(streamed).toMatchObject({ status: 413, json: { error: 'payload_too_large' } });
    // Just under the limit, the body is read, and refused by the job payload's own limit.
    const payloadLimit = await call('POST', '/api/v1/apps/shop/deploys', {
      token: writer.token,
      body: { image: 'nginx:1.27', labels: { x: 'a'.repeat(BODY_LIMIT_BYTES - 100) } },
    });
    expect(payloadLimit.status).toBe(400);
    expect(payloadLimit.json.issues[0].path).toBe('payload');
    expect(await jobCount()).toBe(before);
  });

  it('deploys, and streams the job as server-sent events with the outcome last', async () => {
    const posted = await call('POST', '/api/v1/apps/shop/deploys', {
      token: writer.token,
      body: { image: 'nginx:1.27', processes: { web: { command: 'nginx -g "daemon off;"' } } },
    });
    expect(posted.status).toBe(202);
    const id = posted.json.job.id as string;
    expect(posted.json).toMatchObject({
      job: { type: 'deploy', lane: 'app.shop' },
      links: { events: `/api/v1/jobs/${id}/events` },
    });
    const stream = await events(id);
    expect(stream.at(-1)).toEqual([
      'outcome',
      expect.objectContaining({ kind: 'outcome', state: 'completed' }),
    ]);
    expect(stream.map(([e]) => e)).toContain('step');
    const web = await fleet.apps.readNamespacedDeployment({ name: 'shop-web', namespace: 'default' });
    expect(web.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.27');
    const job = await call('GET', `/api/v1/jobs/${id}`, { token: reader.token });
    expect(job.json).toMatchObject({ id, state: 'completed', enqueuedBy: 'http:ci' });
    const app = await call('GET', '/api/v1/apps/shop', { token: reader.token });
    expect(app.json).toMatchObject({ name: 'shop', lastOutcome: 'completed', image: 'nginx:1.27' });
  });

  it('seals config values before they reach Redis', async () => {
    const secret = 'hunter2-plaintext-value';
    const posted = await call('POST', '/api/v1/apps/shop/config', {
      token: writer.token,
      body: { set: { API_KEY: secret } },
    });
    expect(posted.status).toBe(202);
    expect((await events(posted.json.job.id)).at(-1)?.[1]).toMatchObject({ state: 'completed' });
    // Every write Redis took is in its append-only file (the private Redis runs with AOF).
    expect(aofText()).not.toContain(secret);
    expect(aofText()).toContain('API_KEY');
    const configSecret = await fleet.core.readNamespacedSecret({ name: 'config-shop', namespace: 'default' });
    expect(Buffer.from(configSecret.data!.API_KEY!, 'base64').toString()).toBe(secret);
  });

  it('shows no secret value in an API answer, a job stream, the dashboard or a log line', async () => {
    const configValue = 'Zq7-config-leak-probe-value';
    const envValue = 'Zq7-env-leak-probe-value';
    const config = await call('POST', '/api/v1/apps/shop/config', {
      token: writer.token,
      body: { set: { LEAK_PROBE: configValue } },
    });
    const deploy = await call('POST', '/api/v1/apps/shop/deploys', {
      token: writer.token,
      body: { image: 'nginx:1.27', env: { ENV_PROBE: envValue } },
    });
    const ids = [config.json.job.id as string, deploy.json.job.id as string];
    const api = { authorization: `Bearer ${reader.token}` };
    const seen: string[] = [];
    for (const id of ids) {
      const stream = await fetchText(`/api/v1/jobs/${id}/events`, api); // ends with the job
      expect(stream).toMatch(/event: outcome\ndata: \{[^\n]*"state":"completed"/);
      seen.push(stream, await fetchText(`/api/v1/jobs/${id}`, api));
    }
    // Both values did reach the app: what is scanned below had them to leak.
    const stored = await fleet.core.readNamespacedSecret({ name: 'config-shop', namespace: 'default' });
    expect(Buffer.from(stored.data!.LEAK_PROBE!, 'base64').toString()).toBe(configValue);
    expect(Buffer.from(stored.data!.ENV_PROBE!, 'base64').toString()).toBe(envValue);
    seen.push(
      await fetchText('/api/v1/apps/shop', api),
      await fetchText('/api/v1/apps?all=true', api),
      await fetchText('/api/v1/apps/shop/releases', api),
      await fetchText('/api/v1/jobs?app=shop', api),
    );

    const login = await fetch(`${base}/ui/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: new URLSearchParams({ token: reader.token }),
    });
    expect(login.status).toBe(303);
    const ui = { cookie: login.headers.get('set-cookie')!.split(';')[0]! };
    const apps = await fetchText('/ui', ui);
    expect(apps).toContain(`/ui/jobs/${ids[1]}`);
    seen.push(apps);
    for (const id of ids) {
      seen.push(
        await fetchText(`/ui/jobs/${id}`, ui),
        await fetchText(`/ui/jobs/${id}/events`, ui),
        await fetchText(`/ui/queues/api/queues/jobs/${id}`, ui),
        await fetchText(`/ui/queues/api/queues/jobs/${id}/logs`, ui),
      );
    }
    const board = await fetchText('/ui/queues/api/queues?activeQueue=jobs&status=completed', ui);
    expect(board).toContain(ids[0]);
    seen.push(board);

    const logs = [serve, ...fleet.workers].map((p) => p.output()).join('\n');
    expect(logs).toContain(ids[0]); // the worker logged the job: the capture works
    // The variables' names are shown (job payloads, streams): their values would be beside them.
    expect(seen.join('\n')).toContain('LEAK_PROBE');
    expect(seen.join('\n')).toContain('ENV_PROBE');
    for (const text of [...seen, logs]) {
      expect(text).not.toContain(configValue);
      expect(text).not.toContain(envValue);
    }
  });

  it('refuses bad input with the fields and messages, before anything is enqueued', async () => {
    const before = await jobCount();
    const bad = await call('POST', '/api/v1/apps/shop/scale', {
      token: writer.token,
      body: { processes: { web: -1 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('invalid_input');
    expect(bad.json.issues[0].path).toMatch(/^processes\.web/);
    const mismatch = await call('POST', '/api/v1/apps/shop/scale', {
      token: writer.token,
      body: { app: 'other', processes: { web: 1 } },
    });
    expect(mismatch.json.issues).toEqual([
      { path: 'app', message: 'names "other", but the path names "shop"' },
    ]);
    const badName = await call('POST', '/api/v1/apps/Shop!/scale', {
      token: writer.token,
      body: { processes: { web: 1 } },
    });
    expect(badName.status).toBe(400);
    const unknown = await call('POST', '/api/v1/apps/shop/teleport', { token: writer.token, body: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toMatch(/^no job endpoint teleport \(app jobs: deploys, config/);
    const notJson = await call('POST', '/api/v1/apps/shop/scale', {
      token: writer.token,
      raw: '{"processes":',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error).toBe('bad_request');
    const secretNotString = await call('POST', '/api/v1/apps/shop/config', {
      token: writer.token,
      body: { set: { A: 1 } },
    });
    expect(secretNotString.json.issues).toEqual([{ path: 'set.A', message: 'must be a string' }]);
    // The issues of the CLI's rules, under the names the CLI reports them (KEY, --resource-type).
    const badLabel = await call('POST', '/api/v1/apps/shop/metadata', {
      token: writer.token,
      body: { kind: 'label', action: 'set', key: 'not a key', value: 'x', resourceType: 'pod' },
    });
    expect(badLabel.status).toBe(400);
    expect(badLabel.json.issues.map((i: { path: string }) => i.path)).toEqual(['KEY']);
    expect((await call('GET', '/api/v1/jobs/nope.1', { token: reader.token })).status).toBe(404);
    expect((await call('GET', '/api/v1/apps/ghost', { token: reader.token })).status).toBe(404);
    expect(await jobCount()).toBe(before);
  });

  it('runs a dry run of an app job when asked, writing nothing', async () => {
    const posted = await call('POST', '/api/v1/apps/shop/scale?dry_run=true', {
      token: writer.token,
      body: { processes: { web: 3 } },
    });
    expect(posted.status).toBe(202);
    expect(posted.json.job.type).toBe('dry-run');
    expect((await events(posted.json.job.id)).at(-1)?.[1]).toMatchObject({ state: 'completed' });
    const web = await fleet.apps.readNamespacedDeployment({ name: 'shop-web', namespace: 'default' });
    expect(web.spec?.replicas).toBe(1);
    const refused = await call('POST', '/api/v1/apps/shop/rename?dry_run=true', {
      token: writer.token,
      body: { newName: 'shop2' },
    });
    expect(refused.json.issues).toEqual([{ path: 'dry_run', message: 'rename jobs have no dry run' }]);
  });

  it('limits requests per token, counted in Redis across servers', async () => {
    const one = await startServe({ LONGSHORE_API_RATE_LIMIT: '3' });
    const two = await startServe({ LONGSHORE_API_RATE_LIMIT: '3' });
    try {
      const get = async (url: string) => call('GET', '/api/v1/apps', { token: limitedReader.token, url });
      const statuses = [await get(one.url), await get(two.url), await get(one.url), await get(two.url)].map(
        (r) => r.status,
      );
      expect(statuses).toEqual([200, 200, 200, 429]);
      const over = await get(one.url);
      expect(over.json.error).toBe('rate_limited');
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
      // Another token has its own count.
      expect((await call('GET', '/api/v1/apps', { token: otherReader.token, url: one.url })).status).toBe(
        200,
      );
    } finally {
      one.proc.kill('SIGTERM');
      two.proc.kill('SIGTERM');
    }
  });
});

describe('the read routes', () => {
  it("answers an app's releases through the releases job, as the CLI's releases --json", async () => {
    const posted = await call('POST', '/api/v1/apps/shop/deploys', {
      token: writer.token,
      body: { image: 'nginx:1.27.1' },
    });
    expect((await events(posted.json.job.id)).at(-1)?.[1]).toMatchObject({ state: 'completed' });
    const answer = await call('GET', '/api/v1/apps/shop/releases', { token: reader.token });
    expect(answer.status).toBe(200);
    expect(answer.json.releases[0]).toMatchObject({ image: 'nginx:1.27.1', job: posted.json.job.id });
    // The same history the CLI's read job gives (less its enqueuer column, `by`).
    const cli = JSON.parse(await fleet.ok(['releases', 'shop', '--json'])) as {
      result: { releases: Record<string, unknown>[] };
    };
    expect(answer.json.releases).toEqual(cli.result.releases.map(({ by: _by, ...entry }) => entry));
    const job = await call('GET', `/api/v1/jobs/${answer.json.job}`, { token: reader.token });
    expect(job.json).toMatchObject({ type: 'releases', state: 'completed', enqueuedBy: 'http:dashboard' });
  });

  it('refuses releases of an unknown app or with a bad timeout, enqueuing nothing, and answers 504 when the job is late', async () => {
    const before = await jobCount();
    expect(await call('GET', '/api/v1/apps/ghost/releases', { token: reader.token })).toMatchObject({
      status: 404,
      json: { error: 'not_found', message: 'no app ghost known to the fleet' },
    });
    expect((await call('GET', '/api/v1/apps/Shop!/releases', { token: reader.token })).json.issues).toEqual([
      expect.objectContaining({ path: 'app' }),
    ]);
    for (const timeout of ['0', '121', 'soon']) {
      const bad = await call('GET', `/api/v1/apps/shop/releases?timeout=${timeout}`, { token: reader.token });
      expect(bad.status).toBe(400);
      expect(bad.json.issues.map((i: { path: string }) => i.path)).toEqual(['timeout']);
    }
    expect((await call('GET', '/api/v1/apps/shop/releases')).status).toBe(401);
    expect(await jobCount()).toBe(before);

    // Known to the fleet (a job of it ran, and failed) but not in the cluster: the releases job fails.
    const scale = await call('POST', '/api/v1/apps/never-deployed/scale', {
      token: writer.token,
      body: { processes: { web: 1 } },
    });
    expect((await events(scale.json.job.id)).at(-1)?.[1]).toMatchObject({ state: 'failed' });
    const failed = await call('GET', '/api/v1/apps/never-deployed/releases', { token: reader.token });
    expect(failed.status).toBe(502);
    expect(failed.json).toMatchObject({ error: 'job_failed' });
    expect(failed.json.message).toMatch(
      /^the releases job \S+ failed: app never-deployed does not exist in this cluster/,
    );

    // No worker takes jobs while the queue is paused: the wait ends at its bound, the job stays queued.
    await Promise.all(jobs.queues.map((queue) => queue.pause()));
    try {
      const late = await call('GET', '/api/v1/apps/never-deployed/releases?timeout=1', {
        token: reader.token,
      });
      expect(late.status).toBe(504);
      expect(late.json).toMatchObject({ error: 'timeout' });
      expect(late.json.message).toMatch(/^job \S+ did not finish within 1000 ms; it goes on/);
    } finally {
      await Promise.all(jobs.queues.map((queue) => queue.resume()));
    }
  });

  it('lists jobs newest first, filtered by state, app, type and limit', async () => {
    const posted = await call('POST', '/api/v1/apps/shop/scale', {
      token: writer.token,
      body: { processes: { web: 1 } },
    });
    expect((await events(posted.json.job.id)).at(-1)?.[1]).toMatchObject({ state: 'completed' });
    const all = await call('GET', '/api/v1/jobs?limit=1000', { token: reader.token });
    expect(all.status).toBe(200);
    const stamps = all.json.jobs.map((j: { enqueuedAt: number }) => j.enqueuedAt);
    expect(stamps).toEqual([...stamps].sort((a, b) => b - a));
    expect(all.json.jobs.length).toBe(await jobCount());

    const filtered = await call('GET', '/api/v1/jobs?state=completed,failed&app=shop&type=scale', {
      token: reader.token,
    });
    expect(filtered.json.jobs[0]).toMatchObject({ id: posted.json.job.id, type: 'scale', app: 'shop' });
    expect(filtered.json.jobs.length).toBeGreaterThan(0);
    for (const job of filtered.json.jobs) expect(job).toMatchObject({ type: 'scale', app: 'shop' });
    const deploys = await call('GET', '/api/v1/jobs?type=deploy&limit=2', { token: reader.token });
    expect(deploys.json.jobs.map((j: { type: string }) => j.type)).toEqual(['deploy', 'deploy']);
    const failed = await call('GET', '/api/v1/jobs?state=failed', { token: reader.token });
    for (const job of failed.json.jobs) expect(job.state).toBe('failed');

    const bad = await call('GET', '/api/v1/jobs?state=done&type=teleport&limit=0&app=Shop!', {
      token: reader.token,
    });
    expect(bad.status).toBe(400);
    expect(bad.json.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      'app',
      'limit',
      'state',
      'type',
    ]);
    expect(bad.json.issues.find((i: { path: string }) => i.path === 'state').message).toBe(
      'unknown state done (known: active, waiting, delayed, prioritized, failed, completed)',
    );
    expect((await call('GET', '/api/v1/jobs?limit=1001', { token: reader.token })).status).toBe(400);
    expect(await call('GET', '/api/v1/jobs?app=ghost', { token: reader.token })).toMatchObject({
      status: 404,
      json: { message: 'no app ghost known to the fleet' },
    });
    expect((await call('GET', '/api/v1/jobs')).status).toBe(401);
  });
});

describe('the API document', () => {
  it('serves OpenAPI 3.1 generated from the job contracts, and a reference page, without a token', async () => {
    const doc = await call('GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.json.openapi).toBe('3.1.0');
    const posts = Object.keys(doc.json.paths).filter(
      (p) => p.startsWith('/api/v1/apps/{app}/') && doc.json.paths[p].post,
    );
    expect(posts.map((p) => p.slice('/api/v1/apps/{app}/'.length))).toEqual([
      'deploys',
      'config',
      'scale',
      'domains',
      'ports',
      'properties',
      'resources',
      'ps',
      'metadata',
      'mounts',
      'rollbacks',
      'rename',
      'destroy',
    ]);
    const body = (segment: string) =>
      doc.json.paths[`/api/v1/apps/{app}/${segment}`].post.requestBody.content['application/json'].schema;
    expect(body('scale').properties).toHaveProperty('processes');
    expect(body('scale').properties).not.toHaveProperty('app');
    expect(body('scale').required ?? []).not.toContain('app');
    // Secrets as the plain text the server seals, not the sealed form the queue holds.
    expect(body('config').properties.set.additionalProperties).toEqual({ type: 'string' });
    expect(body('deploys').properties.env.additionalProperties).toEqual({ type: ['string', 'null'] });
    // The read routes' query parameters, from the zod schemas that check them.
    const names = (path: string) =>
      doc.json.paths[path].get.parameters.map((p: { name?: string; $ref?: string }) => p.name ?? p.$ref);
    expect(names('/api/v1/jobs')).toEqual(['state', 'app', 'type', 'limit']);
    expect(doc.json.paths['/api/v1/jobs'].get.parameters[2].schema.enum).toContain('deploy');
    expect(names('/api/v1/apps/{app}/releases')).toEqual(['#/components/parameters/app', 'timeout']);
    const page = await fetch(`${base}/api/v1/docs`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<code>POST /api/v1/apps/{app}/deploys</code>');
    expect(html).not.toMatch(/<script/);
  });
});

describe('the API server metrics', () => {
  it('counts requests by route template and status on /metrics, without app names', async () => {
    await call('GET', '/api/v1/apps/shop', { token: reader.token });
    await call('GET', '/api/v1/apps', {});
    const response = await fetch(`${base}/metrics`);
    const text = await response.text();
    expect(text).toMatch(
      /^longshore_api_requests_total\{route="\/api\/v1\/apps\/:app",method="GET",code="200"\} \d+$/m,
    );
    expect(text).toMatch(
      /^longshore_api_requests_total\{route="\/api\/v1\/apps",method="GET",code="401"\} \d+$/m,
    );
    expect(text).toMatch(
      /^longshore_api_request_duration_seconds_bucket\{le="0\.005",route="\/api\/v1\/apps\/:app",method="GET"\}/m,
    );
    expect(text).not.toMatch(/route="[^"]*shop/);
    expect(text).toMatch(/^longshore_api_process_resident_memory_bytes /m);
  });
});

describe('the worker’s cluster request metrics', () => {
  it('counts the Kubernetes API requests of the deploys by verb and code', async () => {
    const line = fleet.workers[0]!.lines.find((l) => l.includes('"healthPort"'))!;
    const port = /"healthPort":(\d+)/.exec(line)![1];
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    // Server-side apply is a PATCH; reads past the informers' caches are GETs.
    expect(metrics).toMatch(
      /^longshore_kube_request_duration_seconds_count\{verb="PATCH",code="200"\} [1-9]\d*$/m,
    );
    expect(metrics).toMatch(
      /^longshore_kube_request_duration_seconds_bucket\{le="0\.005",verb="GET",code="200"\} \d+$/m,
    );
  });
});

describe('push webhooks', () => {
  const sha = 'c0ffee'.padEnd(40, '1');
  const push = (extra: object = {}) =>
    JSON.stringify({
      ref: 'refs/heads/main',
      after: sha,
      repository: { full_name: 'team/shop' },
      pusher: { name: 'ada' },
      ...extra,
    });
  async function deliver(
    forge: 'github' | 'gitea',
    body: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; json: ReturnType<typeof JSON.parse> }> {
    const response = await fetch(`${base}/api/v1/webhooks/${forge}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: response.status, json: await response.json() };
  }
  const github = (
    body: string,
    delivery: string,
    event = 'push',
    signature = `sha256=${signBody(WEBHOOK_SECRET, body)}`,
  ) =>
    deliver('github', body, {
      'x-github-event': event,
      'x-github-delivery': delivery,
      'x-hub-signature-256': signature,
    });

  it('deploys a signed GitHub push to the mapped branch, once per delivery', async () => {
    const body = push();
    const first = await github(body, 'delivery-1');
    expect(first.status).toBe(202);
    expect(first.json).toMatchObject({ status: 'enqueued', job: { type: 'deploy', lane: 'app.shop' } });
    expect((await events(first.json.job.id)).at(-1)?.[1]).toMatchObject({ state: 'completed' });
    const web = await fleet.apps.readNamespacedDeployment({ name: 'shop-web', namespace: 'default' });
    expect(web.spec?.template.spec?.containers[0]?.image).toBe(`registry.example.com/shop:${sha}`);
    const job = await call('GET', `/api/v1/jobs/${first.json.job.id}`, { token: reader.token });
    expect(job.json).toMatchObject({
      enqueuedBy: 'webhook:github:team/shop',
      payload: { source: { sha, ref: 'refs/heads/main', pusher: 'ada' } },
    });

    // The same delivery again (a replay, or the forge's redelivery): nothing new is enqueued.
    const before = await jobCount();
    const again = await github(body, 'delivery-1');
    expect(again).toEqual({
      status: 200,
      json: { status: 'duplicate', delivery: 'delivery-1', job: { id: first.json.job.id } },
    });
    expect(await jobCount()).toBe(before);
  });

  it('refuses a delivery without a valid signature of its exact body, enqueuing nothing', async () => {
    const before = await jobCount();
    const body = push();
    const none = await deliver('github', body, {
      'x-github-event': 'push',
      'x-github-delivery': 'd-unsigned',
    });
    expect(none.status).toBe(401);
    const wrongSecret = await github(
      body,
      'd-wrong',
      'push',
      `sha256=${signBody('another-secret-0123456', body)}`,
    );
    expect(wrongSecret).toMatchObject({ status: 401, json: { error: 'unauthorized' } });
    const tampered = await github(
      push({ after: 'f'.repeat(40) }),
      'd-tampered',
      'push',
      `sha256=${signBody(WEBHOOK_SECRET, body)}`,
    );
    expect(tampered.status).toBe(401);
    expect(await jobCount()).toBe(before);
  });

  it('refuses a delivery over the body limit with 413, before its signature is read', async () => {
    const before = await jobCount();
    const tooLarge = await rawPost('/api/v1/webhooks/github', {
      'content-type': 'application/json',
      'content-length': String(BODY_LIMIT_BYTES + 1),
      'x-github-event': 'push',
      'x-github-delivery': 'd-huge',
      'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
    });
    expect(tooLarge).toMatchObject({ status: 413, json: { error: 'payload_too_large' } });
    expect(await jobCount()).toBe(before);
    // Not remembered: the delivery id was never claimed.
    expect(await redis.exists('longshore:webhook-delivery:github:d-huge')).toBe(0);
  });

  it('answers a ping, and ignores other events, branches, tags and deletions', async () => {
    expect(await github('{"zen":"hi"}', 'd-ping', 'ping')).toEqual({ status: 200, json: { status: 'pong' } });
    expect((await github(push(), 'd-issue', 'issues')).json).toEqual({
      status: 'ignored',
      reason: 'issues events are not deployed',
    });
    expect((await github(push({ ref: 'refs/heads/feature' }), 'd-branch')).json.reason).toBe(
      'refs/heads/feature is not a deploy branch of team/shop (main)',
    );
    expect((await github(push({ ref: 'refs/tags/v1' }), 'd-tag')).json.reason).toBe(
      'refs/tags/v1 is not a branch',
    );
    expect((await github(push({ deleted: true, after: '0'.repeat(40) }), 'd-deleted')).json.reason).toBe(
      'refs/heads/main was deleted: nothing to deploy',
    );
    const unmapped = await github(push({ repository: { full_name: 'team/other' } }), 'd-unmapped');
    expect(unmapped).toMatchObject({
      status: 404,
      json: { message: 'no app is mapped to team/other (LONGSHORE_WEBHOOKS)' },
    });
  });

  it('takes Gitea and Forgejo deliveries with their signature header', async () => {
    const body = push({ after: 'beef'.padEnd(40, '2'), pusher: { username: 'grace' } });
    const gitea = await deliver('gitea', body, {
      'x-gitea-event': 'push',
      'x-gitea-delivery': 'g-1',
      'x-gitea-signature': signBody(WEBHOOK_SECRET, body),
    });
    expect(gitea.status).toBe(202);
    expect((await events(gitea.json.job.id)).at(-1)?.[1]).toMatchObject({ state: 'completed' });
    const forgejoBody = push({ after: 'feed'.padEnd(40, '3') });
    const forgejo = await deliver('gitea', forgejoBody, {
      'x-forgejo-event': 'push',
      'x-forgejo-delivery': 'f-1',
      'x-forgejo-signature': signBody(WEBHOOK_SECRET, forgejoBody),
    });
    expect(forgejo.json.status).toBe('enqueued');
    expect((await events(forgejo.json.job.id)).at(-1)?.[1]).toMatchObject({ state: 'completed' });
  });
});

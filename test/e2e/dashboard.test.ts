/**
 * The dashboard (`/ui`, docs/http-api.md "Dashboard") in a real browser: headless Chromium
 * (Debian's `chromium`, driven by playwright-core) logs in with a token, sees a failed deploy on
 * the apps page, retries it from the job's page and sees it succeed — through a real `serve`
 * process, the fleet's worker and kube-sim. And the session's guards over plain HTTP: no
 * session, a cross-site or CSRF-less form, a write to the read-only queue board.
 * With LONGSHORE_UI_SCREENSHOTS=DIR set, the apps page and the job page are saved there
 * (docs/img/ holds the ones in the docs).
 */
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/private-redis.ts';
import { newToken } from '../../src/producers/http/tokens.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { CLI, type Proc, startProcess } from '../helpers/processes.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const admin = newToken('ops', 'write');
let fleet: DeployFleet;
let serve: Proc;
let base: string;
let browser: Browser;
let failedJob: string;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  const port = await freePort();
  serve = startProcess(CLI, ['serve', '--port', String(port)], {
    ...fleet.env,
    LONGSHORE_API_TOKENS: admin.entry,
  });
  await serve.waitForLine(/longshore API listening on/, 30_000);
  base = `http://127.0.0.1:${port}`;
  const procfile = fleet.file('board.Procfile', 'web: nginx -g "daemon off;"\n');
  await fleet.ok(['deploy', 'board', '--image', 'nginx:1.27', '--procfile', procfile, '--wait']);
  await fleet.ok(['properties:set', 'board', 'deploy-timeout', '3', '--wait']);
  fleet.sim.settings.unpullableImages.push('nginx:1.99');
  const failed = await fleet.cli(['deploy', 'board', '--image', 'nginx:1.99', '--wait']);
  expect(failed.code).toBe(1);
  failedJob = /enqueued deploy job (\S+)/.exec(failed.stdout + failed.stderr)![1]!;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  serve?.kill('SIGTERM');
  await fleet?.stop();
});

describe('the dashboard', () => {
  it('logs in, shows the failed job, retries it from its page, and shows it succeed', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${base}/ui`);
    expect(new URL(page.url()).pathname).toBe('/ui/login');
    await page.fill('input[name=token]', 'lst_wrong');
    await page.click('button');
    expect(await page.textContent('.error')).toBe('That token is not valid.');
    await page.fill('input[name=token]', admin.token);
    await page.click('button');
    expect(new URL(page.url()).pathname).toBe('/ui');
    const row = page.locator('tr', { hasText: 'board' });
    expect(await row.locator('td.failed').textContent()).toBe('failed');
    expect(await row.textContent()).toContain('nginx:1.99');
    if (process.env.LONGSHORE_UI_SCREENSHOTS) {
      await page.screenshot({
        path: join(process.env.LONGSHORE_UI_SCREENSHOTS, 'ui-apps.png'),
        fullPage: true,
      });
    }

    await row.locator(`a[href="/ui/jobs/${failedJob}"]`).click();
    expect(await page.textContent('td.failed')).toBe('failed');
    expect(await page.textContent('pre')).toMatch(/ImagePullBackOff/);
    // The image pulls now: the retried deploy rolls out.
    fleet.sim.settings.unpullableImages.splice(fleet.sim.settings.unpullableImages.indexOf('nginx:1.99'), 1);
    await page.click('button:has-text("Retry")');
    await page.waitForSelector('td.completed', { timeout: 60_000 });
    expect(await page.textContent('td.completed')).toBe('completed');
    if (process.env.LONGSHORE_UI_SCREENSHOTS) {
      await page.screenshot({
        path: join(process.env.LONGSHORE_UI_SCREENSHOTS, 'ui-job.png'),
        fullPage: true,
      });
    }
    await page.goto(`${base}/ui`);
    expect(await page.locator('tr', { hasText: 'board' }).locator('td.completed').textContent()).toBe(
      'completed',
    );
    await page.goto(`${base}/ui/queues/`);
    expect(await page.title()).toMatch(/longshore/);
    await page.close();
  });

  it('guards every request: no session, another site, no CSRF token, a write to the queue board', async () => {
    const noSession = await fetch(`${base}/ui`, { redirect: 'manual' });
    expect(noSession.status).toBe(303);
    expect(noSession.headers.get('location')).toBe('/ui/login');
    const login = await fetch(`${base}/ui/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: new URLSearchParams({ token: admin.token }),
    });
    expect(login.status).toBe(303);
    const setCookie = login.headers.get('set-cookie')!;
    expect(setCookie).toMatch(
      /^longshore_session=[^;]+; Path=\/ui; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
    const cookie = setCookie.split(';')[0]!;
    const forged = `${cookie.slice(0, -2)}xx`;
    expect((await fetch(`${base}/ui`, { redirect: 'manual', headers: { cookie: forged } })).status).toBe(303);
    expect((await fetch(`${base}/ui`, { headers: { cookie } })).status).toBe(200);

    const retry = (headers: Record<string, string>, body: Record<string, string>) =>
      fetch(`${base}/ui/jobs/${failedJob}/retry`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(body),
      });
    expect((await retry({}, { csrf: 'x' })).status).toBe(403);
    expect((await retry({ origin: 'http://evil.example' }, { csrf: 'x' })).status).toBe(403);
    const noCsrf = await retry({ origin: base }, {});
    expect(noCsrf.status).toBe(409);
    expect(((await noCsrf.json()) as { message: string }).message).toMatch(/CSRF token/);

    const boardWrite = await fetch(`${base}/ui/queues/api/queues/longshore/retry/failed`, {
      method: 'PUT',
      headers: { cookie, origin: base },
    });
    expect(boardWrite.status).toBe(403);
    expect(((await boardWrite.json()) as { message: string }).message).toBe('the queue board is read-only');
  });
});

/**
 * `git push` deploys (docs/git-push.md): a bare repository with the hook `git-hook install`
 * writes, a separate clone, and real `git push` — the pushed commit's Procfile and app.json are
 * deployed through the fleet (CLI → Redis → worker → kube-sim), the deploy's stream reaches the
 * pusher as `remote:` lines, and a deploy that fails or is refused rejects the push.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';

const exec = promisify(execFile);
let fleet: DeployFleet;
let repo: string;
let work: string;

const gitEnv = () => ({
  ...process.env,
  ...fleet.env,
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
  LONGSHORE_PUSHER: 'ada',
});

async function git(
  args: string[],
  env: NodeJS.ProcessEnv = gitEnv(),
): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await exec('git', args, { cwd: work, env, timeout: 120_000 });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

async function commit(files: Record<string, string>, message: string): Promise<string> {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(work, name), text);
  await git(['add', '-A']);
  await git(['commit', '-q', '-m', message]);
  return (await git(['rev-parse', 'HEAD'])).output.trim();
}

const remoteSha = async (ref: string) =>
  (
    await exec('git', ['rev-parse', '--verify', '-q', ref], { cwd: repo }).catch(() => ({ stdout: '' }))
  ).stdout.trim();

const image = async (app: string) =>
  (await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace: 'default' })).spec?.template
    .spec?.containers[0]?.image;

const PROCFILE = 'web: nginx -g "daemon off;"\nworker: sh -c "sleep 3600"\n';
const APP_JSON = JSON.stringify({ formation: { web: { quantity: 2 }, worker: { quantity: 1 } } });

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  repo = join(fleet.dir, 'shop.git');
  work = join(fleet.dir, 'shop');
  mkdirSync(work);
  await exec('git', ['init', '-q', '--bare', '-b', 'main', repo]);
  await exec('git', ['init', '-q', '-b', 'main', work]);
  await git(['remote', 'add', 'origin', repo]);
});

afterAll(async () => {
  await fleet?.stop();
});

describe('git push deploys', () => {
  it('installs a pre-receive hook, refusing bad input before writing anything', async () => {
    const template = 'registry.example.com/{app}:{sha}';
    const refused = await fleet.cli([
      'git-hook',
      'install',
      work,
      '--app',
      'shop',
      '--image-template',
      template,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not a bare repository/);
    const badTemplate = await fleet.cli([
      'git-hook',
      'install',
      repo,
      '--app',
      'shop',
      '--image-template',
      'registry.example.com/shop:latest',
    ]);
    expect(badTemplate.code).toBe(2);
    expect(badTemplate.stderr).toMatch(/--image-template: must contain \{sha\}/);
    const badApp = await fleet.cli([
      'git-hook',
      'install',
      repo,
      '--app',
      'Shop!',
      '--image-template',
      template,
    ]);
    expect(badApp.code).toBe(2);
    expect(badApp.stderr).toMatch(/--app/);

    const installed = await fleet.ok([
      'git-hook',
      'install',
      repo,
      '--app',
      'shop',
      '--image-template',
      template,
    ]);
    const hook = join(repo, 'hooks', 'pre-receive');
    expect(installed).toContain(`installed ${hook}`);
    expect(statSync(hook).mode & 0o777).toBe(0o755);
    expect(readFileSync(hook, 'utf8')).toMatch(/git-hook' 'receive' '--app' 'shop' '--branch' 'main'/);
  });

  it('deploys a push to main and streams the deploy to the pusher', async () => {
    const sha = await commit({ Procfile: PROCFILE, 'app.json': APP_JSON }, 'first');
    const push = await git(['push', 'origin', 'main']);
    expect(push.code, push.output).toBe(0);
    const remote = push.output
      .split('\n')
      .filter((l) => l.startsWith('remote: '))
      .map((l) => l.slice(8).trimEnd());
    expect(remote[0]).toBe(
      `longshore: deploying ${sha.slice(0, 7)} of refs/heads/main as shop (image registry.example.com/shop:${sha})`,
    );
    expect(remote.join('\n')).toMatch(/enqueued deploy job/);
    expect(remote.join('\n')).toMatch(/-----> /);
    expect(remote.at(-1)).toMatch(/completed|deployed/i);
    expect(await remoteSha('refs/heads/main')).toBe(sha);
    expect(await image('shop')).toBe(`registry.example.com/shop:${sha}`);
    const web = await fleet.apps.readNamespacedDeployment({ name: 'shop-web', namespace: 'default' });
    expect(web.spec?.replicas).toBe(2);
    const status = JSON.parse(await fleet.ok(['apps:status', 'shop', '--json'])) as { source?: unknown };
    expect(JSON.stringify(status)).toContain(sha);
  });

  it('refuses the push when the commit’s app.json is invalid, naming the file and the field', async () => {
    const before = await remoteSha('refs/heads/main');
    await commit({ 'app.json': JSON.stringify({ formation: { web: { quantity: -1 } } }) }, 'bad');
    const push = await git(['push', 'origin', 'main']);
    expect(push.code).not.toBe(0);
    expect(push.output).toMatch(/remote: error: .*app\.json at [0-9a-f]{7}.*formation\.web\.quantity/);
    expect(push.output).toMatch(/pre-receive hook declined/);
    expect(await remoteSha('refs/heads/main')).toBe(before);
    await git(['reset', '-q', '--hard', 'HEAD~1']);
  });

  it('a deploy that fails rejects the push with the reason', async () => {
    await fleet.ok(['properties:set', 'shop', 'deploy-timeout', '3', '--wait']);
    const sha = await commit({ 'README.md': 'broken build\n' }, 'unpullable');
    fleet.sim.settings.unpullableImages.push(`registry.example.com/shop:${sha}`);
    const push = await git(['push', 'origin', 'main']);
    expect(push.code).not.toBe(0);
    expect(push.output).toMatch(
      /remote: =====> app\.shop\.\d+ failed: release shop revision \d+ failed: timed out after 3 s/,
    );
    expect(push.output).toMatch(/ImagePullBackOff/);
    expect(push.output).toMatch(/pre-receive hook declined/);
    expect(await remoteSha('refs/heads/main')).not.toBe(sha);
    await git(['reset', '-q', '--hard', 'HEAD~1']);
  });

  it('ignores other branches, tags and deletions with one line each', async () => {
    await git(['checkout', '-q', '-b', 'feature']);
    await commit({ 'NOTES.md': 'wip\n' }, 'wip');
    const branch = await git(['push', 'origin', 'feature']);
    expect(branch.code, branch.output).toBe(0);
    expect(branch.output).toMatch(
      /remote: longshore: refs\/heads\/feature is not the deploy branch \(main\): not deployed/,
    );
    await git(['tag', 'v1']);
    const tag = await git(['push', 'origin', 'v1']);
    expect(tag.output).toMatch(/remote: longshore: tag v1 pushed: tags are not deployed/);
    const deletion = await git(['push', 'origin', '--delete', 'feature']);
    expect(deletion.code, deletion.output).toBe(0);
    expect(deletion.output).toMatch(/remote: longshore: branch feature deleted: nothing to deploy/);
    expect(branch.output + tag.output + deletion.output).not.toMatch(/enqueued/);
    await git(['checkout', '-q', 'main']);
  });

  it('with Redis unreachable, says so in one line and keeps the push', async () => {
    const sha = await commit({ 'NOTES.md': 'later\n' }, 'while Redis is away');
    const push = await git(['push', 'origin', 'main'], { ...gitEnv(), REDIS_URL: 'redis://127.0.0.1:1' });
    expect(push.code, push.output).toBe(0);
    const lines = push.output.split('\n').filter((l) => l.startsWith('remote: longshore: not deployed'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1 \(connection refused\)/);
    expect(push.output).toMatch(/the push is kept/);
    expect(await remoteSha('refs/heads/main')).toBe(sha);
  });
});

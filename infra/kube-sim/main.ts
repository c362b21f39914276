/**
 * `longshore sim [--port P] [--kubeconfig FILE]`: a standalone simulator until SIGTERM/SIGINT.
 */
import { startSim } from './sim.ts';

export async function runSim(options: { port?: number; host?: string; kubeconfig?: string }): Promise<void> {
  const sim = await startSim({
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host ? { host: options.host } : {}),
    ...(options.kubeconfig ? { kubeconfigPath: options.kubeconfig } : {}),
  });
  process.stdout.write(`kube-sim listening on ${sim.url}\n`);
  if (options.kubeconfig)
    process.stdout.write(
      `kubeconfig written to ${options.kubeconfig} (kubectl --kubeconfig ${options.kubeconfig} get ns)\n`,
    );
  const stop = () => {
    sim.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

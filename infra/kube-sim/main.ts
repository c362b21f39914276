/**
 * `longshore sim [--port P] [--kubeconfig FILE] [--unpullable-image PATTERN]… [--failing-job-image
 * PATTERN]… [--restart-back-off-ms MS]`: a standalone simulator until SIGTERM/SIGINT. Settings
 * given here are checked before it starts; `POST /__sim/settings` changes them while it runs.
 */

import type { AuthorizationMode } from './auth/request-auth.ts';
import { applySettingsJson, defaultControllerSettings } from './controllers/settings.ts';
import { startSim } from './sim.ts';

export async function runSim(options: {
  port?: number;
  host?: string;
  kubeconfig?: string;
  /** Controller settings as the admin API takes them (`{ unpullableImages: [...] }`). */
  settings?: Record<string, unknown>;
  /** --authorization: always-allow (default) or rbac. */
  authorization?: AuthorizationMode;
}): Promise<void> {
  // Refused before anything listens (a SettingsError names the setting).
  const settings = defaultControllerSettings();
  if (options.settings) applySettingsJson(settings, options.settings);
  const sim = await startSim({
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host ? { host: options.host } : {}),
    ...(options.kubeconfig ? { kubeconfigPath: options.kubeconfig } : {}),
    settings,
    ...(options.authorization ? { authorization: options.authorization } : {}),
  }).catch((err: NodeJS.ErrnoException) => {
    // One line naming the address and the option that chooses it, instead of Node's listen error.
    if (err.code !== 'EADDRINUSE' && err.code !== 'EACCES') throw err;
    const why = err.code === 'EADDRINUSE' ? 'the port is in use by another process' : 'permission denied';
    throw new Error(
      `cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0}: ${why}; ` +
        'choose another with --port, or leave --port out for a free one',
      { cause: err },
    );
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

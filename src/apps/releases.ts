/** Names of an app's releases (DESIGN.md, Releases). */
export const releaseNames = {
  app: (app: string) => app,
  config: (app: string) => `config-${app}`,
  pullSecret: (app: string) => `pull-secret-${app}`,
  /** KEDA trigger authentication Secrets (`autoscaling-auth:set`). */
  autoscalingAuth: (app: string) => `autoscaling-auth-${app}`,
  /** Legacy: only ever uninstalled. */
  tls: (app: string) => `tls-${app}`,
  storage: (entry: string) => `storage-${entry}`,
};

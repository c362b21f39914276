/**
 * Defaults of app properties (docs/apps.md). Dokku's: the `default` namespace, 300 s to roll out,
 * no rollback on failure, nginx ingresses, and `http:80:5000` for a web process without port maps.
 */
export const APP_DEFAULTS = {
  namespace: 'default',
  deployTimeoutSeconds: 300,
  /** The release task's deadline: migrations may take long; Heroku stops a release command after an hour. */
  releaseTimeoutSeconds: 3600,
  rollbackOnFailure: false,
  ingressClass: 'nginx',
  tlsIssuerKind: 'ClusterIssuer',
  webPortMap: 'http:80:5000',
} as const;

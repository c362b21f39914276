/** Representative chart values shared by the golden, schema and determinism tests. */
import type {
  AppChartValues,
  ConfigChartValues,
  PullSecretChartValues,
  StorageChartValues,
} from '../../../charts/index.ts';

const IMAGE = `registry.example.com/acme/shop@sha256:${'3f'.repeat(32)}`;

/** Two processes, two domains with cert-manager TLS on nginx, cron tasks, mounts, a pull secret. */
export const fullApp: AppChartValues = {
  app: 'shop',
  namespace: 'shop-prod',
  image: IMAGE,
  configDigest: 'sha256:6b1d0e4c9a7f',
  imagePullSecrets: ['pull-secret-shop'],
  processes: {
    web: {
      command: 'bundle exec puma -C config/puma.rb --tag "shop web"',
      replicas: 3,
      resources: { cpu: '250m', memory: '512Mi', cpuLimit: '1', memoryLimit: '1Gi' },
      healthchecks: {
        startup: { type: 'tcp', initialDelaySeconds: 0, periodSeconds: 2, failureThreshold: 30 },
        readiness: { type: 'http', path: '/healthz', timeoutSeconds: 2 },
        liveness: { type: 'http', path: '/livez', periodSeconds: 20, initialDelaySeconds: 10 },
      },
    },
    worker: {
      command: "bundle exec sidekiq -q 'default,5' -q mailers",
      replicas: 2,
      resources: { memory: '768Mi' },
      healthchecks: { liveness: { type: 'exec', command: ['pgrep', '-f', 'sidekiq'] } },
    },
  },
  ports: ['http:80:5000', 'https:443:5000'],
  domains: ['shop.example.com', 'www.shop.example.com'],
  tls: { issuer: 'letsencrypt-prod', issuerKind: 'ClusterIssuer' },
  ingressClass: 'nginx',
  cron: [
    {
      id: 'shop===bundle exec rake orders:expire===*/15 * * * *',
      suffix: 'a1b2c3d4e5',
      command: 'bundle exec rake orders:expire',
      schedule: '*/15 * * * *',
      concurrencyPolicy: 'Forbid',
      suspend: false,
    },
    {
      id: 'shop===bin/report --daily===@daily',
      suffix: '0f9e8d7c6b',
      command: 'bin/report --daily',
      schedule: '@daily',
      concurrencyPolicy: 'Replace',
      suspend: true,
    },
  ],
  mounts: [
    { entry: 'uploads', claimName: 'uploads', mountPath: '/app/public/uploads', readOnly: false },
    { entry: 'geoip', claimName: 'geoip', mountPath: '/usr/share/geoip', subPath: 'v2', readOnly: true },
  ],
  labels: { team: 'storefront' },
  annotations: { 'example.com/owner': 'storefront@example.com' },
};

/** One web process with one port map and nothing else. */
export const minimalApp: AppChartValues = {
  app: 'hello',
  namespace: 'default',
  image: 'nginx:1.27',
  configDigest: 'e3b0c44298fc',
  imagePullSecrets: [],
  processes: { web: { replicas: 1 } },
  ports: ['http:80:8080'],
  domains: [],
  tls: null,
  ingressClass: 'nginx',
  cron: [],
  mounts: [],
  labels: {},
  annotations: {},
};

/** traefik, a wildcard domain, a namespaced Issuer, tcp and udp maps beside http. */
export const traefikApp: AppChartValues = {
  app: 'game',
  namespace: 'games',
  image: 'ghcr.io/acme/game-server:2.4.1',
  configDigest: '9c1185a5c5e9',
  imagePullSecrets: ['ghcr-acme', 'pull-secret-game'],
  processes: {
    web: { command: 'server --listen 0.0.0.0', replicas: 2 },
    matchmaker: { command: 'server matchmaker', replicas: 1 },
  },
  ports: ['udp:7777:7777', 'tcp:7777:7777', 'http:8080:3000', 'tcp:25575:25575'],
  domains: ['*.play.example.net', 'play.example.net'],
  tls: { issuer: 'acme-dns01', issuerKind: 'Issuer' },
  ingressClass: 'traefik',
  cron: [],
  mounts: [{ entry: 'worlds', claimName: 'worlds', mountPath: '/data/worlds', readOnly: false }],
  labels: {},
  annotations: {},
};

export const config: ConfigChartValues = {
  app: 'shop',
  namespace: 'shop-prod',
  env: {
    RAILS_ENV: 'production',
    DATABASE_URL: 'postgres://shop:s3cret@db.internal:5432/shop',
    GREETING: 'grüß dich',
    EMPTY: '',
  },
};

export const pullSecret: PullSecretChartValues = {
  app: 'shop',
  namespace: 'shop-prod',
  server: 'registry.example.com',
  username: 'deploy-bot',
  password: 'p4ss:word',
};

/** A dynamically provisioned entry from a named class. */
export const provisionedStorage: StorageChartValues = {
  entry: 'uploads',
  namespace: 'shop-prod',
  size: '10Gi',
  accessMode: 'ReadWriteMany',
  storageClassName: 'fast',
  reclaimPolicy: 'Retain',
};

/** A node directory bound through a pre-bound PersistentVolume (the class is ignored). */
export const hostPathStorage: StorageChartValues = {
  entry: 'geoip',
  namespace: 'shop-prod',
  size: '1Gi',
  accessMode: 'ReadWriteOnce',
  storageClassName: 'fast',
  hostPath: '/srv/geoip',
  reclaimPolicy: 'Delete',
};

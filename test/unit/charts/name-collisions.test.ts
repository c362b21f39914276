/**
 * Property: no two different apps ever render an object with the same (kind, namespace, name),
 * whatever their names, process types and domains. Apps are generated at random (a fixed seed, a
 * bounded number of cases) from a small vocabulary, with hyphens and shared prefixes on purpose:
 * that is what made `ca` + `b-web-x.com` and `ca-web-b` + `x.com` meet under the old names.
 * The real chart render functions produce the names; TLS Secret names (the Secrets cert-manager
 * creates for the Ingresses) count as Secrets beside `config-{app}` and `pull-secret-{app}`, and
 * the `app.kubernetes.io/instance` label of Deployments counts as a name of its own.
 */
import { describe, expect, it } from 'vitest';
import {
  type AppChartValues,
  appChart,
  configChart,
  LABEL_INSTANCE,
  pullSecretChart,
  type RenderedObject,
} from '../../../charts/index.ts';
import { prng } from '../../helpers/prng.ts';

type Rand = () => number;
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
const int = (rand: Rand, min: number, max: number) => min + Math.floor(rand() * (max - min + 1));

/** Few, short tokens that start with a letter, so joined names often share prefixes and tails. */
const TOKENS = ['a', 'b', 'ca', 'cx', 'y', 'web', 'x', 'com', 'api', 'w1', 'cron'];

function hyphenated(rand: Rand, maxTokens: number, maxLength: number): string {
  for (;;) {
    const parts = Array.from({ length: int(rand, 1, maxTokens) }, () => pick(rand, TOKENS));
    const name = parts.join('-');
    if (name.length <= maxLength) return name;
  }
}

/**
 * An app name; often another app's name with tokens appended (`ca` → `ca-web-b`), the shape that
 * lets `{app}-{rest}` of one app read as `{app}-{rest}` of another.
 */
function appName(rand: Rand, others: readonly string[]): string {
  for (;;) {
    const name =
      others.length > 0 && rand() < 0.6
        ? `${pick(rand, others)}-${rand() < 0.5 ? 'web-' : ''}${hyphenated(rand, 2, 12)}`
        : hyphenated(rand, 4, 30);
    if (name.length <= 30 && !/^(config|pull-secret|tls|storage)-/.test(name)) return name;
  }
}

function randomDomain(rand: Rand): string {
  if (rand() < 0.1) return `*.${hyphenated(rand, 2, 20)}.com`;
  const labels = Array.from({ length: int(rand, 1, 3) }, () => hyphenated(rand, 3, 20));
  return `${labels.join('.')}.${pick(rand, ['com', 'x', 'web'])}`;
}

function cronSuffix(rand: Rand): string {
  const chars = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: int(rand, 4, 10) }, () => pick(rand, [...chars])).join('');
}

/**
 * Values of `app`, given the apps already generated. Where a longer app extends this one
 * (`ca-web-b` of `ca`), its tail is often put before one of that app's domains
 * (`b-web-x.com` beside `x.com`) or processes (`y-web` beside `web`): the pairs the old names
 * merged. Everything else is random.
 */
function randomApp(
  rand: Rand,
  app: string,
  namespace: string,
  longer: readonly AppChartValues[] = [],
): AppChartValues {
  const extending = longer.filter((o) => o.namespace === namespace && o.app.startsWith(`${app}-`));
  const processes: AppChartValues['processes'] = {};
  if (rand() < 0.8) processes.web = { replicas: 1 };
  for (let i = int(rand, 0, 3); i > 0; i--) {
    const other = extending.length > 0 && rand() < 0.5 ? pick(rand, extending) : undefined;
    const type = other
      ? `${other.app.slice(app.length + 1)}-${pick(rand, [...Object.keys(other.processes), 'web'])}`
      : hyphenated(rand, 3, 20);
    if (type.length <= 20) processes[type] = { replicas: 1 };
  }
  const domains = Array.from({ length: int(rand, 0, 3) }, () => {
    const other = pick(rand, [undefined, ...extending.filter((o) => o.app.startsWith(`${app}-web-`))]);
    if (!other || other.domains.length === 0 || rand() < 0.3) return randomDomain(rand);
    const tail = other.app.slice(`${app}-web-`.length);
    return `${tail}${pick(rand, ['-web-', '.web.'])}${pick(rand, other.domains).replace(/^\*\./, 'wildcard.')}`;
  });
  const cron = Array.from({ length: int(rand, 0, 2) }, (_, i) => ({
    id: `${app}-task-${i}`,
    suffix: cronSuffix(rand),
    command: 'run',
    schedule: '@daily',
    concurrencyPolicy: 'Allow' as const,
    suspend: false,
  }));
  return {
    app,
    namespace,
    image: 'nginx:1.27',
    configDigest: 'd',
    imagePullSecrets: [],
    processes,
    ports: ['http:80:5000'],
    domains: [...new Set(domains.filter((d) => d.length <= 253))].sort(),
    tls: rand() < 0.5 ? { issuer: 'letsencrypt', issuerKind: 'ClusterIssuer' } : null,
    ingressClass: 'nginx',
    cron: cron.filter((t, i) => cron.findIndex((u) => u.suffix === t.suffix) === i),
    mounts: [],
    labels: {},
    annotations: {},
  };
}

/** A fleet of 2 to 6 apps in one or two namespaces, longer names generated first. */
function randomFleet(rand: Rand): AppChartValues[] {
  const names: string[] = [];
  for (let n = int(rand, 2, 6); n > 0; n--) {
    const name = appName(rand, names);
    if (!names.includes(name)) names.push(name);
  }
  const fleet: AppChartValues[] = [];
  for (const app of names.sort((a, b) => b.length - a.length)) {
    fleet.push(randomApp(rand, app, pick(rand, ['default', 'default', 'prod']), fleet));
  }
  return fleet;
}

/** (kind, namespace, name) of everything an app's deploy renders or names. */
function identities(values: AppChartValues): string[] {
  const objects: RenderedObject[] = [
    ...appChart.render(values),
    ...configChart.render({ app: values.app, namespace: values.namespace, env: {} }),
    ...pullSecretChart.render({
      app: values.app,
      namespace: values.namespace,
      server: 'registry.example.com',
      username: 'u',
      password: 'p',
    }),
  ];
  const ids = objects.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`);
  for (const o of objects) {
    const tls = (o.spec as { tls?: { secretName: string }[] } | undefined)?.tls ?? [];
    if (o.kind === 'Ingress') for (const t of tls) ids.push(`Secret ${o.metadata.namespace}/${t.secretName}`);
    // The instance label is unique too (selectors also hold part-of, but people select on it alone).
    if (o.kind === 'Deployment')
      ids.push(`instance label ${o.metadata.namespace}/${o.metadata.labels?.[LABEL_INSTANCE]}`);
  }
  return ids;
}

/** The first identity two different apps share, as a message, or undefined. */
function firstCollision(apps: readonly AppChartValues[]): string | undefined {
  const owner = new Map<string, AppChartValues>();
  for (const values of apps) {
    for (const id of identities(values)) {
      const other = owner.get(id);
      if (other && other.app !== values.app) {
        const describe = (v: AppChartValues) =>
          `${v.app} (processes ${Object.keys(v.processes).join(', ')}; domains ${v.domains.join(', ') || '-'})`;
        return `${id} is rendered by app ${describe(other)} and by app ${describe(values)}`;
      }
      owner.set(id, values);
    }
  }
  return undefined;
}

const base = (app: string, processes: string[], domains: string[]): AppChartValues => ({
  ...randomApp(prng(1), app, 'default'),
  processes: Object.fromEntries(processes.map((p) => [p, { replicas: 1 }])),
  domains,
  cron: [],
  tls: { issuer: 'letsencrypt', issuerKind: 'ClusterIssuer' },
});

describe('object names across apps', () => {
  it("keeps the issue's two collisions apart", () => {
    expect(firstCollision([base('ca', ['web'], ['b-web-x.com']), base('ca-web-b', ['web'], ['x.com'])])).toBe(
      undefined,
    );
    expect(firstCollision([base('cx', ['y-web'], []), base('cx-y', ['web'], [])])).toBe(undefined);
  });

  it('never gives two apps the same (kind, namespace, name): 1000 random fleets, fixed seed', () => {
    const rand = prng(0x5eed11);
    for (let c = 0; c < 1000; c++) {
      const fleet = randomFleet(rand);
      const collision = firstCollision(fleet);
      if (collision) expect.fail(`case ${c}: ${collision}`);
    }
  });
});

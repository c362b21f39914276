/**
 * ServiceAccounts, authentication and RBAC (infra/kube-sim/auth/) with the real kubectl 1.33:
 * `--authorization rbac` denies what no rule allows with upstream's 403 text, `kubectl auth can-i`
 * and `auth whoami` answer for a ServiceAccount token from `kubectl create token`, bad tokens are
 * 401, every namespace gets its `default` ServiceAccount and `kube-root-ca.crt`, and pods naming a
 * missing ServiceAccount are refused.
 */
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { findByKind } from '../../../infra/kube-sim/resources.ts';
import { type Sim, startSim } from '../../../infra/kube-sim/sim.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { until } from '../../helpers/wait.ts';

const SA_USER = 'system:serviceaccount:team:reader';
/** A GET over the simulator's self-signed HTTPS (not verified: only the answer matters here). */
function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; json: () => Promise<unknown> }>((resolve, reject) => {
    const req = request(url, { headers, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          json: async () => JSON.parse(Buffer.concat(chunks).toString('utf8')),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('kube-sim RBAC with real kubectl', () => {
  let sim: Sim;
  let cli: KubeCli;
  let token: string;
  /** kubectl as the ServiceAccount: a kubeconfig holding its token. */
  let asReader: (args: string[]) => ReturnType<KubeCli['kubectl']>;

  beforeAll(async () => {
    sim = await startSim({ authorization: 'rbac', controllers: false });
    cli = await kubeCli(sim);
    const setup = `apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: reader, namespace: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: secret-getter, namespace: team}
rules:
  - apiGroups: [""]
    resources: [secrets]
    verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader-gets-secrets, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: secret-getter}
subjects:
  - {kind: ServiceAccount, name: reader, namespace: team}
`;
    const applied = await cli.kubectl(['apply', '-f', cli.file('setup.yaml', setup)]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const created = await cli.kubectl(['create', 'token', 'reader', '-n', 'team']);
    expect(created.stderr).toBe('');
    token = created.stdout.trim();
    const kubeconfig = cli.file(
      'reader.kubeconfig',
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'sim', cluster: { server: sim.url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'reader', user: { token } }],
        contexts: [{ name: 'sim', context: { cluster: 'sim', user: 'reader', namespace: 'team' } }],
        'current-context': 'sim',
      }),
    );
    asReader = (args) => cli.kubectl(['--kubeconfig', kubeconfig, ...args]);
  }, 60_000);

  afterAll(async () => {
    await sim?.stop();
  });

  it('issues a JWT with the upstream claims', () => {
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
    expect(claims.sub).toBe(SA_USER);
    expect(claims.iss).toBe('https://kubernetes.default.svc.cluster.local');
    expect(claims.aud).toEqual(['https://kubernetes.default.svc.cluster.local']);
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims['kubernetes.io'].namespace).toBe('team');
    expect(claims['kubernetes.io'].serviceaccount.name).toBe('reader');
  });

  it('answers kubectl auth can-i as the rules say', async () => {
    const canI = async (...args: string[]) => (await asReader(['auth', 'can-i', ...args])).stdout.trim();
    expect(await canI('get', 'secrets', '-n', 'team')).toBe('yes');
    expect(await canI('list', 'secrets', '-n', 'team')).toBe('no');
    expect(await canI('get', 'secrets', '-n', 'other')).toBe('no');
    expect(await canI('get', 'pods', '-n', 'team')).toBe('no');
    expect(await canI('create', 'secrets', '-n', 'team')).toBe('no');
    expect(await canI('get', 'secrets', '--all-namespaces')).toBe('no');
    // The admin kubeconfig is in system:masters.
    expect((await cli.kubectl(['auth', 'can-i', 'delete', 'nodes'])).stdout.trim()).toBe('yes');
  });

  it('prints the ServiceAccount user from kubectl auth whoami', async () => {
    const whoami = await asReader(['auth', 'whoami']);
    expect(whoami.stderr).toBe('');
    expect(whoami.stdout).toContain(SA_USER);
    expect(whoami.stdout).toContain('system:serviceaccounts:team');
  });

  it('answers real requests the rules do not allow with upstream 403 text', async () => {
    await cli.kubectl(['create', 'secret', 'generic', 'db', '-n', 'team', '--from-literal=a=b']);
    const get = await asReader(['get', 'secret', 'db', '-o', 'name']);
    expect(get.stdout.trim()).toBe('secret/db');
    const list = await asReader(['get', 'secrets']);
    expect(list.code).not.toBe(0);
    expect(list.stderr).toContain(
      `secrets is forbidden: User "${SA_USER}" cannot list resource "secrets" in API group "" in the namespace "team"`,
    );
    const pods = await asReader(['get', 'pods']);
    expect(pods.stderr).toContain(
      `pods is forbidden: User "${SA_USER}" cannot list resource "pods" in API group "" in the namespace "team"`,
    );
    const named = await asReader(['get', 'secret', 'db', '-n', 'other']);
    expect(named.stderr).toContain(
      `secrets "db" is forbidden: User "${SA_USER}" cannot get resource "secrets" in API group "" in the namespace "other"`,
    );
    const ns = await asReader(['get', 'namespaces']);
    expect(ns.stderr).toContain(
      `namespaces is forbidden: User "${SA_USER}" cannot list resource "namespaces" in API group "" at the cluster scope`,
    );
    // The request log names who asked, on the refused requests too (tests assert "no 403 for X").
    const refused = sim.requests.entries().filter((r) => r.status === 403 && r.user === SA_USER);
    expect(refused.map((r) => `${r.verb} ${r.resource} ${r.namespace ?? ''}/${r.name ?? ''}`)).toEqual(
      expect.arrayContaining([
        'list /secrets team/',
        'list /pods team/',
        'get /secrets other/db',
        'list /namespaces /',
      ]),
    );
    expect(
      sim.requests.entries({ verb: 'get', resource: '/secrets', namespace: 'team', name: 'db' }),
    ).toEqual(expect.arrayContaining([expect.objectContaining({ status: 200, user: SA_USER })]));
    expect(sim.requests.entries({ verb: 'create', resource: '/secrets', namespace: 'team' })).toEqual([
      expect.objectContaining({ status: 201, user: 'kube-sim-admin' }),
    ]);
  });

  it('answers 401 for invalid and expired tokens, and lets anonymous users only see public info', async () => {
    const bad = await get(`${sim.url}/api/v1/namespaces/team/secrets/db`, {
      Authorization: `Bearer ${token.slice(0, -4)}AAAA`,
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({
      kind: 'Status',
      reason: 'Unauthorized',
      message: 'Unauthorized',
    });
    const sa = sim.store.get('/serviceaccounts', 'team', 'reader')!;
    const expired = sim.tokens.issue({
      namespace: 'team',
      name: 'reader',
      uid: sa.metadata.uid!,
      expirationSeconds: 600,
      now: Math.floor(Date.now() / 1000) - 700,
    });
    const late = await get(`${sim.url}/api/v1/namespaces/team/secrets/db`, {
      Authorization: `Bearer ${expired.token}`,
    });
    expect(late.status).toBe(401);
    const anonymous = await get(`${sim.url}/api/v1/namespaces`);
    expect(anonymous.status).toBe(403);
    expect(((await anonymous.json()) as { message: string }).message).toBe(
      'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    // A 401 has no user; an anonymous request is logged as system:anonymous.
    const logged = sim.requests.entries({ resource: '/secrets', namespace: 'team', name: 'db' });
    expect(logged.filter((r) => r.status === 401).every((r) => r.user === undefined)).toBe(true);
    expect(sim.requests.entries({ verb: 'list', resource: '/namespaces' }).at(-1)).toMatchObject({
      status: 403,
      user: 'system:anonymous',
    });
    expect((await get(`${sim.url}/version`)).status).toBe(200);
    const root = await get(`${sim.url}/apis`);
    expect(root.status).toBe(403);
    expect(((await root.json()) as { message: string }).message).toBe(
      'forbidden: User "system:anonymous" cannot get path "/apis"',
    );
  });

  it('keeps a binding roleRef immutable and checks rules, as upstream validation does', async () => {
    const patched = await cli.kubectl([
      'patch',
      'rolebinding',
      'reader-gets-secrets',
      '-n',
      'team',
      '--type=merge',
      '-p',
      '{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"}}',
    ]);
    expect(patched.code).not.toBe(0);
    expect(patched.stderr).toContain('roleRef: Invalid value:');
    expect(patched.stderr).toContain('cannot change roleRef');
    const role = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: broken, namespace: team}
rules:
  - resources: [pods]
    verbs: [get]
`;
    const refused = await cli.kubectl(['create', '-f', cli.file('broken.yaml', role)]);
    expect(refused.stderr).toContain(
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
    );
  });

  it('refuses short token lifetimes as upstream validation does', async () => {
    const short = await cli.kubectl(['create', 'token', 'reader', '-n', 'team', '--duration', '5m']);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain('may not specify a duration less than 10 minutes');
  });

  it('gives every namespace a default ServiceAccount and kube-root-ca.crt, recreating them', async () => {
    await cli.kubectl(['create', 'namespace', 'fresh']);
    await until(() => sim.store.get('/serviceaccounts', 'fresh', 'default'), 'the default ServiceAccount');
    const cm = await until(
      () => sim.store.get('/configmaps', 'fresh', 'kube-root-ca.crt'),
      'kube-root-ca.crt',
    );
    expect(String((cm.data as Record<string, string>)['ca.crt'])).toContain('BEGIN CERTIFICATE');
    const first = sim.store.get('/serviceaccounts', 'fresh', 'default')!.metadata.uid;
    await cli.kubectl(['delete', 'serviceaccount', 'default', '-n', 'fresh']);
    const again = await until(() => {
      const sa = sim.store.get('/serviceaccounts', 'fresh', 'default');
      return sa && sa.metadata.uid !== first ? sa : undefined;
    }, 'the default ServiceAccount recreated');
    expect(again.metadata.name).toBe('default');
  });

  it('refuses a pod whose ServiceAccount is missing and mounts the token volume otherwise', async () => {
    const pod = (sa?: string) =>
      `apiVersion: v1
kind: Pod
metadata: {name: ${sa ?? 'plain'}, namespace: team}
spec:
  ${sa ? `serviceAccountName: ${sa}` : ''}
  containers: [{name: app, image: busybox}]
`;
    const refused = await cli.kubectl(['create', '-f', cli.file('ghost.yaml', pod('ghost'))]);
    expect(refused.stderr).toContain(
      'pods "ghost" is forbidden: error looking up service account team/ghost: serviceaccount "ghost" not found',
    );
    const made = await cli.kubectl(['create', '-f', cli.file('plain.yaml', pod())]);
    expect(made.stderr).toBe('');
    const stored = sim.store.get('/pods', 'team', 'plain')!;
    const spec = stored.spec as {
      serviceAccountName: string;
      volumes: { name: string; projected?: unknown }[];
      containers: { volumeMounts: { name: string; mountPath: string }[] }[];
    };
    expect(spec.serviceAccountName).toBe('default');
    const volume = spec.volumes.find((v) => v.name.startsWith('kube-api-access-'));
    expect(volume?.projected).toBeDefined();
    expect(spec.containers[0]!.volumeMounts).toContainEqual(
      expect.objectContaining({
        name: volume!.name,
        mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
      }),
    );
    expect(findByKind('v1', 'Pod')).toBeDefined();
  });
});

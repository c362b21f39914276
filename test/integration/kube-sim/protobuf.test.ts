/**
 * Protobuf request bodies end to end: the real kubectl 1.33 (`kubectl create <kind>`, typed
 * client-go clients) and the real helm 4 (its release Secrets, their updates and deletes) send
 * application/vnd.kubernetes.protobuf, and what they create reads back as they meant it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sim, startSim } from '../../../infra/kube-sim/sim.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';

const NS = 'pb';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

type Obj = Record<string, unknown>;

/** The value at a dotted path (`metadata.uid`) of an object read back as JSON. */
function at(object: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], object);
}

describe('protobuf request bodies from the real kubectl and helm', () => {
  let sim: Sim;
  let cli: KubeCli;

  beforeAll(async () => {
    sim = await startSim({ onControllerError: () => undefined });
    cli = await kubeCli(sim);
  });
  afterAll(() => sim.stop());

  /** Runs kubectl, expecting success and exactly `stdout` (trimmed). */
  async function kubectl(args: string[], stdout: string): Promise<void> {
    const result = await cli.kubectl(args);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(stdout);
    expect(result.code).toBe(0);
  }

  async function get(kind: string, name: string, namespace: string | undefined = NS): Promise<Obj> {
    const result = await cli.kubectl([
      'get',
      kind,
      name,
      '-o',
      'json',
      ...(namespace ? ['-n', namespace] : []),
    ]);
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout) as Obj;
  }

  /** The last create of `resource` (`group/plural`), which must have been protobuf. */
  function lastCreate(resource: string) {
    const creates = sim.requests.entries({ verb: 'create', resource });
    const last = creates[creates.length - 1]!;
    expect(last.contentType).toBe(PROTOBUF);
    return last;
  }

  it('kubectl create namespace', async () => {
    await kubectl(['create', 'namespace', NS], `namespace/${NS} created`);
    expect(lastCreate('/namespaces').status).toBe(201);
    expect(await get('namespace', NS, undefined)).toMatchObject({
      metadata: { labels: { 'kubernetes.io/metadata.name': NS } },
      status: { phase: 'Active' },
    });
  });

  it('kubectl create secret generic and docker-registry', async () => {
    await kubectl(
      ['create', 'secret', 'generic', 's', '--from-literal=a=b', '--from-literal=password=s3cr3t!', '-n', NS],
      'secret/s created',
    );
    expect(lastCreate('/secrets').status).toBe(201);
    expect(await get('secret', 's')).toMatchObject({
      type: 'Opaque',
      data: { a: 'Yg==', password: Buffer.from('s3cr3t!').toString('base64') },
    });

    await kubectl(
      [
        'create',
        'secret',
        'docker-registry',
        'reg',
        '--docker-server=r.example',
        '--docker-username=u',
        '--docker-password=p',
        '-n',
        NS,
      ],
      'secret/reg created',
    );
    const reg = await get('secret', 'reg');
    expect(reg.type).toBe('kubernetes.io/dockerconfigjson');
    const config = at(reg, 'data')! as Record<string, string>;
    expect(JSON.parse(Buffer.from(config['.dockerconfigjson']!, 'base64').toString('utf8'))).toMatchObject({
      auths: { 'r.example': { username: 'u', password: 'p' } },
    });
  });

  it('kubectl create configmap, with a binary file in binaryData', async () => {
    const blob = Buffer.from([0x6b, 0x31, 0x00, 0xff, 0xfe]);
    const file = join(cli.dir, 'blob.bin');
    writeFileSync(file, blob);
    await kubectl(
      ['create', 'configmap', 'c', '--from-literal=k=v', `--from-file=blob=${file}`, '-n', NS],
      'configmap/c created',
    );
    expect(lastCreate('/configmaps').status).toBe(201);
    const cm = await get('configmap', 'c');
    expect(cm.data).toEqual({ k: 'v' });
    expect(cm.binaryData).toEqual({ blob: blob.toString('base64') });
  });

  it('kubectl create serviceaccount', async () => {
    await kubectl(['create', 'serviceaccount', 'robot', '-n', NS], 'serviceaccount/robot created');
    expect(lastCreate('/serviceaccounts').status).toBe(201);
    expect(at(await get('serviceaccount', 'robot'), 'metadata.name')).toBe('robot');
  });

  it('kubectl create deployment, and replicas: 0 stays 0 (a pointer on the wire)', async () => {
    await kubectl(
      ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2', '--port=80', '-n', NS],
      'deployment.apps/web created',
    );
    expect(lastCreate('apps/deployments').status).toBe(201);
    expect(await get('deployment', 'web')).toMatchObject({
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          spec: {
            containers: [
              { name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }] },
            ],
          },
        },
      },
    });

    await kubectl(
      ['create', 'deployment', 'idle', '--image=nginx', '--replicas=0', '-n', NS],
      'deployment.apps/idle created',
    );
    expect(at(await get('deployment', 'idle'), 'spec.replicas')).toBe(0);
  });

  it('kubectl create service clusterip and nodeport', async () => {
    await kubectl(
      ['create', 'service', 'clusterip', 'web', '--tcp=80:8080', '-n', NS],
      'service/web created',
    );
    expect(lastCreate('/services').status).toBe(201);
    const svc = await get('service', 'web');
    expect(at(svc, 'spec.ports')).toEqual([{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }]);
    expect(at(svc, 'spec.type')).toBe('ClusterIP');
    expect(at(svc, 'spec.clusterIP')).toMatch(/^10\./);

    await kubectl(
      ['create', 'service', 'nodeport', 'np', '--tcp=80:8080', '--node-port=30080', '-n', NS],
      'service/np created',
    );
    expect(await get('service', 'np')).toMatchObject({
      spec: { type: 'NodePort', ports: [{ port: 80, targetPort: 8080, nodePort: 30080 }] },
    });
  });

  it('kubectl create job, cronjob, and a job from the cronjob', async () => {
    await kubectl(
      ['create', 'job', 'once', '--image=busybox', '-n', NS, '--', 'echo', 'hi'],
      'job.batch/once created',
    );
    expect(lastCreate('batch/jobs').status).toBe(201);
    expect(await get('job', 'once')).toMatchObject({
      spec: {
        template: {
          spec: { containers: [{ image: 'busybox', command: ['echo', 'hi'] }], restartPolicy: 'Never' },
        },
      },
    });

    await kubectl(
      ['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 0 1 1 *', '-n', NS, '--', 'date'],
      'cronjob.batch/nightly created',
    );
    expect(lastCreate('batch/cronjobs').status).toBe(201);
    const cron = await get('cronjob', 'nightly');
    expect(cron).toMatchObject({
      spec: {
        schedule: '0 0 1 1 *',
        jobTemplate: { spec: { template: { spec: { containers: [{ command: ['date'] }] } } } },
      },
    });

    await kubectl(
      ['create', 'job', 'manual', '--from=cronjob/nightly', '-n', NS],
      'job.batch/manual created',
    );
    const manual = await get('job', 'manual');
    expect(at(manual, 'metadata.annotations')).toMatchObject({
      'cronjob.kubernetes.io/instantiate': 'manual',
    });
    expect(at(manual, 'metadata.ownerReferences')).toEqual([
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        name: 'nightly',
        uid: at(cron, 'metadata.uid'),
        controller: true,
      },
    ]);
  });

  it('kubectl create ingress', async () => {
    await kubectl(
      [
        'create',
        'ingress',
        'web',
        '--class=nginx',
        '--rule=web.example.com/api*=web:80,tls=web-tls',
        '-n',
        NS,
      ],
      'ingress.networking.k8s.io/web created',
    );
    expect(lastCreate('networking.k8s.io/ingresses').status).toBe(201);
    expect(at(await get('ingress', 'web'), 'spec')).toEqual({
      ingressClassName: 'nginx',
      tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }],
      rules: [
        {
          host: 'web.example.com',
          http: {
            paths: [
              {
                path: '/api',
                pathType: 'Prefix',
                backend: { service: { name: 'web', port: { number: 80 } } },
              },
            ],
          },
        },
      ],
    });
  });

  it('answers 400 to bytes that are not protobuf, 415 naming a kind it does not decode', async () => {
    const post = (body: Buffer) =>
      fetch(`${sim.url}/apis/apps/v1/namespaces/${NS}/deployments`, {
        method: 'POST',
        headers: { 'content-type': PROTOBUF },
        body,
      });
    const garbage = await post(Buffer.from('not protobuf'));
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message: expect.stringContaining('provided data does not appear to be a protobuf message'),
    });
    // k8s\0 + Unknown{typeMeta{apiVersion: "node.k8s.io/v1", kind: "RuntimeClass"}}: a kind kube-sim does not serve
    const typeMeta = Buffer.concat([
      Buffer.from([0x0a, 14]),
      Buffer.from('node.k8s.io/v1'),
      Buffer.from([0x12, 12]),
      Buffer.from('RuntimeClass'),
    ]);
    const unknown = Buffer.concat([
      Buffer.from('k8s\0', 'latin1'),
      Buffer.from([0x0a, typeMeta.length]),
      typeMeta,
    ]);
    const runtimeClass = await post(unknown);
    expect(runtimeClass.status).toBe(415);
    expect(await runtimeClass.json()).toMatchObject({
      reason: 'UnsupportedMediaType',
      message: expect.stringContaining('bodies of kind RuntimeClass (node.k8s.io/v1)'),
    });
  });

  describe('helm install, list, upgrade and uninstall (release Secrets in protobuf)', () => {
    let chart: string;
    const releaseSecret = (revision: number) => get('secret', `sh.helm.release.v1.tiny.v${revision}`);

    beforeAll(() => {
      chart = join(cli.dir, 'tiny');
      mkdirSync(join(chart, 'templates'), { recursive: true });
      writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: tiny\nversion: 0.1.0\n');
      writeFileSync(
        join(chart, 'templates', 'cm.yaml'),
        [
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata:',
          '  name: {{ .Release.Name }}-settings',
          'data:',
          '  greeting: {{ .Values.greeting | default "hello" | quote }}',
          '',
        ].join('\n'),
      );
    });

    it('installs: the release Secret is stored, labelled deployed', async () => {
      const install = await cli.helm(['install', 'tiny', chart, '-n', NS]);
      expect(install.stderr).toBe('');
      expect(install.code).toBe(0);
      expect(install.stdout).toContain('STATUS: deployed');
      expect(lastCreate('/secrets').status).toBe(201);
      const updates = sim.requests.entries({
        verb: 'update',
        resource: '/secrets',
        name: 'sh.helm.release.v1.tiny.v1',
      });
      expect(updates.map((u) => [u.contentType, u.status])).toEqual([[PROTOBUF, 200]]);

      const secret = await releaseSecret(1);
      expect(secret).toMatchObject({
        type: 'helm.sh/release.v1',
        metadata: { labels: { owner: 'helm', name: 'tiny', status: 'deployed', version: '1' } },
      });
      // helm stores base64(gzip(release JSON)): the Secret's bytes are that text.
      expect(Buffer.from(at(secret, 'data.release') as string, 'base64').toString('latin1')).toMatch(/^H4sI/);
      expect(at(await get('configmap', 'tiny-settings'), 'data')).toEqual({ greeting: 'hello' });
    });

    it('lists the release', async () => {
      const list = await cli.helm(['list', '-n', NS, '-o', 'json']);
      expect(list.stderr).toBe('');
      expect(JSON.parse(list.stdout)).toMatchObject([
        { name: 'tiny', namespace: NS, revision: '1', status: 'deployed', chart: 'tiny-0.1.0' },
      ]);
    });

    it('upgrades: revision 2 deployed, revision 1 superseded', async () => {
      const upgrade = await cli.helm(['upgrade', 'tiny', chart, '-n', NS, '--set', 'greeting=hi']);
      expect(upgrade.stderr).toBe('');
      expect(upgrade.code).toBe(0);
      expect(at(await releaseSecret(1), 'metadata.labels')).toMatchObject({
        status: 'superseded',
        version: '1',
      });
      expect(at(await releaseSecret(2), 'metadata.labels')).toMatchObject({
        status: 'deployed',
        version: '2',
      });
      expect(at(await get('configmap', 'tiny-settings'), 'data')).toEqual({ greeting: 'hi' });
    });

    it('uninstalls: DeleteOptions in protobuf, the release Secrets gone', async () => {
      const uninstall = await cli.helm(['uninstall', 'tiny', '-n', NS]);
      expect(uninstall.stderr).toBe('');
      expect(uninstall.stdout.trim()).toBe('release "tiny" uninstalled');
      const deletes = sim.requests.entries({ verb: 'delete', resource: '/secrets' });
      expect(deletes.map((d) => [d.name, d.contentType, d.status])).toEqual([
        ['sh.helm.release.v1.tiny.v1', PROTOBUF, 200],
        ['sh.helm.release.v1.tiny.v2', PROTOBUF, 200],
      ]);
      const left = await cli.kubectl(['get', 'secrets', '-n', NS, '-l', 'owner=helm', '-o', 'name']);
      expect(left.stdout.trim()).toBe('');
      const list = await cli.helm(['list', '-n', NS, '-o', 'json']);
      expect(JSON.parse(list.stdout)).toEqual([]);
    });
  });
});

/**
 * Request bodies decode into the kind's Go types as kube-apiserver decodes them: a wrong JSON type
 * anywhere is refused with upstream's wording (400 for a body, 422 on `patch` for a patch's
 * result), `null` is the zero value, and quantities are stored canonical.
 */
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';

const ns = 'strict';
const QUANTITY_REGEXP =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const podSpec = { containers: [{ name: 'c', image: 'busybox:1.36' }] };

function deployment(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: structuredClone(podSpec) },
      ...spec,
    },
  };
}

describe('kube-sim strict decoding into Go types', () => {
  let c: SimClients;

  beforeAll(async () => {
    c = await startSimWithClients({ controllers: false });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  async function send(method: string, path: string, body: unknown, contentType = 'application/json') {
    const res = await fetch(`${c.sim.url}${path}`, {
      method,
      headers: { 'content-type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const badRequest = (message: string) => ({
    status: 400,
    body: expect.objectContaining({ reason: 'BadRequest', message }),
  });

  it('refuses a string for an int32, naming the Go struct field as upstream', async () => {
    expect(await send('POST', deployments, deployment('a', { replicas: '3' }))).toEqual(
      badRequest(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      ),
    );
  });

  it('refuses a float for an int32 with the literal, and a number for a string deep in a list', async () => {
    expect(await send('POST', deployments, deployment('b', { replicas: 1.5 }))).toEqual(
      badRequest(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
      ),
    );
    const env = deployment('b');
    (env.spec.template.spec as { containers: unknown[] }).containers = [
      { name: 'c', image: 'busybox', env: [{ name: 'PORT', value: 8080 }] },
    ];
    expect(await send('POST', deployments, env)).toEqual(
      badRequest(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number into Go struct field EnvVar.spec.template.spec.containers.env.value of type string',
      ),
    );
    expect(await send('POST', deployments, deployment('b', { template: 'x' }))).toEqual(
      badRequest(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.template of type v1.PodTemplateSpec',
      ),
    );
    expect(
      await send('POST', deployments, deployment('b', { template: { spec: { containers: {} } } })),
    ).toEqual(
      badRequest(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container',
      ),
    );
  });

  it('reads numbers as Go does, from their spelling: 1e+06 and 1.0 are no int32, a bare 1e3 quantity keeps its form', async () => {
    const text = (replicas: string) =>
      JSON.stringify(deployment('spelled', { replicas: 0 })).replace(
        '"replicas":0',
        `"replicas":${replicas}`,
      );
    expect(await send('POST', deployments, text('1e+06'))).toEqual(
      badRequest(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1e+06 into Go struct field DeploymentSpec.spec.replicas of type int32',
      ),
    );
    expect(await send('POST', deployments, text('1.0'))).toEqual(
      badRequest(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.0 into Go struct field DeploymentSpec.spec.replicas of type int32',
      ),
    );
    const pod = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'spelled' },
      spec: {
        containers: [{ name: 'c', image: 'busybox', resources: { limits: { memory: 'M', cpu: 'C' } } }],
      },
    })
      .replace('"M"', '1e3')
      .replace('"C"', '1.0');
    const created = await send('POST', `/api/v1/namespaces/${ns}/pods`, pod);
    expect(created.status).toBe(201);
    const spec = created.body.spec as { containers: { resources: { limits: Record<string, string> } }[] };
    expect(spec.containers[0]?.resources.limits).toEqual({ memory: '1e3', cpu: '1' });
  });

  it('refuses a ConfigMap data value that is not a string, and Secret data that is not base64', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 1 } };
    expect(await send('POST', `/api/v1/namespaces/${ns}/configmaps`, cm)).toEqual(
      badRequest(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
      ),
    );
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'not base64' } };
    expect(await send('POST', `/api/v1/namespaces/${ns}/secrets`, secret)).toEqual(
      badRequest('Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3'),
    );
    const unpadded = { ...secret, data: { a: 'YQ' } };
    expect(await send('POST', `/api/v1/namespaces/${ns}/secrets`, unpadded)).toEqual(
      badRequest('Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0'),
    );
  });

  it('decodes kinds whose client-node model carries a group prefix (core/v1 Event is CoreV1Event)', async () => {
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
      count: 'many',
    };
    expect(await send('POST', `/api/v1/namespaces/${ns}/events`, event)).toEqual(
      badRequest(
        'Event in version "v1" cannot be handled as a Event: json: cannot unmarshal string into Go struct field Event.count of type int32',
      ),
    );
  });

  it('takes both forms of an IntOrString, and refuses anything else with its own decoder words', async () => {
    const service = (targetPort: unknown) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `svc-${typeof targetPort}` },
      spec: { ports: [{ port: 80, targetPort }] },
    });
    const services = `/api/v1/namespaces/${ns}/services`;
    expect((await send('POST', services, service('http'))).status).toBe(201);
    expect((await send('POST', services, service(8080))).status).toBe(201);
    expect(await send('POST', services, service(true))).toEqual(
      badRequest(
        'Service in version "v1" cannot be handled as a Service: json: cannot unmarshal bool into Go value of type int32',
      ),
    );
    expect(
      await send(
        'POST',
        deployments,
        deployment('surge', { strategy: { rollingUpdate: { maxSurge: 1.5 } } }),
      ),
    ).toEqual(
      badRequest(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go value of type int32',
      ),
    );
  });

  it('decodes null as the zero value: defaults apply as if the field were absent', async () => {
    const created = await send(
      'POST',
      deployments,
      deployment('nulls', { replicas: null, minReadySeconds: null, paused: null }),
    );
    expect(created.status).toBe(201);
    const spec = created.body.spec as Record<string, unknown>;
    expect(spec.replicas).toBe(1);
    expect('minReadySeconds' in spec).toBe(false);
    expect('paused' in spec).toBe(false);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'null-value' }, data: { a: null } };
    const stored = await send('POST', `/api/v1/namespaces/${ns}/configmaps`, cm);
    expect(stored.body.data).toEqual({ a: '' });
  });

  it('refuses a timestamp that is not RFC 3339 with Go time.Parse wording', async () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 't', creationTimestamp: 'yesterday' },
    };
    expect(await send('POST', `/api/v1/namespaces/${ns}/configmaps`, cm)).toEqual(
      badRequest(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
      ),
    );
  });

  it('stores quantities in canonical form and refuses malformed ones', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'q' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'busybox',
            resources: {
              requests: { cpu: '0.5', memory: '1024Mi', 'ephemeral-storage': '1e3' },
              limits: { cpu: '1000m', memory: 2147483648, 'ephemeral-storage': '1e3' },
            },
          },
        ],
      },
    };
    const created = await c.core.createNamespacedPod({ namespace: ns, body: pod as unknown as k8s.V1Pod });
    expect(created.spec?.containers[0]?.resources).toEqual({
      requests: { cpu: '500m', memory: '1Gi', 'ephemeral-storage': '1e3' },
      // A bare number has no suffix: decimal SI, so it stays digits (upstream does not pick Gi).
      limits: { cpu: '1', memory: '2147483648', 'ephemeral-storage': '1e3' },
    });
    const bad = structuredClone(pod);
    bad.metadata.name = 'q2';
    bad.spec.containers[0]!.resources.requests.memory = '512MB';
    expect(await send('POST', `/api/v1/namespaces/${ns}/pods`, bad)).toEqual(
      badRequest(`Pod in version "v1" cannot be handled as a Pod: ${QUANTITY_REGEXP}`),
    );
    const claim = await c.core.createNamespacedPersistentVolumeClaim({
      namespace: ns,
      body: {
        metadata: { name: 'claim' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } },
      },
    });
    expect(claim.spec?.resources?.requests).toEqual({ storage: '1Gi' });
  });

  it('decodes the result of a patch: merge and JSON patches 422 with the patched JSON, strategic with the converter words', async () => {
    expect((await send('POST', deployments, deployment('patched'))).status).toBe(201);
    const path = `${deployments}/patched`;
    const merge = await send('PATCH', path, { spec: { replicas: 'x' } }, 'application/merge-patch+json');
    expect(merge.status).toBe(422);
    const mergeMessage = String(merge.body.message);
    expect(mergeMessage.startsWith(' "" is invalid: patch: Invalid value: "{')).toBe(true);
    expect(mergeMessage).toContain('\\"replicas\\":\\"x\\"');
    expect(
      mergeMessage.endsWith(
        '": json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      ),
    ).toBe(true);
    expect(merge.body.details).toEqual({
      causes: [expect.objectContaining({ reason: 'FieldValueInvalid', field: 'patch' })],
    });
    const jsonPatch = await send(
      'PATCH',
      path,
      [{ op: 'replace', path: '/spec/replicas', value: 1.5 }],
      'application/json-patch+json',
    );
    expect(jsonPatch.status).toBe(422);
    expect(String(jsonPatch.body.message)).toMatch(
      /json: cannot unmarshal number 1\.5 into Go struct field DeploymentSpec\.spec\.replicas of type int32$/,
    );
    const strategic = await send(
      'PATCH',
      path,
      { spec: { replicas: 'x' } },
      'application/strategic-merge-patch+json',
    );
    expect(strategic).toEqual({
      status: 422,
      body: expect.objectContaining({
        reason: 'Invalid',
        message:
          ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:x]]": unrecognized type: int32',
      }),
    });
    const float = await send(
      'PATCH',
      path,
      { spec: { replicas: 2.5 } },
      'application/strategic-merge-patch+json',
    );
    expect(float.body.message).toBe(
      ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:2.5]]": cannot convert float64 to int32',
    );
    // Nothing was stored by the refused patches.
    const live = await c.apps.readNamespacedDeployment({ namespace: ns, name: 'patched' });
    expect(live.spec?.replicas).toBe(1);
    // A good patch still goes through, and canonicalizes what it sets.
    const ok = await send(
      'PATCH',
      path,
      {
        spec: { template: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: 0.25 } } }] } } },
      },
      'application/strategic-merge-patch+json',
    );
    expect(ok.status).toBe(200);
    const containers = (ok.body.spec as { template: { spec: { containers: k8s.V1Container[] } } }).template
      .spec.containers[0];
    expect(containers?.resources?.requests).toEqual({ cpu: '250m' });
  });

  it('decodes apply bodies and subresource bodies (status, scale)', async () => {
    const apply = await send(
      'PATCH',
      `${deployments}/applied?fieldManager=test`,
      deployment('applied', { replicas: '3' }),
      'application/apply-patch+yaml',
    );
    expect(apply).toEqual(
      badRequest(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      ),
    );
    const live = await c.apps.readNamespacedDeployment({ namespace: ns, name: 'patched' });
    const scale = await send('PUT', `${deployments}/patched/scale`, {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'patched', namespace: ns },
      spec: { replicas: '2' },
    });
    expect(scale).toEqual(
      badRequest(
        'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32',
      ),
    );
    const scalePatch = await send(
      'PATCH',
      `${deployments}/patched/scale`,
      { spec: { replicas: 'two' } },
      'application/merge-patch+json',
    );
    expect(scalePatch.status).toBe(422);
    const status = await send('PUT', `${deployments}/patched/status`, {
      ...live,
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      status: { replicas: 'x' },
    });
    expect(status).toEqual(
      badRequest(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentStatus.status.replicas of type int32',
      ),
    );
  });

  it('shows real kubectl the upstream message, and stores its quantities canonical', async () => {
    const cli = await kubeCli(c.sim);
    const manifest = (replicas: string, cpu: string) =>
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  name: kubectl-web',
        `  namespace: ${ns}`,
        'spec:',
        `  replicas: ${replicas}`,
        '  selector: {matchLabels: {app: kubectl-web}}',
        '  template:',
        '    metadata: {labels: {app: kubectl-web}}',
        '    spec:',
        '      containers:',
        `      - {name: c, image: busybox, resources: {requests: {cpu: ${cpu}}}}`,
        '',
      ].join('\n');
    const bad = cli.file('bad.yaml', manifest('"3"', '100m'));
    const refused = await cli.kubectl(['create', '-f', bad]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe(
      `Error from server (BadRequest): error when creating "${bad}": Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
    );
    const good = cli.file('good.yaml', manifest('3', '0.5'));
    expect((await cli.kubectl(['create', '-f', good])).stdout.trim()).toBe(
      'deployment.apps/kubectl-web created',
    );
    const cpu = await cli.kubectl([
      'get',
      'deployment',
      'kubectl-web',
      '-n',
      ns,
      '-o',
      'jsonpath={.spec.template.spec.containers[0].resources.requests.cpu}',
    ]);
    expect(cpu.stdout).toBe('500m');
  });
});

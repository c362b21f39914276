/**
 * CustomResourceDefinitions with the real kubectl 1.33 and @kubernetes/client-node: cert-manager's
 * Certificate, Issuer and ClusterIssuer and KEDA's ScaledObject CRDs applied from their published
 * manifests
 * (test/fixtures/kube-sim/crds), established, served (discovery, OpenAPI, CRUD, watch, status),
 * their objects pruned, defaulted and validated by the schema, and gone with their CRD.
 */
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/kube-sim/crds');
const CERTIFICATES = join(FIXTURES, 'cert-manager.io_certificates.yaml');
const SCALED_OBJECTS = join(FIXTURES, 'keda.sh_scaledobjects.yaml');
const ISSUERS = join(FIXTURES, 'cert-manager.io_issuers.yaml');
const CLUSTER_ISSUERS = join(FIXTURES, 'cert-manager.io_clusterissuers.yaml');
const ns = 'apps';

const certificate = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'cert-manager.io/v1',
  kind: 'Certificate',
  metadata: { name, namespace: ns },
  spec: { secretName: `${name}-tls`, issuerRef: { name: 'ca', kind: 'ClusterIssuer' }, ...extra },
});

const scaledObject = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'keda.sh/v1alpha1',
  kind: 'ScaledObject',
  metadata: { name, namespace: ns },
  spec: {
    scaleTargetRef: { name: 'web' },
    triggers: [{ type: 'cpu', metadata: { value: '60' } }],
    ...extra,
  },
});

describe('CustomResourceDefinitions', () => {
  let c: SimClients;
  let cli: KubeCli;
  let custom: k8s.CustomObjectsApi;

  beforeAll(async () => {
    c = await startSimWithClients({ controllers: false });
    cli = await kubeCli(c.sim);
    custom = c.kc.makeApiClient(k8s.CustomObjectsApi);
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
    const applied = await cli.kubectl(['apply', '-f', CERTIFICATES, '-f', SCALED_OBJECTS]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim().split('\n')).toEqual([
      'customresourcedefinition.apiextensions.k8s.io/certificates.cert-manager.io created',
      'customresourcedefinition.apiextensions.k8s.io/scaledobjects.keda.sh created',
    ]);
  });
  afterAll(() => c.sim.stop());

  it('establishes the published CRDs, as kubectl wait sees it', async () => {
    const waited = await cli.kubectl([
      'wait',
      '--for',
      'condition=established',
      '--timeout=20s',
      'crd/certificates.cert-manager.io',
      'crd/scaledobjects.keda.sh',
    ]);
    expect(waited.stderr).toBe('');
    expect(waited.code).toBe(0);
    const crd = parse(
      (await cli.kubectl(['get', 'crd', 'certificates.cert-manager.io', '-o', 'yaml'])).stdout,
    ) as {
      status: {
        conditions: { type: string; status: string }[];
        acceptedNames: unknown;
        storedVersions: string[];
      };
    };
    expect(crd.status.conditions.map((x) => `${x.type}=${x.status}`)).toEqual([
      'NamesAccepted=True',
      'Established=True',
    ]);
    expect(crd.status.acceptedNames).toEqual({
      plural: 'certificates',
      singular: 'certificate',
      shortNames: ['cert', 'certs'],
      kind: 'Certificate',
      listKind: 'CertificateList',
      categories: ['cert-manager'],
    });
    expect(crd.status.storedVersions).toEqual(['v1']);
  });

  it('serves the custom resources in discovery and OpenAPI', async () => {
    const resources = await cli.kubectl(['api-resources', '--api-group', 'cert-manager.io', '--no-headers']);
    expect(resources.stdout.trim().split(/\s+/)).toEqual([
      'certificates',
      'cert,certs',
      'cert-manager.io/v1',
      'true',
      'Certificate',
    ]);
    const explained = await cli.kubectl(['explain', 'scaledobject.spec.scaleTargetRef']);
    expect(explained.stderr).toBe('');
    expect(explained.stdout).toContain('name\t<string> -required-');
  });

  it('prunes unknown fields with fieldValidation=Ignore and refuses them with kubectl (Strict)', async () => {
    const created = (await custom.createNamespacedCustomObject({
      group: 'cert-manager.io',
      version: 'v1',
      namespace: ns,
      plural: 'certificates',
      body: certificate('pruned', { dnsNames: ['web.example'], colour: 'blue' }),
      fieldValidation: 'Ignore',
    })) as { spec: Record<string, unknown> };
    expect(created.spec).toEqual({
      secretName: 'pruned-tls',
      issuerRef: { name: 'ca', kind: 'ClusterIssuer' },
      dnsNames: ['web.example'],
    });
    const read = (await custom.getNamespacedCustomObject({
      group: 'cert-manager.io',
      version: 'v1',
      namespace: ns,
      plural: 'certificates',
      name: 'pruned',
    })) as { spec: Record<string, unknown> };
    expect(read.spec).not.toHaveProperty('colour');

    const so = (await custom.createNamespacedCustomObject({
      group: 'keda.sh',
      version: 'v1alpha1',
      namespace: ns,
      plural: 'scaledobjects',
      body: scaledObject('pruned', {
        maxReplicaCount: 5,
        triggers: [{ type: 'cpu', metadata: { value: '60' }, colour: 'red' }],
      }),
      fieldValidation: 'Ignore',
    })) as { spec: { triggers: unknown[]; maxReplicaCount: number } };
    expect(so.spec.triggers).toEqual([{ type: 'cpu', metadata: { value: '60' } }]);
    expect(so.spec.maxReplicaCount).toBe(5);

    const strict = await cli.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify(certificate('strict', { colour: 'blue' })),
    );
    expect(strict.code).not.toBe(0);
    expect(strict.stderr.trim()).toBe(
      'Error from server (BadRequest): error when creating "STDIN": Certificate in version "v1" cannot be handled as a Certificate: strict decoding error: unknown field "spec.colour"',
    );
  });

  it('lists them with kubectl get, and applies them server-side with managed fields', async () => {
    const file = cli.file('so.yaml', JSON.stringify(scaledObject('web')));
    const applied = await cli.kubectl(['apply', '--server-side', '-f', file]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toBe('scaledobject.keda.sh/web serverside-applied');
    const so = parse(
      (await cli.kubectl(['get', 'so', 'web', '-n', ns, '-o', 'yaml', '--show-managed-fields'])).stdout,
    ) as {
      metadata: { managedFields: { manager: string; operation: string }[] };
    };
    expect(so.metadata.managedFields.map((m) => `${m.manager} ${m.operation}`)).toEqual(['kubectl Apply']);

    const certs = await cli.kubectl(['get', 'certificates', '-n', ns, '-o', 'name']);
    expect(certs.stdout.trim()).toBe('certificate.cert-manager.io/pruned');
    // The CRD's additionalPrinterColumns, as kubectl prints them (Issuer and Status only wide).
    const table = await cli.kubectl(['get', 'certificates', '-n', ns]);
    expect(table.stdout.split('\n')[0]?.split(/\s{2,}/)).toEqual(['NAME', 'READY', 'SECRET', 'AGE']);
    const wide = await cli.kubectl(['get', 'certificates', '-n', ns, '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]?.split(/\s{2,}/)).toEqual([
      'NAME',
      'READY',
      'SECRET',
      'ISSUER',
      'STATUS',
      'AGE',
    ]);
    const sos = await cli.kubectl(['get', 'scaledobjects', '-n', ns, '-o', 'name']);
    expect(sos.stdout.trim().split('\n')).toEqual([
      'scaledobject.keda.sh/pruned',
      'scaledobject.keda.sh/web',
    ]);
    const selected = await cli.kubectl([
      'get',
      'scaledobjects',
      '-n',
      ns,
      '--field-selector',
      'metadata.name=web',
      '-o',
      'name',
    ]);
    expect(selected.stdout.trim()).toBe('scaledobject.keda.sh/web');
  });

  it('applies client-side twice (create, then a merge patch of the change)', async () => {
    const file = cli.file('cert.yaml', JSON.stringify(certificate('client', { duration: '2h' })));
    expect((await cli.kubectl(['apply', '-f', file])).stdout.trim()).toBe(
      'certificate.cert-manager.io/client created',
    );
    cli.file('cert.yaml', JSON.stringify(certificate('client', { duration: '4h' })));
    const second = await cli.kubectl(['apply', '-f', file]);
    expect(second.stderr).toBe('');
    expect(second.stdout.trim()).toBe('certificate.cert-manager.io/client configured');
    const read = (await custom.getNamespacedCustomObject({
      group: 'cert-manager.io',
      version: 'v1',
      namespace: ns,
      plural: 'certificates',
      name: 'client',
    })) as { spec: { duration: string } };
    expect(read.spec.duration).toBe('4h');
  });

  it('validates objects against the schema (422 with upstream texts)', async () => {
    const status = await statusOf(
      custom.createNamespacedCustomObject({
        group: 'cert-manager.io',
        version: 'v1',
        namespace: ns,
        plural: 'certificates',
        body: {
          ...certificate('bad', { privateKey: { algorithm: 'DSA', size: 'big' } }),
          spec: { issuerRef: { name: 'ca' }, privateKey: { algorithm: 'DSA', size: 'big' } },
        },
      }),
    );
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.message).toBe(
      'Certificate.cert-manager.io "bad" is invalid: [spec.secretName: Required value, spec.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519", spec.privateKey.size: Invalid value: "string": spec.privateKey.size in body must be of type integer: "string"]',
    );
    const kubectl = await cli.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify(scaledObject('bad', { triggers: 'cpu' })),
    );
    expect(kubectl.stderr.trim()).toBe(
      'The ScaledObject "bad" is invalid: spec.triggers: Invalid value: "string": spec.triggers in body must be of type array: "string"',
    );
  });

  it('refuses strategic merge patch with 415 and accepts merge and JSON patch', async () => {
    const strategic = await cli.kubectl([
      'patch',
      'certificate',
      'pruned',
      '-n',
      ns,
      '--type',
      'strategic',
      '-p',
      '{"spec":{"duration":"2h"}}',
    ]);
    // kubectl wraps the server's 415 in its own words.
    expect(strategic.stderr.trim()).toBe(
      'error: application/strategic-merge-patch+json is not supported by cert-manager.io/v1, Kind=Certificate: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
    const merge = await cli.kubectl([
      'patch',
      'certificate',
      'pruned',
      '-n',
      ns,
      '--type',
      'merge',
      '-p',
      '{"spec":{"duration":"2h"}}',
    ]);
    expect(merge.stdout.trim()).toBe('certificate.cert-manager.io/pruned patched');
    const json = await cli.kubectl([
      'patch',
      'certificate',
      'pruned',
      '-n',
      ns,
      '--type',
      'json',
      '-p',
      '[{"op":"replace","path":"/spec/duration","value":"3h"}]',
    ]);
    expect(json.stdout.trim()).toBe('certificate.cert-manager.io/pruned patched');
    const read = (await custom.getNamespacedCustomObject({
      group: 'cert-manager.io',
      version: 'v1',
      namespace: ns,
      plural: 'certificates',
      name: 'pruned',
    })) as { spec: { duration: string } };
    expect(read.spec.duration).toBe('3h');
  });

  it('keeps status to the status subresource', async () => {
    const path = {
      group: 'cert-manager.io',
      version: 'v1',
      namespace: ns,
      plural: 'certificates',
      name: 'pruned',
    };
    const current = (await custom.getNamespacedCustomObject(path)) as Record<string, unknown>;
    const replaced = (await custom.replaceNamespacedCustomObject({
      ...path,
      body: { ...current, status: { revision: 1 } },
    })) as { status?: unknown };
    expect(replaced.status).toBeUndefined();
    const fresh = (await custom.getNamespacedCustomObject(path)) as Record<string, unknown>;
    const withStatus = (await custom.replaceNamespacedCustomObjectStatus({
      ...path,
      body: { ...fresh, status: { revision: 1 } },
    })) as { status?: unknown };
    expect(withStatus.status).toEqual({ revision: 1 });
    // Generation follows spec changes only: the merge and JSON patches above made it 3.
    expect((withStatus as { metadata: { generation: number } }).metadata.generation).toBe(3);
  });

  it('streams watch events of custom resources', async () => {
    const seen: string[] = [];
    const request = await new k8s.Watch(c.kc).watch(
      `/apis/cert-manager.io/v1/namespaces/${ns}/certificates`,
      { labelSelector: 'watched=yes' },
      (type, object: { kind?: string; metadata?: { name?: string } }) =>
        seen.push(`${type} ${object.kind} ${object.metadata?.name}`),
      () => undefined,
    );
    await custom.createNamespacedCustomObject({
      group: 'cert-manager.io',
      version: 'v1',
      namespace: ns,
      plural: 'certificates',
      body: {
        ...certificate('watched'),
        metadata: { name: 'watched', namespace: ns, labels: { watched: 'yes' } },
      },
    });
    await until(() => (seen.length > 0 ? seen : undefined), 'the ADDED event');
    expect(seen).toEqual(['ADDED Certificate watched']);
    request.abort();
  });

  it('deleting the CRD deletes its custom resources and stops serving them', async () => {
    expect(c.sim.store.list('cert-manager.io/certificates').length).toBeGreaterThan(0);
    const deleted = await cli.kubectl(['delete', 'crd', 'certificates.cert-manager.io']);
    expect(deleted.stdout.trim()).toBe(
      'customresourcedefinition.apiextensions.k8s.io "certificates.cert-manager.io" deleted',
    );
    await until(
      () =>
        c.sim.store.list('apiextensions.k8s.io/customresourcedefinitions').length === 1 ? true : undefined,
      'the CRD to go',
    );
    expect(c.sim.store.list('cert-manager.io/certificates')).toEqual([]);
    const res = await fetch(`${c.sim.url}/apis/cert-manager.io/v1/namespaces/${ns}/certificates`);
    expect(res.status).toBe(404);
    const groups = (await (await fetch(`${c.sim.url}/apis`)).json()) as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).not.toContain('cert-manager.io');
    expect(groups.groups.map((g) => g.name)).toContain('keda.sh');
  });

  it('deleting a namespace deletes the custom resources in it', async () => {
    expect(c.sim.store.list('keda.sh/scaledobjects', ns).length).toBe(2);
    await c.core.deleteNamespace({ name: ns });
    await until(
      () => (c.sim.store.get('/namespaces', undefined, ns) ? undefined : true),
      'the namespace to go',
    );
    expect(c.sim.store.list('keda.sh/scaledobjects', ns)).toEqual([]);
  });
});

describe('CRD validation and schema defaulting', () => {
  let c: SimClients;
  let custom: k8s.CustomObjectsApi;
  /** POSTs a CRD as JSON: client-node's typed API would re-serialize (and drop) `x-kubernetes-*` and `default`. */
  const createCrd = async (body: unknown) => {
    const res = await fetch(`${c.sim.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { code: res.status, body: (await res.json()) as { message?: string } };
  };

  beforeAll(async () => {
    c = await startSimWithClients({ controllers: false });
    custom = c.kc.makeApiClient(k8s.CustomObjectsApi);
  });
  afterAll(() => c.sim.stop());

  const widgetCrd = (overrides: Record<string, unknown> = {}) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Cluster',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    size: { type: 'integer', default: 3, minimum: 1 },
                    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
              },
            },
          },
        },
        { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
      ],
      ...overrides,
    },
  });

  it('refuses CRDs that break upstream rules', async () => {
    const status = await createCrd(
      widgetCrd({
        versions: [
          {
            name: 'v1',
            served: true,
            storage: false,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: {} } } } },
          },
        ],
      }),
    );
    expect(status.code).toBe(422);
    expect(status.body.message).toMatch(
      /^CustomResourceDefinition\.apiextensions\.k8s\.io "widgets\.example\.com" is invalid: \[spec\.versions: Invalid value: .*: must have exactly one version marked as storage version, spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.type: Required value: must not be empty for specified object fields\]$/,
    );
    const misnamed = await createCrd({ ...widgetCrd(), metadata: { name: 'gadgets.example.com' } });
    expect(misnamed.body.message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "gadgets.example.com" is invalid: metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group',
    );
  });

  it('defaults from the schema, keeps preserved fields and serves every version', async () => {
    expect((await createCrd(widgetCrd())).code).toBe(201);
    await c.sim.settle();
    const created = (await custom.createClusterCustomObject({
      group: 'example.com',
      version: 'v1',
      plural: 'widgets',
      body: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { free: { any: { thing: 1 } } },
      },
    })) as { spec: unknown };
    expect(created.spec).toEqual({ size: 3, free: { any: { thing: 1 } } });
    const tooSmall = await statusOf(
      custom.createClusterCustomObject({
        group: 'example.com',
        version: 'v1',
        plural: 'widgets',
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' }, spec: { size: 0 } },
      }),
    );
    expect(tooSmall.message).toBe(
      'Widget.example.com "x" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1',
    );
    // Conversion None: the other served version reads the same object under its own apiVersion.
    const asBeta = (await custom.getClusterCustomObject({
      group: 'example.com',
      version: 'v1beta1',
      plural: 'widgets',
      name: 'w',
    })) as { apiVersion: string; spec: unknown };
    expect(asBeta.apiVersion).toBe('example.com/v1beta1');
    expect(asBeta.spec).toEqual({ size: 3, free: { any: { thing: 1 } } });
  });
  it('garbage-collects dependents of a custom resource', async () => {
    const owner = (await custom.createClusterCustomObject({
      group: 'example.com',
      version: 'v1',
      plural: 'widgets',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'owner' }, spec: {} },
    })) as { metadata: { uid: string } };
    await c.core.createNamespacedConfigMap({
      namespace: 'default',
      body: {
        metadata: {
          name: 'owned',
          ownerReferences: [
            { apiVersion: 'example.com/v1', kind: 'Widget', name: 'owner', uid: owner.metadata.uid },
          ],
        },
      },
    });
    await custom.deleteClusterCustomObject({
      group: 'example.com',
      version: 'v1',
      plural: 'widgets',
      name: 'owner',
    });
    await until(
      () => (c.sim.store.get('/configmaps', 'default', 'owned') ? undefined : true),
      'the owned ConfigMap to be collected',
    );
  });
});

/**
 * cert-manager's Issuer and ClusterIssuer CRDs (test/fixtures/kube-sim/crds, 118 kB each: the ACME
 * solvers' pod template schema) applied with the real kubectl, and objects of both read back
 * through the CRDs' additionalPrinterColumns (Ready, Status at priority 1, Age).
 */
describe('cert-manager Issuer and ClusterIssuer', () => {
  let c: SimClients;
  let cli: KubeCli;
  let custom: k8s.CustomObjectsApi;
  const issuerNs = 'certs';
  const issuers = { group: 'cert-manager.io', version: 'v1', namespace: issuerNs, plural: 'issuers' };
  const clusterIssuers = { group: 'cert-manager.io', version: 'v1', plural: 'clusterissuers' };
  const acme = (solvers: unknown[]) => ({
    server: 'https://acme.example.com/directory',
    email: 'ops@example.com',
    privateKeySecretRef: { name: 'acme-account' },
    solvers,
  });
  const issuer = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'cert-manager.io/v1',
    kind: 'Issuer',
    metadata: { name, namespace: issuerNs },
    spec,
  });
  const clusterIssuer = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'cert-manager.io/v1',
    kind: 'ClusterIssuer',
    metadata: { name },
    spec,
  });

  beforeAll(async () => {
    c = await startSimWithClients({ controllers: false });
    cli = await kubeCli(c.sim);
    custom = c.kc.makeApiClient(k8s.CustomObjectsApi);
    await c.core.createNamespace({ body: { metadata: { name: issuerNs } } });
  });
  afterAll(() => c.sim.stop());

  it('applies the published CRDs with kubectl and establishes them', async () => {
    const applied = await cli.kubectl(['apply', '-f', ISSUERS, '-f', CLUSTER_ISSUERS]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim().split('\n')).toEqual([
      'customresourcedefinition.apiextensions.k8s.io/issuers.cert-manager.io created',
      'customresourcedefinition.apiextensions.k8s.io/clusterissuers.cert-manager.io created',
    ]);
    const waited = await cli.kubectl([
      'wait',
      '--for',
      'condition=established',
      '--timeout=20s',
      'crd/issuers.cert-manager.io',
      'crd/clusterissuers.cert-manager.io',
    ]);
    expect(waited.stderr).toBe('');
    const resources = await cli.kubectl(['api-resources', '--api-group', 'cert-manager.io', '--no-headers']);
    expect(
      resources.stdout
        .trim()
        .split('\n')
        .map((line) => line.trim().split(/\s+/)),
    ).toEqual([
      ['clusterissuers', 'cert-manager.io/v1', 'false', 'ClusterIssuer'],
      ['issuers', 'cert-manager.io/v1', 'true', 'Issuer'],
    ]);
    const explained = await cli.kubectl(['explain', 'clusterissuer.spec.acme.privateKeySecretRef']);
    expect(explained.stderr).toBe('');
    expect(explained.stdout).toContain('name\t<string>');
  });

  it('creates a selfSigned Issuer and an ACME ClusterIssuer and prints them with the CRD columns', async () => {
    const manifests = [
      issuer('selfsigned', { selfSigned: {} }),
      clusterIssuer('letsencrypt', { acme: acme([{ http01: { ingress: { class: 'nginx' } } }]) }),
    ];
    const applied = await cli.kubectl(
      ['apply', '-f', '-'],
      manifests.map((m) => JSON.stringify(m)).join('\n'),
    );
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim().split('\n')).toEqual([
      'issuer.cert-manager.io/selfsigned created',
      'clusterissuer.cert-manager.io/letsencrypt created',
    ]);
    // What cert-manager's controller would write once the account is registered.
    for (const [path, name, message] of [
      [issuers, 'selfsigned', 'Signing CA verified'],
      [clusterIssuers, 'letsencrypt', 'The ACME account was registered with the ACME server'],
    ] as const) {
      const status = {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: name === 'selfsigned' ? 'IsReady' : 'ACMEAccountRegistered',
            message,
            lastTransitionTime: '2026-01-02T03:04:05Z',
          },
        ],
      };
      const url = `${c.sim.url}/apis/cert-manager.io/v1/${'namespace' in path ? `namespaces/${issuerNs}/` : ''}${path.plural}/${name}/status`;
      const res = await fetch(url, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ status }),
      });
      expect(res.status, await res.text()).toBe(200);
    }

    const got = await cli.kubectl(['get', 'issuers,clusterissuers', '-n', issuerNs]);
    expect(got.stderr).toBe('');
    const blocks = got.stdout.trim().split('\n\n');
    expect(blocks.map((b) => b.split('\n').map((line) => line.trim().split(/\s{2,}/)))).toEqual([
      [
        ['NAME', 'READY', 'AGE'],
        ['issuer.cert-manager.io/selfsigned', 'True', expect.stringMatching(/^\d+s$/)],
      ],
      [
        ['NAME', 'READY', 'AGE'],
        ['clusterissuer.cert-manager.io/letsencrypt', 'True', expect.stringMatching(/^\d+s$/)],
      ],
    ]);
    // Status has priority 1: only with -o wide, between Ready and Age as the CRD orders them.
    const wide = await cli.kubectl(['get', 'clusterissuers', '-o', 'wide']);
    expect(wide.stderr).toBe('');
    expect(
      wide.stdout
        .trim()
        .split('\n')
        .map((line) => line.trim().split(/\s{2,}/)),
    ).toEqual([
      ['NAME', 'READY', 'STATUS', 'AGE'],
      [
        'letsencrypt',
        'True',
        'The ACME account was registered with the ACME server',
        expect.stringMatching(/^\d+s$/),
      ],
    ]);
    const issuerWide = await cli.kubectl(['get', 'issuers', '-n', issuerNs, '-o', 'wide']);
    expect(
      issuerWide.stdout
        .split('\n')[0]
        ?.trim()
        .split(/\s{2,}/),
    ).toEqual(['NAME', 'READY', 'STATUS', 'AGE']);
  });

  it('prunes unknown fields, keeps the webhook config (preserve-unknown-fields) and defaults parentRefs', async () => {
    const created = (await custom.createClusterCustomObject({
      ...clusterIssuers,
      body: clusterIssuer('pruned', {
        acme: acme([
          {
            http01: { ingress: { class: 'nginx', colour: 'blue' } },
            selector: { dnsZones: ['example.com'], weight: 3 },
          },
          {
            dns01: {
              webhook: {
                groupName: 'acme.example.com',
                solverName: 'example',
                config: { apiKey: { nested: [1, 2] }, anything: true },
              },
            },
          },
          {
            http01: { gatewayHTTPRoute: { parentRefs: [{ name: 'gateway' }] } },
          },
        ]),
      }),
      fieldValidation: 'Ignore',
    })) as { spec: { acme: { solvers: unknown[] }; colour?: unknown } };
    expect(created.spec.acme.solvers).toEqual([
      { http01: { ingress: { class: 'nginx' } }, selector: { dnsZones: ['example.com'] } },
      {
        dns01: {
          webhook: {
            groupName: 'acme.example.com',
            solverName: 'example',
            config: { apiKey: { nested: [1, 2] }, anything: true },
          },
        },
      },
      // The schema's defaults for a Gateway API parentRef.
      {
        http01: {
          gatewayHTTPRoute: {
            parentRefs: [{ name: 'gateway', group: 'gateway.networking.k8s.io', kind: 'Gateway' }],
          },
        },
      },
    ]);
    const issuerCreated = (await custom.createNamespacedCustomObject({
      ...issuers,
      body: {
        ...issuer('pruned', { selfSigned: { crlDistributionPoints: ['http://crl.example'] } }),
        extra: 1,
      },
      fieldValidation: 'Ignore',
    })) as Record<string, unknown>;
    expect(issuerCreated).not.toHaveProperty('extra');
    expect(issuerCreated.spec).toEqual({ selfSigned: { crlDistributionPoints: ['http://crl.example'] } });

    // kubectl asks for Strict: the same unknown field is refused, with the path in the schema.
    const strict = await cli.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify(issuer('strict', { selfSigned: { colour: 'blue' } })),
    );
    expect(strict.code).not.toBe(0);
    expect(strict.stderr.trim()).toBe(
      'Error from server (BadRequest): error when creating "STDIN": Issuer in version "v1" cannot be handled as a Issuer: strict decoding error: unknown field "spec.selfSigned.colour"',
    );
  });

  it('refuses wrong types, missing required fields and bad enum and pattern values (422 with upstream texts)', async () => {
    const wrongType = await statusOf(
      custom.createNamespacedCustomObject({
        ...issuers,
        body: issuer('bad', { selfSigned: { crlDistributionPoints: 'http://crl.example' } }),
      }),
    );
    expect(wrongType.code).toBe(422);
    expect(wrongType.message).toBe(
      'Issuer.cert-manager.io "bad" is invalid: spec.selfSigned.crlDistributionPoints: Invalid value: "string": spec.selfSigned.crlDistributionPoints in body must be of type array: "string"',
    );
    const missing = await statusOf(
      custom.createClusterCustomObject({
        ...clusterIssuers,
        body: clusterIssuer('bad', {
          acme: { privateKeySecretRef: {}, solvers: [{ dns01: { cnameStrategy: 'Sometimes' } }] },
        }),
      }),
    );
    expect(missing.code).toBe(422);
    // An object's own required list first, then its properties (kube-openapi's objectValidator).
    expect(missing.message).toBe(
      'ClusterIssuer.cert-manager.io "bad" is invalid: [spec.acme.server: Required value, spec.acme.privateKeySecretRef.name: Required value, spec.acme.solvers[0].dns01.cnameStrategy: Unsupported value: "Sometimes": supported values: "None", "Follow"]',
    );
    const kubectl = await cli.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify(
        clusterIssuer('bad', {
          acme: acme([
            { http01: { gatewayHTTPRoute: { parentRefs: [{ name: 'g', kind: '-not-a-kind' }] } } },
          ]),
        }),
      ),
    );
    expect(kubectl.stderr.trim()).toBe(
      'The ClusterIssuer "bad" is invalid: spec.acme.solvers[0].http01.gatewayHTTPRoute.parentRefs[0].kind: Invalid value: "-not-a-kind": spec.acme.solvers[0].http01.gatewayHTTPRoute.parentRefs[0].kind in body should match \'^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$\'',
    );
    // The spec is required by the schema's top level.
    const noSpec = await statusOf(
      custom.createNamespacedCustomObject({
        ...issuers,
        body: { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: { name: 'nospec' } },
      }),
    );
    expect(noSpec.message).toBe('Issuer.cert-manager.io "nospec" is invalid: spec: Required value');
  });
});

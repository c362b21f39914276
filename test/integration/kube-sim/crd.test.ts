/**
 * CustomResourceDefinitions with the real kubectl 1.33 and @kubernetes/client-node: cert-manager's
 * Certificate and KEDA's ScaledObject CRDs applied from their published manifests
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

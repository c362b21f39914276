import { describe, expect, it } from 'vitest';
import { groupVersion, RESOURCE_TYPES, servedGroupVersions } from '../../../infra/kube-sim/resources.ts';
import {
  AGGREGATED_DISCOVERY_CONTENT_TYPE,
  type APIResource,
  aggregatedDiscovery,
  apiGroupList,
  apiResourceList,
  apiVersions,
  openApiV3Document,
  openApiV3Hash,
  openApiV3Index,
  versionInfo,
  wantsAggregatedDiscovery,
} from '../../../infra/kube-sim/server/discovery.ts';
import type { Json } from '../../../infra/kube-sim/types.ts';

/** What kubectl 1.33 and helm 4.1 send for /api and /apis (seen on the wire). */
const CLIENT_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

const WRITE_METHODS = ['post', 'put', 'patch'] as const;

function allResourceLists() {
  return servedGroupVersions().map((gv) => {
    const list = apiResourceList(gv.group, gv.version);
    if (!list) throw new Error(`no resource list for ${groupVersion(gv)}`);
    return list;
  });
}

function resource(resources: APIResource[], name: string): APIResource {
  const found = resources.find((r) => r.name === name);
  if (!found) throw new Error(`${name} missing`);
  return found;
}

type Operation = { [key: string]: Json } & { parameters?: { name: string; in: string }[] };

/** Every (path, method, operation) of every document the index lists. */
function allOperations(): { doc: string; path: string; method: string; op: Operation }[] {
  const out: { doc: string; path: string; method: string; op: Operation }[] = [];
  for (const doc of Object.keys(openApiV3Index().paths)) {
    for (const [path, item] of Object.entries(openApiV3Document(doc)?.paths ?? {})) {
      for (const [method, op] of Object.entries(item)) {
        if (method !== 'parameters') out.push({ doc, path, method, op: op as Operation });
      }
    }
  }
  return out;
}

describe('version and group discovery', () => {
  it('claims Kubernetes 1.33 on linux/amd64', () => {
    const info = versionInfo();
    expect(info).toMatchObject({ major: '1', minor: '33', platform: 'linux/amd64', compiler: 'gc' });
    expect(info.gitVersion).toMatch(/^v1\.33\.\d+$/);
    expect(info.goVersion).toMatch(/^go1\.\d+/);
    for (const value of Object.values(info)) expect(typeof value).toBe('string');
  });

  it('serves /api as APIVersions with the server address', () => {
    expect(apiVersions('10.0.0.1:6443')).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
    });
  });

  it('lists every served named group in /apis with its preferred version', () => {
    const list = apiGroupList();
    expect(list).toMatchObject({ kind: 'APIGroupList', apiVersion: 'v1' });
    const named = servedGroupVersions().filter((gv) => gv.group !== '');
    expect(list.groups.map((g) => g.name)).toEqual([...new Set(named.map((gv) => gv.group))]);
    for (const gv of named) {
      const group = list.groups.find((g) => g.name === gv.group);
      expect(group?.versions).toContainEqual({ groupVersion: groupVersion(gv), version: gv.version });
      expect(group?.preferredVersion).toEqual(group?.versions[0]);
    }
  });
});

describe('resource lists', () => {
  it('puts deployments before deployments/status and deployments/scale', () => {
    const names = apiResourceList('apps', 'v1')?.resources.map((r) => r.name) ?? [];
    expect(names.indexOf('deployments')).toBeGreaterThanOrEqual(0);
    expect(names.indexOf('deployments')).toBeLessThan(names.indexOf('deployments/status'));
    expect(names.indexOf('deployments')).toBeLessThan(names.indexOf('deployments/scale'));
  });

  it('lists every main resource before its subresources, names in byte order', () => {
    for (const list of allResourceLists()) {
      const names = list.resources.map((r) => r.name);
      expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      for (const [index, name] of names.entries()) {
        if (name.includes('/')) expect(names.indexOf(name.split('/')[0] ?? '')).toBeLessThan(index);
      }
    }
  });

  it('describes every registered type and subresource exactly once', () => {
    const listed = allResourceLists().flatMap((l) => l.resources.map((r) => `${l.groupVersion} ${r.name}`));
    const expected = RESOURCE_TYPES.flatMap((t) => [
      `${groupVersion(t)} ${t.plural}`,
      ...t.subresources.map((s) => `${groupVersion(t)} ${t.plural}/${s.name}`),
    ]);
    expect([...listed].sort()).toEqual([...expected].sort());
  });

  it('carries the short names kubectl users type', () => {
    const shortNames = allResourceLists().flatMap((l) => l.resources.flatMap((r) => r.shortNames ?? []));
    expect(shortNames).toEqual(expect.arrayContaining(['cm', 'deploy', 'svc', 'ns', 'pvc']));
  });

  it('shapes main resources and subresources like upstream', () => {
    const apps = apiResourceList('apps', 'v1');
    expect(apps).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'apps/v1' });
    const resources = apps?.resources ?? [];
    const deployments = resource(resources, 'deployments');
    expect(deployments).toMatchObject({
      singularName: 'deployment',
      namespaced: true,
      kind: 'Deployment',
      shortNames: ['deploy'],
      categories: ['all'],
    });
    expect(deployments.verbs).toEqual([...deployments.verbs].sort());
    expect(deployments.storageVersionHash).toMatch(/^[A-Za-z0-9+/]{11}=$/);
    expect(deployments).not.toHaveProperty('group');
    expect(resource(resources, 'deployments/scale')).toEqual({
      name: 'deployments/scale',
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
    expect(resource(resources, 'deployments/status')).toEqual({
      name: 'deployments/status',
      singularName: '',
      namespaced: true,
      kind: 'Deployment',
      verbs: ['get', 'patch', 'update'],
    });
  });

  it('marks cluster-scoped types and core subresources', () => {
    const core = apiResourceList('', 'v1')?.resources ?? [];
    expect(core.find((r) => r.name === 'namespaces')?.namespaced).toBe(false);
    expect(resource(core, 'namespaces/finalize')).toMatchObject({ namespaced: false, verbs: ['update'] });
    expect(resource(core, 'pods/log')).toMatchObject({ kind: 'Pod', verbs: ['get'] });
    expect(resource(core, 'pods/exec')).toMatchObject({ kind: 'PodExecOptions', verbs: ['create', 'get'] });
    expect(resource(core, 'pods/attach')).toMatchObject({
      kind: 'PodAttachOptions',
      verbs: ['create', 'get'],
    });
    expect(resource(core, 'secrets')).not.toHaveProperty('shortNames');
    expect(apiResourceList('apps', 'v2')).toBeUndefined();
    expect(apiResourceList('', 'v2')).toBeUndefined();
  });
});

describe('aggregated discovery', () => {
  it('serves the core group under /api and the named groups under /apis', () => {
    const api = aggregatedDiscovery('api');
    expect(api).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
    expect(api.items).toHaveLength(1);
    expect(api.items[0]?.metadata).toEqual({});
    expect(aggregatedDiscovery('apis').items.map((g) => g.metadata.name)).toEqual(
      apiGroupList().groups.map((g) => g.name),
    );
  });

  it('describes resources with responseKind, scope and subresources', () => {
    const apps = aggregatedDiscovery('apis').items.find((g) => g.metadata.name === 'apps');
    const deployments = apps?.versions[0]?.resources.find((r) => r.resource === 'deployments');
    expect(apps?.versions[0]).toMatchObject({ version: 'v1', freshness: 'Current' });
    expect(deployments).toEqual({
      resource: 'deployments',
      responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      scope: 'Namespaced',
      singularResource: 'deployment',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['deploy'],
      categories: ['all'],
      subresources: [
        {
          subresource: 'scale',
          responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
          verbs: ['get', 'patch', 'update'],
        },
        {
          subresource: 'status',
          responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
    const core = aggregatedDiscovery('api').items[0]?.versions[0]?.resources ?? [];
    expect(core.find((r) => r.resource === 'namespaces')?.scope).toBe('Cluster');
    expect(core.find((r) => r.resource === 'configmaps')?.responseKind).toEqual({
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
    });
  });

  it('converts back to the legacy lists the way client-go does', () => {
    // client-go's SplitGroupsAndResources: drops a subresource without a responseKind kind.
    for (const item of [...aggregatedDiscovery('api').items, ...aggregatedDiscovery('apis').items]) {
      for (const version of item.versions) {
        const converted = version.resources.flatMap((r) => [
          r.resource,
          ...(r.subresources ?? [])
            .filter((s) => s.responseKind.kind !== '')
            .map((s) => `${r.resource}/${s.subresource}`),
        ]);
        const legacy = apiResourceList(item.metadata.name ?? '', version.version)?.resources.map(
          (r) => r.name,
        );
        expect(converted.sort()).toEqual(legacy?.sort());
      }
    }
  });

  it('is chosen only when the Accept header prefers it', () => {
    expect(AGGREGATED_DISCOVERY_CONTENT_TYPE).toBe(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    expect(wantsAggregatedDiscovery(CLIENT_ACCEPT)).toBe(true);
    expect(
      wantsAggregatedDiscovery('application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io'),
    ).toBe(true);
    expect(
      wantsAggregatedDiscovery(`${AGGREGATED_DISCOVERY_CONTENT_TYPE};profile=nopeer,application/json`),
    ).toBe(true);
    expect(wantsAggregatedDiscovery(undefined)).toBe(false);
    expect(wantsAggregatedDiscovery('application/json, */*')).toBe(false);
    expect(wantsAggregatedDiscovery('*/*')).toBe(false);
    expect(
      wantsAggregatedDiscovery('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'),
    ).toBe(false);
    expect(wantsAggregatedDiscovery(`application/json,${AGGREGATED_DISCOVERY_CONTENT_TYPE}`)).toBe(false);
    expect(wantsAggregatedDiscovery(`application/json;q=0.5,${AGGREGATED_DISCOVERY_CONTENT_TYPE}`)).toBe(
      true,
    );
    expect(wantsAggregatedDiscovery(`${AGGREGATED_DISCOVERY_CONTENT_TYPE};q=0,application/json`)).toBe(false);
  });
});

describe('OpenAPI v3', () => {
  it('indexes every served group version with a content hash', () => {
    const index = openApiV3Index();
    for (const gv of servedGroupVersions()) {
      const key = gv.group === '' ? `api/${gv.version}` : `apis/${groupVersion(gv)}`;
      expect(index.paths[key]?.serverRelativeURL).toBe(`/openapi/v3/${key}?hash=${openApiV3Hash(key)}`);
    }
    for (const [key, { serverRelativeURL }] of Object.entries(index.paths)) {
      expect(serverRelativeURL).toMatch(/^\/openapi\/v3\/[a-z0-9./]+\?hash=[0-9A-F]{128}$/);
      expect(openApiV3Document(serverRelativeURL), key).toBeDefined();
    }
    expect(Object.keys(index.paths)).toEqual(expect.arrayContaining(['api', 'apis', 'apis/apps']));
  });

  it('hashes stably per document content', () => {
    expect(openApiV3Hash('apis/apps/v1')).toBe(openApiV3Hash('/openapi/v3/apis/apps/v1?hash=old'));
    expect(openApiV3Hash('apis/apps/v1')).not.toBe(openApiV3Hash('apis/batch/v1'));
    expect(() => openApiV3Hash('apis/apps/v2')).toThrow(/no OpenAPI v3 document/);
    expect(openApiV3Document('apis/nope.example.com/v1')).toBeUndefined();
    expect(openApiV3Document('apis/nope.example.com')).toBeUndefined();
  });

  it('lists collection, item, all-namespaces and subresource paths', () => {
    const apps = Object.keys(openApiV3Document('apis/apps/v1')?.paths ?? {});
    expect(apps).toEqual(
      expect.arrayContaining([
        '/apis/apps/v1/',
        '/apis/apps/v1/deployments',
        '/apis/apps/v1/namespaces/{namespace}/deployments',
        '/apis/apps/v1/namespaces/{namespace}/deployments/{name}',
        '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status',
        '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale',
      ]),
    );
    const core = openApiV3Document('api/v1')?.paths ?? {};
    expect(Object.keys(core)).toEqual(
      expect.arrayContaining([
        '/api/v1/namespaces',
        '/api/v1/namespaces/{name}',
        '/api/v1/namespaces/{name}/finalize',
        '/api/v1/namespaces/{namespace}/pods/{name}/log',
        '/api/v1/persistentvolumes/{name}/status',
      ]),
    );
    expect(Object.keys(core)).not.toContain('/api/v1/namespaces/{namespace}/namespaces');
    // Connect subresources as upstream's spec has them: GET and POST, the options as query parameters.
    const exec = core['/api/v1/namespaces/{namespace}/pods/{name}/exec'] as Record<string, Operation> & {
      parameters: { name: string; in: string }[];
    };
    expect(exec.get?.operationId).toBe('connectCoreV1GetNamespacedPodExec');
    expect(exec.post?.operationId).toBe('connectCoreV1PostNamespacedPodExec');
    expect(exec.post?.['x-kubernetes-action']).toBe('connect');
    expect(exec.parameters.map((p) => p.name).sort()).toEqual([
      'command',
      'container',
      'name',
      'namespace',
      'stderr',
      'stdin',
      'stdout',
      'tty',
    ]);
    expect(core['/api/v1/namespaces/{namespace}/pods/{name}/attach']).toHaveProperty('post');
    expect(Object.keys(core['/api/v1/namespaces/{name}/finalize'] ?? {}).sort()).toEqual([
      'parameters',
      'put',
    ]);
  });

  it('declares dryRun, fieldManager and fieldValidation on every write operation', () => {
    // A connect operation (POST to pods/exec, pods/attach) opens a stream; it writes nothing.
    const writes = allOperations().filter(
      ({ method, op }) =>
        (WRITE_METHODS as readonly string[]).includes(method) && op['x-kubernetes-action'] !== 'connect',
    );
    expect(writes.length).toBeGreaterThan(50);
    for (const { path, method, op } of writes) {
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const where = `${method} ${path}`;
      expect(query, where).toEqual(expect.arrayContaining(['dryRun', 'fieldManager', 'fieldValidation']));
      if (method === 'patch') expect(query, where).toContain('force');
      expect(op['x-kubernetes-action'], where).toBe(method);
      expect(op['x-kubernetes-group-version-kind'], where).toEqual({
        group: expect.any(String),
        version: expect.any(String),
        kind: expect.any(String),
      });
    }
  });

  it('has a PATCH for every patchable kind, as kubectl looks one up by kind', () => {
    const patched = allOperations()
      .filter(({ method }) => method === 'patch')
      .map(({ op }) => JSON.stringify(op['x-kubernetes-group-version-kind']));
    for (const t of RESOURCE_TYPES.filter((type) => type.verbs.includes('patch'))) {
      expect(patched).toContain(JSON.stringify({ group: t.group, version: t.version, kind: t.kind }));
    }
  });

  it('does not advertise strategic merge patch (kubectl would build it from thin schemas)', () => {
    for (const { op } of allOperations().filter(({ method }) => method === 'patch')) {
      expect(JSON.stringify(op.requestBody)).not.toContain('strategic-merge-patch');
      expect(JSON.stringify(op.requestBody)).toContain('application/apply-patch+yaml');
    }
  });

  it('has a schema per kind for kubectl explain, and every $ref resolves', () => {
    for (const gv of servedGroupVersions()) {
      const key = gv.group === '' ? `api/${gv.version}` : `apis/${groupVersion(gv)}`;
      const doc = openApiV3Document(key);
      const schemas = doc?.components.schemas ?? {};
      const kinds = Object.values(schemas).flatMap(
        (s) => (s['x-kubernetes-group-version-kind'] ?? []) as Json[],
      );
      for (const t of RESOURCE_TYPES.filter((type) => groupVersion(type) === groupVersion(gv))) {
        expect(kinds).toContainEqual({ group: t.group, version: t.version, kind: t.kind });
        expect(kinds).toContainEqual({ group: t.group, version: t.version, kind: t.listKind });
      }
      const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
        (m) => m[1] ?? '',
      );
      for (const name of refs) expect(schemas, `${key}: ${name}`).toHaveProperty([name]);
    }
    const apps = openApiV3Document('apis/apps/v1')?.components.schemas ?? {};
    expect(apps['io.k8s.api.autoscaling.v1.Scale']?.['x-kubernetes-group-version-kind']).toEqual([
      { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    ]);
    expect(apps['io.k8s.api.apps.v1.Deployment']).toMatchObject({
      type: 'object',
      properties: {
        metadata: {
          allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
        },
      },
    });
  });

  it('returns plain JSON, fresh on every call', () => {
    const doc = openApiV3Document('api/v1');
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    if (doc) doc.paths = {};
    expect(Object.keys(openApiV3Document('api/v1')?.paths ?? {}).length).toBeGreaterThan(10);
  });
});

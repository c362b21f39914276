/**
 * The exact metav1.Status bodies kube-sim answers with, as client-node receives them, and the
 * resourceVersion, immutability and admission rules behind them.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

describe('kube-sim Status errors and write semantics', () => {
  let c: SimClients;
  const ns = 'errors';

  beforeAll(async () => {
    // API machinery only: no workload controller writes in the background.
    c = await startSimWithClients({ controllers: false });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  async function raw(method: string, path: string, body?: unknown, contentType = 'application/json') {
    const res = await fetch(`${c.sim.url}${path}`, {
      method,
      headers: { 'content-type': contentType },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : text,
    };
  }

  it('NotFound', async () => {
    expect(await statusOf(c.apps.readNamespacedDeployment({ namespace: ns, name: 'web' }))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'deployments.apps "web" not found',
      reason: 'NotFound',
      details: { name: 'web', group: 'apps', kind: 'deployments' },
      code: 404,
    });
  });

  it('AlreadyExists', async () => {
    await c.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'dup' } } });
    expect(
      await statusOf(c.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'dup' } } })),
    ).toMatchObject({
      message: 'secrets "dup" already exists',
      reason: 'AlreadyExists',
      details: { name: 'dup', kind: 'secrets' },
      code: 409,
    });
  });

  it('Conflict on a stale resourceVersion; an empty one updates unconditionally', async () => {
    const first = await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'rv' }, data: { v: '1' } },
    });
    await c.core.replaceNamespacedConfigMap({
      namespace: ns,
      name: 'rv',
      body: { ...first, data: { v: '2' } },
    });
    expect(
      await statusOf(
        c.core.replaceNamespacedConfigMap({
          namespace: ns,
          name: 'rv',
          body: { ...first, data: { v: '3' } },
        }),
      ),
    ).toMatchObject({
      message:
        'Operation cannot be fulfilled on configmaps "rv": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'rv', kind: 'configmaps' },
      code: 409,
    });
    const unconditional = await c.core.replaceNamespacedConfigMap({
      namespace: ns,
      name: 'rv',
      body: { metadata: { name: 'rv' }, data: { v: '4' } },
    });
    expect(unconditional.data).toEqual({ v: '4' });
  });

  it('a write that changes nothing keeps the resourceVersion and emits no event', async () => {
    const cm = await c.core.readNamespacedConfigMap({ namespace: ns, name: 'rv' });
    const rv = c.sim.store.currentRv;
    const same = await c.core.replaceNamespacedConfigMap({ namespace: ns, name: 'rv', body: cm });
    expect(same.metadata?.resourceVersion).toBe(cm.metadata?.resourceVersion);
    const patched = await c.core.patchNamespacedConfigMap(
      { namespace: ns, name: 'rv', body: { data: { v: '4' } } },
      merge,
    );
    expect(patched.metadata?.resourceVersion).toBe(cm.metadata?.resourceVersion);
    expect(c.sim.store.currentRv).toBe(rv);
  });

  it('Invalid with causes: a Secret over 1 MiB', async () => {
    const big = Buffer.alloc(1_048_577, 1).toString('base64');
    expect(
      await statusOf(
        c.core.createNamespacedSecret({
          namespace: ns,
          body: { metadata: { name: 'big' }, data: { blob: big } },
        }),
      ),
    ).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Secret "big" is invalid: data: Too long: may not be more than 1048576 bytes',
      reason: 'Invalid',
      details: {
        name: 'big',
        kind: 'Secret',
        causes: [
          {
            reason: 'FieldValueTooLong',
            message: 'Too long: may not be more than 1048576 bytes',
            field: 'data',
          },
        ],
      },
      code: 422,
    });
  });

  it('Invalid names, with several causes aggregated', async () => {
    const status = await statusOf(
      c.apps.createNamespacedDeployment({
        namespace: ns,
        body: {
          metadata: { name: 'Bad_Name' },
          spec: {
            selector: { matchLabels: { app: 'x' } },
            template: { metadata: { labels: { app: 'y' } }, spec: { containers: [{ name: 'c' }] } },
          },
        },
      }),
    );
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.message).toMatch(
      /^Deployment\.apps "Bad_Name" is invalid: \[metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    expect(status.message).toContain('spec.template.spec.containers[0].image: Required value');
    expect(status.message).toContain('`selector` does not match template `labels`');
    expect(status.details).toMatchObject({ name: 'Bad_Name', group: 'apps', kind: 'Deployment' });
  });

  it('immutable fields: Secret data with immutable, Deployment selector, Job template, Service clusterIP', async () => {
    await c.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'frozen' }, immutable: true, data: { a: 'YQ==' } },
    });
    const secret = await statusOf(
      c.core.patchNamespacedSecret({ namespace: ns, name: 'frozen', body: { data: { a: 'Yg==' } } }, merge),
    );
    expect(secret.code).toBe(422);
    expect(secret.message).toContain('field is immutable when `immutable` is set');

    await c.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'sel' },
        spec: {
          selector: { matchLabels: { app: 'a' } },
          template: {
            metadata: { labels: { app: 'a', v: '1' } },
            spec: { containers: [{ name: 'c', image: 'i' }] },
          },
        },
      },
    });
    const selector = await statusOf(
      c.apps.patchNamespacedDeployment(
        { namespace: ns, name: 'sel', body: { spec: { selector: { matchLabels: { app: 'a', v: '1' } } } } },
        merge,
      ),
    );
    expect(selector.message).toContain('spec.selector: Invalid value');
    expect(selector.message).toContain('field is immutable');

    const job = await c.batch.createNamespacedJob({
      namespace: ns,
      body: {
        metadata: { name: 'j' },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } },
      },
    });
    const template = await statusOf(
      c.batch.patchNamespacedJob(
        {
          namespace: ns,
          name: 'j',
          body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'other' }] } } } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(template.code).toBe(422);
    expect(template.message).toContain('spec.template');
    expect(job.metadata?.name).toBe('j');

    const svc = await c.core.createNamespacedService({
      namespace: ns,
      body: { metadata: { name: 'ip' }, spec: { ports: [{ port: 80 }] } },
    });
    const ip = await statusOf(
      c.core.patchNamespacedService(
        {
          namespace: ns,
          name: 'ip',
          body: { spec: { clusterIP: '10.96.200.200', clusterIPs: ['10.96.200.200'] } },
        },
        merge,
      ),
    );
    expect(ip.code).toBe(422);
    expect(ip.message).toContain('spec.clusterIPs[0]');
    expect(svc.spec?.clusterIP).not.toBe('10.96.200.200');
  });

  it('resourceVersion set on create is an internal error, as upstream', async () => {
    expect(
      await statusOf(
        c.core.createNamespacedConfigMap({
          namespace: ns,
          body: { metadata: { name: 'x', resourceVersion: '5' } },
        }),
      ),
    ).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: resourceVersion should not be set on objects to be created',
    });
  });

  it('refuses content in a missing namespace (404) and in a terminating one (403)', async () => {
    expect(
      await statusOf(
        c.core.createNamespacedConfigMap({ namespace: 'nowhere', body: { metadata: { name: 'x' } } }),
      ),
    ).toMatchObject({
      code: 404,
      message: 'namespaces "nowhere" not found',
    });
    await c.core.createNamespace({ body: { metadata: { name: 'closing' } } });
    await c.core.createNamespacedConfigMap({
      namespace: 'closing',
      body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } },
    });
    await c.core.deleteNamespace({ name: 'closing' });
    expect(
      await statusOf(
        c.core.createNamespacedConfigMap({ namespace: 'closing', body: { metadata: { name: 'late' } } }),
      ),
    ).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message:
        'configmaps "late" is forbidden: unable to create new content in namespace closing because it is being terminated',
      details: {
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: 'namespace closing is being terminated',
            field: 'metadata.namespace',
          },
        ],
      },
    });
  });

  it('RequestEntityTooLarge over 3 MiB, 415 for an unknown patch type, 400 for a bad selector', async () => {
    const huge = await raw('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: 'huge' },
      data: { a: 'x'.repeat(3 * 1024 * 1024) },
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: limit is 3145728',
      code: 413,
    });

    const patch = await raw(
      'PATCH',
      `/api/v1/namespaces/${ns}/configmaps/rv`,
      { data: {} },
      'application/xml',
    );
    expect(patch.status).toBe(415);
    expect(patch.body).toMatchObject({ reason: 'UnsupportedMediaType', code: 415 });

    const selector = await statusOf(
      c.core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'a in (b' }),
    );
    expect(selector).toMatchObject({ code: 400, reason: 'BadRequest' });
    const field = await statusOf(
      c.core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'spec.foo=bar' }),
    );
    expect(field).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'field label not supported: spec.foo',
    });
  });

  it('TooManyRequests with Retry-After, and 500s, when faults are injected', async () => {
    c.sim.faults.add({
      verb: 'get',
      resource: '/configmaps',
      errorRate: 1,
      status: 429,
      retryAfterSeconds: 3,
      limit: 1,
    });
    const limited = await raw('GET', `/api/v1/namespaces/${ns}/configmaps/rv`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(limited.body).toMatchObject({
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 3 },
      code: 429,
    });
    expect((await raw('GET', `/api/v1/namespaces/${ns}/configmaps/rv`)).status).toBe(200);
    c.sim.faults.set([{ verb: 'list', resource: '/secrets', errorRate: 1, status: 500, limit: 1 }]);
    expect((await statusOf(c.core.listNamespacedSecret({ namespace: ns }))).code).toBe(500);
    c.sim.faults.clear();
  });

  it('fieldValidation: Strict refuses unknown fields, Warn drops them with a warning', async () => {
    const strict = await raw('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`, {
      metadata: { name: 'strict' },
      data: {},
      bogus: 1,
    });
    expect(strict.status).toBe(400);
    expect(strict.body).toMatchObject({
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
    });
    const warn = await raw('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Warn`, {
      metadata: { name: 'warn' },
      bogus: 1,
    });
    expect(warn.status).toBe(201);
    expect(warn.headers.get('warning')).toBe('299 - "unknown field \\"bogus\\""');
    expect((warn.body as Record<string, unknown>).bogus).toBeUndefined();
  });

  it('fieldValidation: duplicate fields are refused with Strict and reported with Warn', async () => {
    const body = '{"metadata":{"name":"twice"},"data":{"a":"1","a":"2"}}';
    const strict = await raw('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`, body);
    expect(strict.status).toBe(400);
    expect((strict.body as Record<string, unknown>).message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a"',
    );
    const warn = await raw('POST', `/api/v1/namespaces/${ns}/configmaps`, body);
    expect(warn.status).toBe(201);
    expect(warn.headers.get('warning')).toBe('299 - "duplicate field \\"data.a\\""');
    expect((warn.body as { data: unknown }).data).toEqual({ a: '2' });
  });

  it('deletes a collection by label selector', async () => {
    for (const name of ['dc-1', 'dc-2', 'dc-keep']) {
      await c.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name, labels: { batch: name === 'dc-keep' ? 'keep' : 'drop' } } },
      });
    }
    await c.core.deleteCollectionNamespacedConfigMap({ namespace: ns, labelSelector: 'batch=drop' });
    const left = (await c.core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'batch' })).items.map(
      (i) => i.metadata?.name,
    );
    expect(left).toEqual(['dc-keep']);
  });

  it('logs every request with verb, resource and bytes', async () => {
    c.sim.requests.reset();
    await c.core.readNamespacedConfigMap({ namespace: ns, name: 'rv' });
    await c.core.listNamespacedConfigMap({ namespace: ns });
    const [get, list] = c.sim.requests.entries();
    expect(get).toMatchObject({
      verb: 'get',
      resource: '/configmaps',
      namespace: ns,
      name: 'rv',
      status: 200,
    });
    expect(get!.bytesOut).toBeGreaterThan(50);
    expect(list).toMatchObject({ verb: 'list', resource: '/configmaps', namespace: ns, status: 200 });
    expect(c.sim.requests.summary()).toMatchObject({ total: 2, reads: 2, writes: 0 });
  });
});

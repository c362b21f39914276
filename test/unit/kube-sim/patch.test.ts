import { describe, expect, it } from 'vitest';
import { StatusError } from '../../../infra/kube-sim/errors.ts';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  PATCH_CONTENT_TYPES,
} from '../../../infra/kube-sim/patch/index.ts';
import { isPlainObject } from '../../../infra/kube-sim/types.ts';

type Json = Record<string, unknown>;

/** Freezes a value deeply, so any mutation by the engine under test throws (ESM is strict mode). */
function deepFreeze<T>(value: T): T {
  if (Array.isArray(value)) for (const item of value) deepFreeze(item);
  else if (isPlainObject(value)) for (const item of Object.values(value)) deepFreeze(item);
  return Object.freeze(value);
}

function statusOf(run: () => unknown): StatusError {
  try {
    run();
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
  throw new Error('expected a StatusError');
}

/** The evanphx error text kept as the cause of the generic 422. */
function causeOf(error: StatusError): string {
  return error.cause instanceof Error ? error.cause.message : String(error.cause);
}

/** Every directive-looking key anywhere in a value. */
function directiveKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(directiveKeys);
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => [
    ...(key.startsWith('$') ? [key] : []),
    ...directiveKeys(item),
  ]);
}

function deployment(podSpec: Json, metadata: Json = {}): Json {
  return deepFreeze({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', ...metadata },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: podSpec },
    },
  });
}

/** A patch of the Deployment's pod spec. */
function podPatch(podSpec: Json): Json {
  return deepFreeze({ spec: { template: { spec: podSpec } } });
}

function podSpecOf(object: unknown): Json {
  const spec = (object as { spec: { template: { spec: Json } } }).spec.template.spec;
  return spec;
}

function smp(doc: Json, patch: Json): Json {
  return applyStrategicMergePatch('Deployment', doc, patch);
}

const GENERIC_422 = 'the server rejected our request due to an error in our request';

describe('PATCH_CONTENT_TYPES', () => {
  it('lists the four media types in the order the apiserver accepts them', () => {
    expect(PATCH_CONTENT_TYPES).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
  });
});

describe('applyJsonPatch (RFC 6902, evanphx/json-patch v4)', () => {
  const doc = deepFreeze({
    metadata: {
      name: 'web',
      labels: { app: 'web' },
      annotations: { 'example.com/a~b': 'x' },
    },
    spec: { args: ['a', 'b'] },
  });

  it('adds, removes and replaces, returning a new object', () => {
    const result = applyJsonPatch(doc, [
      { op: 'add', path: '/metadata/labels/tier', value: 'frontend' },
      { op: 'replace', path: '/metadata/name', value: 'api' },
      { op: 'remove', path: '/metadata/labels/app' },
    ]);
    expect(result).toEqual({
      metadata: { name: 'api', labels: { tier: 'frontend' }, annotations: { 'example.com/a~b': 'x' } },
      spec: { args: ['a', 'b'] },
    });
    expect(result).not.toBe(doc);
    expect(doc.metadata).toEqual({
      name: 'web',
      labels: { app: 'web' },
      annotations: { 'example.com/a~b': 'x' },
    });
  });

  it('unescapes ~1 to / and ~0 to ~ (in one pass: ~01 is ~1)', () => {
    const result = applyJsonPatch(doc, [
      { op: 'replace', path: '/metadata/annotations/example.com~1a~0b', value: 'y' },
      { op: 'add', path: '/metadata/annotations/k~01', value: 'z' },
    ]);
    expect((result as { metadata: Json }).metadata.annotations).toEqual({
      'example.com/a~b': 'y',
      'k~1': 'z',
    });
  });

  it('appends with "-", inserts at an index up to the length, counts negative indexes from the end', () => {
    const args = (ops: unknown[]) => (applyJsonPatch(doc, ops) as { spec: { args: unknown[] } }).spec.args;
    expect(args([{ op: 'add', path: '/spec/args/-', value: 'c' }])).toEqual(['a', 'b', 'c']);
    expect(args([{ op: 'add', path: '/spec/args/0', value: 'z' }])).toEqual(['z', 'a', 'b']);
    expect(args([{ op: 'add', path: '/spec/args/2', value: 'c' }])).toEqual(['a', 'b', 'c']);
    expect(args([{ op: 'remove', path: '/spec/args/-1' }])).toEqual(['a']);
    expect(args([{ op: 'replace', path: '/spec/args/-2', value: 'q' }])).toEqual(['q', 'b']);
    const error = statusOf(() => applyJsonPatch(doc, [{ op: 'add', path: '/spec/args/3', value: 'c' }]));
    expect(error.code).toBe(422);
    expect(causeOf(error)).toContain('Unable to access invalid index: 3');
  });

  it('moves and copies, the copy being independent of its source', () => {
    const moved = applyJsonPatch(doc, [
      { op: 'move', from: '/metadata/labels/app', path: '/metadata/annotations/app' },
    ]) as { metadata: Json };
    expect(moved.metadata.labels).toEqual({});
    expect(moved.metadata.annotations).toEqual({ 'example.com/a~b': 'x', app: 'web' });

    const copied = applyJsonPatch(doc, [
      { op: 'copy', from: '/metadata/labels', path: '/spec/labels' },
      { op: 'add', path: '/spec/labels/extra', value: '1' },
      { op: 'copy', from: '/spec/args/0', path: '/spec/args/-' },
    ]) as { metadata: Json; spec: Json };
    expect(copied.metadata.labels).toEqual({ app: 'web' });
    expect(copied.spec).toEqual({ args: ['a', 'b', 'a'], labels: { app: 'web', extra: '1' } });
  });

  it('tests values structurally, and a failed test is the generic 422 that changes nothing', () => {
    const ok = applyJsonPatch(doc, [
      { op: 'test', path: '/metadata/labels', value: { app: 'web' } },
      { op: 'test', path: '/spec/args', value: ['a', 'b'] },
      { op: 'test', path: '/metadata/labels/absent', value: null },
      { op: 'replace', path: '/metadata/labels/app', value: 'api' },
    ]) as { metadata: Json };
    expect(ok.metadata.labels).toEqual({ app: 'api' });

    const error = statusOf(() =>
      applyJsonPatch(doc, [
        { op: 'add', path: '/metadata/labels/tier', value: 'x' },
        { op: 'test', path: '/metadata/name', value: 'other' },
      ]),
    );
    expect(error.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: GENERIC_422,
      reason: 'Invalid',
      details: {},
      code: 422,
    });
    expect(causeOf(error)).toBe('testing value /metadata/name failed: test failed');
    expect(doc.metadata).toEqual({
      name: 'web',
      labels: { app: 'web' },
      annotations: { 'example.com/a~b': 'x' },
    });
  });

  it('fails remove of a missing key or path, replace of a missing parent, and unknown ops with the generic 422', () => {
    const cases: [unknown[], string][] = [
      [
        [{ op: 'remove', path: '/metadata/labels/nope' }],
        "error in remove for path: '/metadata/labels/nope': Unable to remove nonexistent key: nope: missing value",
      ],
      [
        [{ op: 'remove', path: '/status/replicas' }],
        'remove operation does not apply: doc is missing path: "/status/replicas": missing value',
      ],
      [
        [{ op: 'replace', path: '/status/replicas', value: 1 }],
        'replace operation does not apply: doc is missing path: /status/replicas: missing value',
      ],
      [
        [{ op: 'replace', path: '/spec/args/5', value: 'x' }],
        'replace operation does not apply: doc is missing key: /spec/args/5: missing value',
      ],
      [
        [{ op: 'add', path: '', value: {} }],
        'add operation does not apply: doc is missing path: "": missing value',
      ],
      [[{ op: 'merge', path: '/a' }], 'Unexpected kind: merge'],
      [[{ path: '/a' }], 'Unexpected kind: unknown'],
      [[{ op: 'add', value: 1 }], 'add operation failed to decode path: missing value'],
    ];
    for (const [ops, cause] of cases) {
      const error = statusOf(() => applyJsonPatch(doc, ops));
      expect([error.code, error.reason, error.message]).toEqual([422, 'Invalid', GENERIC_422]);
      expect(causeOf(error)).toBe(cause);
    }
  });

  it('follows evanphx v4 where it departs from the RFC', () => {
    // replace of a missing key in an existing object adds it.
    const replaced = applyJsonPatch(doc, [{ op: 'replace', path: '/metadata/labels/new', value: 'v' }]) as {
      metadata: Json;
    };
    expect(replaced.metadata.labels).toEqual({ app: 'web', new: 'v' });
    // copy from a missing key copies null.
    const copied = applyJsonPatch(doc, [{ op: 'copy', from: '/metadata/nope', path: '/metadata/copy' }]) as {
      metadata: Json;
    };
    expect(copied.metadata.copy).toBeNull();
    // the whole document can be replaced (by an object or array only) and tested.
    expect(applyJsonPatch(doc, [{ op: 'replace', path: '', value: { a: 1 } }])).toEqual({ a: 1 });
    expect(statusOf(() => applyJsonPatch(doc, [{ op: 'replace', path: '', value: 1 }])).code).toBe(422);
    expect(applyJsonPatch({ a: [1] }, [{ op: 'test', path: '', value: { a: [1] } }])).toEqual({ a: [1] });
  });

  it('never mutates the operations, even when later operations edit an added value', () => {
    const ops = deepFreeze([
      { op: 'add', path: '/spec/extra', value: { list: [1] } },
      { op: 'add', path: '/spec/extra/list/-', value: 2 },
    ]);
    const result = applyJsonPatch(doc, ops) as { spec: Json };
    expect(result.spec.extra).toEqual({ list: [1, 2] });
    expect(ops[0]?.value).toEqual({ list: [1] });
  });

  it('rejects a body that does not decode into []jsonPatchOp with 400 BadRequest', () => {
    const cases: [unknown, string][] = [
      [{ op: 'add' }, 'json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
      ['x', 'json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp'],
      [[1], 'json: cannot unmarshal number into Go value of type handlers.jsonPatchOp'],
      [[['add']], 'json: cannot unmarshal array into Go value of type handlers.jsonPatchOp'],
      [
        [{ op: 1, path: '/a' }],
        'json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string',
      ],
      [
        [{ op: 'add', path: true }],
        'json: cannot unmarshal bool into Go struct field jsonPatchOp.path of type string',
      ],
    ];
    for (const [body, message] of cases) {
      const error = statusOf(() => applyJsonPatch(doc, body));
      expect([error.code, error.reason, error.message]).toEqual([
        400,
        'BadRequest',
        `error decoding patch: ${message}`,
      ]);
    }
    // A JSON null decodes to no operations.
    expect(applyJsonPatch(doc, null)).toEqual(doc);
  });

  it('limits a patch to 10000 operations (413 RequestEntityTooLarge)', () => {
    const test = { op: 'test', path: '/metadata/name', value: 'web' };
    expect(
      applyJsonPatch(
        doc,
        Array.from({ length: 10000 }, () => test),
      ),
    ).toEqual(doc);
    const error = statusOf(() =>
      applyJsonPatch(
        doc,
        Array.from({ length: 10001 }, () => test),
      ),
    );
    expect(error.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
      reason: 'RequestEntityTooLarge',
      code: 413,
    });
  });

  it('limits what copy operations may add to 3 MiB', () => {
    const big = { blob: 'x'.repeat(1024 * 1024) };
    const copy = (n: number) => ({ op: 'copy', from: '/blob', path: `/c${n}` });
    expect(Object.keys(applyJsonPatch(big, [copy(1), copy(2)]) as Json)).toEqual(['blob', 'c1', 'c2']);
    const error = statusOf(() => applyJsonPatch(big, [copy(1), copy(2), copy(3)]));
    expect(error.code).toBe(422);
    expect(causeOf(error)).toBe(
      'Unable to complete the copy, the accumulated size increase of copy is 3145734, exceeding the limit 3145728',
    );
  });
});

describe('applyMergePatch (RFC 7386, evanphx/json-patch v4)', () => {
  it('merges objects, deletes on null, and never mutates its arguments', () => {
    const doc = deepFreeze({
      metadata: { labels: { app: 'web', tier: 'fe' }, name: 'web' },
      spec: { replicas: 1 },
    });
    const patch = deepFreeze({ metadata: { labels: { tier: null, team: 'a' } }, spec: { replicas: 3 } });
    expect(applyMergePatch(doc, patch)).toEqual({
      metadata: { labels: { app: 'web', team: 'a' }, name: 'web' },
      spec: { replicas: 3 },
    });
  });

  it('replaces arrays wholesale: imagePullSecrets and containers are not merged by name', () => {
    const doc = deployment({
      imagePullSecrets: [{ name: 'registry-old' }],
      containers: [
        { name: 'app', image: 'app:1' },
        { name: 'sidecar', image: 'side:1' },
      ],
    });
    const result = applyMergePatch(
      doc,
      podPatch({
        imagePullSecrets: [{ name: 'registry-new' }],
        containers: [{ name: 'app', image: 'app:2' }],
      }),
    );
    expect(podSpecOf(result)).toEqual({
      imagePullSecrets: [{ name: 'registry-new' }],
      containers: [{ name: 'app', image: 'app:2' }],
    });
  });

  it('matches the RFC 7386 appendix examples', () => {
    const cases: [unknown, Json, unknown][] = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [['a', 'b'], { a: 'c' }, { a: 'c' }],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: 'b', c: null }, { a: 'b' }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [doc, patch, expected] of cases) expect(applyMergePatch(doc, patch)).toEqual(expected);
  });

  it('prunes nulls the way evanphx does', () => {
    // A value written where there was no object loses its nulls, array elements included…
    expect(applyMergePatch({ a: [1] }, { a: [1, null, { b: null, c: 2 }] })).toEqual({ a: [1, { c: 2 }] });
    expect(applyMergePatch({}, { a: { b: [null, 1] } })).toEqual({ a: { b: [1] } });
    // …but a non-object written over an object is taken as is.
    expect(applyMergePatch({ a: { x: 1 } }, { a: [1, null] })).toEqual({ a: [1, null] });
  });

  it('rejects a patch that is not an object with 400 BadRequest', () => {
    const nullPatch = statusOf(() => applyMergePatch({}, null));
    expect([nullPatch.code, nullPatch.reason, nullPatch.message]).toEqual([
      400,
      'BadRequest',
      'Invalid JSON Patch',
    ]);
    for (const [body, kind] of [
      [[{ a: 1 }], 'array'],
      ['x', 'string'],
      [1, 'number'],
      [true, 'bool'],
    ] as const) {
      const error = statusOf(() => applyMergePatch({}, body));
      expect([error.code, error.reason, error.message]).toEqual([
        400,
        'BadRequest',
        `error decoding patch: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`,
      ]);
    }
  });
});

describe('applyStrategicMergePatch', () => {
  it('accumulates imagePullSecrets by name, where a JSON merge patch replaces the list', () => {
    const doc = deployment({
      imagePullSecrets: [{ name: 'registry-old' }],
      containers: [{ name: 'app', image: 'app:1' }],
    });
    const patch = podPatch({ imagePullSecrets: [{ name: 'registry-new' }] });
    // The entry from the earlier revision stays: this is the leak to prune. A new item goes before
    // the server-only ones (mergeSortedSlice), as kubectl patch shows for a new container.
    expect(podSpecOf(smp(doc, patch)).imagePullSecrets).toEqual([
      { name: 'registry-new' },
      { name: 'registry-old' },
    ]);
    expect(podSpecOf(applyMergePatch(doc, patch)).imagePullSecrets).toEqual([{ name: 'registry-new' }]);
    // Re-sending an existing name merges into it rather than duplicating it.
    const again = smp(smp(doc, patch), patch);
    expect(podSpecOf(again).imagePullSecrets).toEqual([{ name: 'registry-new' }, { name: 'registry-old' }]);
  });

  it('merges containers by name, keeping fields and other containers', () => {
    const doc = deployment({
      containers: [
        { name: 'app', image: 'app:1', ports: [{ containerPort: 80 }] },
        { name: 'sidecar', image: 'side:1' },
      ],
    });
    const result = smp(doc, podPatch({ containers: [{ name: 'app', image: 'app:2' }] }));
    expect(podSpecOf(result).containers).toEqual([
      { name: 'app', image: 'app:2', ports: [{ containerPort: 80 }] },
      { name: 'sidecar', image: 'side:1' },
    ]);
    // kubernetes.io "Update API Objects in Place Using kubectl patch": the added container comes first.
    const added = smp(
      deployment({ containers: [{ name: 'patch-demo-ctr', image: 'nginx' }] }),
      podPatch({ containers: [{ name: 'patch-demo-ctr-2', image: 'redis' }] }),
    );
    expect(podSpecOf(added).containers).toEqual([
      { name: 'patch-demo-ctr-2', image: 'redis' },
      { name: 'patch-demo-ctr', image: 'nginx' },
    ]);
  });

  it('merges env by name and container ports by containerPort', () => {
    const doc = deployment({
      containers: [
        {
          name: 'app',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
          ports: [{ containerPort: 80, name: 'http' }],
        },
      ],
    });
    const result = smp(
      doc,
      podPatch({
        containers: [
          {
            name: 'app',
            env: [
              { name: 'B', value: null, valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
              { name: 'C', value: '3' },
            ],
            ports: [
              { containerPort: 80, protocol: 'TCP', name: 'web' },
              { containerPort: 9090, name: 'metrics' },
            ],
          },
        ],
      }),
    );
    expect(podSpecOf(result).containers).toEqual([
      {
        name: 'app',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
          { name: 'C', value: '3' },
        ],
        ports: [
          { containerPort: 80, name: 'web', protocol: 'TCP' },
          { containerPort: 9090, name: 'metrics' },
        ],
      },
    ]);
  });

  it('honours $retainKeys in volumes, clearing the old volume source', () => {
    const doc = deployment({
      volumes: [
        { name: 'data', emptyDir: {} },
        { name: 'cfg', configMap: { name: 'a' } },
      ],
    });
    const source = { persistentVolumeClaim: { claimName: 'pvc' } };
    const retained = smp(
      doc,
      podPatch({ volumes: [{ name: 'data', $retainKeys: ['name', 'persistentVolumeClaim'], ...source }] }),
    );
    expect(podSpecOf(retained).volumes).toEqual([
      { name: 'data', ...source },
      { name: 'cfg', configMap: { name: 'a' } },
    ]);
    // Without the directive both sources stay (which validation would then reject).
    const merged = smp(doc, podPatch({ volumes: [{ name: 'data', ...source }] }));
    expect(podSpecOf(merged).volumes).toEqual([
      { name: 'data', emptyDir: {}, ...source },
      { name: 'cfg', configMap: { name: 'a' } },
    ]);
    // A patched field missing from $retainKeys, or a $retainKeys that is not a list, is malformed.
    for (const volume of [
      { name: 'data', $retainKeys: ['name'], ...source },
      { name: 'data', $retainKeys: 'name' },
    ]) {
      const error = statusOf(() => smp(doc, podPatch({ volumes: [volume] })));
      expect([error.code, error.reason, error.message]).toEqual([
        400,
        'BadRequest',
        'invalid patch format of retainKeys',
      ]);
    }
  });

  it('deletes a container with $patch: delete', () => {
    const doc = deployment({
      containers: [
        { name: 'app', image: 'app:1' },
        { name: 'sidecar', image: 'side:1' },
      ],
    });
    const result = smp(doc, podPatch({ containers: [{ name: 'sidecar', $patch: 'delete' }] }));
    expect(podSpecOf(result).containers).toEqual([{ name: 'app', image: 'app:1' }]);
    // Without its merge key the item cannot be matched: a plain Go error, so 500 with no reason.
    const error = statusOf(() => smp(doc, podPatch({ containers: [{ image: 'x', $patch: 'delete' }] })));
    expect(error.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'map: map[$patch:delete image:x] does not contain declared merge key: name',
      code: 500,
    });
  });

  it('replaces a list with a {$patch: replace} element and a map with $patch: replace', () => {
    const doc = deployment({
      containers: [
        { name: 'app', image: 'app:1', resources: { requests: { cpu: '100m' }, limits: { memory: '1Gi' } } },
        { name: 'sidecar', image: 'side:1' },
      ],
    });
    const list = smp(doc, podPatch({ containers: [{ $patch: 'replace' }, { name: 'only', image: 'x' }] }));
    expect(podSpecOf(list).containers).toEqual([{ name: 'only', image: 'x' }]);
    const map = smp(
      doc,
      podPatch({ containers: [{ name: 'app', resources: { $patch: 'replace', limits: { cpu: '1' } } }] }),
    );
    expect(podSpecOf(map).containers).toEqual([
      { name: 'app', image: 'app:1', resources: { limits: { cpu: '1' } } },
      { name: 'sidecar', image: 'side:1' },
    ]);
  });

  it('empties a map with $patch: delete, and drops a new value that carries $patch', () => {
    const doc = deployment({ containers: [{ name: 'app', securityContext: { runAsUser: 1 } }] });
    const result = smp(
      doc,
      podPatch({
        containers: [{ name: 'app', securityContext: { $patch: 'delete' } }],
        dnsConfig: { $patch: 'delete' },
      }),
    );
    // handleDirectiveInMergeMap returns an empty map; removeDirectives drops a map that is new.
    expect(podSpecOf(result)).toEqual({ containers: [{ name: 'app', securityContext: {} }] });
    expect(smp(doc, { $patch: 'delete' })).toEqual({});
  });

  it('rejects unknown and merge $patch values with upstream messages (500, no reason)', () => {
    const doc = deployment({
      securityContext: { runAsUser: 1 },
      containers: [{ name: 'app', image: 'app:1' }],
    });
    const cases: [Json, string][] = [
      [
        podPatch({ securityContext: { $patch: 'remove', runAsUser: 2 } }),
        'unknown patch type: remove in map: map[$patch:remove runAsUser:2]',
      ],
      [
        podPatch({ securityContext: { $patch: 'merge' } }),
        'unknown patch type: merge in map: map[$patch:merge]',
      ],
      [
        podPatch({ containers: [{ name: 'app', $patch: 'remove' }] }),
        'unknown patch type: remove in map: map[$patch:remove name:app]',
      ],
      [
        podPatch({ containers: [{ name: 'app', $patch: 1 }] }),
        'unknown patch type: %!s(int64=1) in map: map[$patch:1 name:app]',
      ],
      [podPatch({ containers: [{ $patch: 'merge' }] }), 'merging lists cannot yet be specified in the patch'],
    ];
    for (const [patch, message] of cases) {
      const error = statusOf(() => smp(doc, patch));
      expect([error.code, error.reason, error.message]).toEqual([500, '', message]);
    }
  });

  it('orders by $setElementOrder/containers, then patch order, then live order (upstream fixtures)', () => {
    // "change an item in a list and preserve order"
    const live = deployment({
      containers: [
        { name: '1', workingDir: 'a' },
        { name: '2', image: '2', workingDir: 'b' },
        { name: '3', image: '3' },
      ],
    });
    const changed = smp(
      live,
      podPatch({
        '$setElementOrder/containers': [{ name: '2' }, { name: '3' }, { name: '1' }],
        containers: [{ name: '3', image: 'x' }],
      }),
    );
    expect(podSpecOf(changed).containers).toEqual([
      { name: '2', image: '2', workingDir: 'b' },
      { name: '3', image: 'x' },
      { name: '1', workingDir: 'a' },
    ]);
    // "add and delete an item in a list and preserve order"
    const addDelete = smp(
      live,
      podPatch({
        '$setElementOrder/containers': [{ name: '4' }, { name: '2' }, { name: '1' }],
        containers: [
          { name: '4', image: '4' },
          { name: '3', $patch: 'delete' },
        ],
      }),
    );
    expect(podSpecOf(addDelete).containers).toEqual([
      { name: '4', image: '4' },
      { name: '2', image: '2', workingDir: 'b' },
      { name: '1', workingDir: 'a' },
    ]);
  });

  it('keeps server-only items in place when reordering (upstream "server-only items 2" and "3")', () => {
    const names = (result: Json) => (podSpecOf(result).containers as Json[]).map((c) => c.name);
    const order = podPatch({ '$setElementOrder/containers': ['2', '1', '4', '3'].map((name) => ({ name })) });
    const two = deployment({ containers: ['1', '2', '9', '3', '4'].map((name) => ({ name })) });
    expect(names(smp(two, order))).toEqual(['2', '1', '9', '4', '3']);
    const three = deployment({ containers: ['1', '2', '7', '9', '8', '3', '4'].map((name) => ({ name })) });
    expect(names(smp(three, order))).toEqual(['2', '1', '7', '9', '8', '4', '3']);
  });

  it('rejects a patch list out of step with $setElementOrder, and a malformed directive key', () => {
    const doc = deployment({ containers: [{ name: 'a' }] });
    const mismatch = statusOf(() =>
      smp(doc, podPatch({ '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b' }] })),
    );
    expect([mismatch.code, mismatch.message]).toEqual([
      500,
      "The order in patch list:\n[map[name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]\n",
    ]);
    const badOrder = statusOf(() => smp(doc, podPatch({ $setElementOrderContainers: [] })));
    expect([badOrder.code, badOrder.message]).toEqual([400, 'invalid patch format of setElementOrder list']);
    const badDelete = statusOf(() =>
      smp(doc, { metadata: { $deleteFromPrimitiveListFinalizers: ['a'] } } as Json),
    );
    expect([badDelete.code, badDelete.message]).toEqual([400, 'invalid patch format of primitive list']);
  });

  it('merges finalizers as a set: union, live order first, new values before server-only ones', () => {
    const doc = deployment({}, { finalizers: ['a', 'b'] });
    const finalizers = (patch: Json) => (smp(doc, patch).metadata as Json).finalizers;
    expect(finalizers({ metadata: { finalizers: ['b', 'c'] } })).toEqual(['a', 'b', 'c']);
    expect(finalizers({ metadata: { finalizers: ['c'] } })).toEqual(['c', 'a', 'b']);
    expect(finalizers({ metadata: { finalizers: ['a', 'a'] } })).toEqual(['a', 'b']);
  });

  it('deletes finalizers with $deleteFromPrimitiveList/finalizers', () => {
    const doc = deployment({}, { finalizers: ['a', 'b', 'c', 'b'] });
    const result = smp(doc, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } });
    expect((result.metadata as Json).finalizers).toEqual(['a', 'c']);
    // A deletion list for a missing list creates nothing.
    const none = smp(deployment({}), { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } });
    expect(none.metadata).toEqual({ name: 'web', namespace: 'default' });
  });

  it('orders primitives by $setElementOrder too (upstream int-list fixtures)', () => {
    const finalizers = (live: string[], patch: Json) =>
      (smp(deployment({}, { finalizers: live }), { metadata: patch }).metadata as Json).finalizers;
    // "merge lists of scalars"
    expect(
      finalizers(['1', '2', '4'], { '$setElementOrder/finalizers': ['1', '2', '3'], finalizers: ['3'] }),
    ).toEqual(['1', '2', '3', '4']);
    // "add an item in a list of primitives and preserve order"
    expect(
      finalizers(['1', '4', '2'], { '$setElementOrder/finalizers': ['3', '1', '2'], finalizers: ['3'] }),
    ).toEqual(['3', '1', '4', '2']);
    // "delete an item in a list of primitives and preserve order"
    expect(
      finalizers(['1', '2', '3'], {
        '$setElementOrder/finalizers': ['2', '1'],
        '$deleteFromPrimitiveList/finalizers': ['3'],
      }),
    ).toEqual(['2', '1']);
  });

  it('deletes fields with null and ignores nulls for absent fields', () => {
    const doc = deployment(
      { nodeName: 'n1', containers: [{ name: 'app' }] },
      { labels: { app: 'web', x: 'y' } },
    );
    const result = smp(doc, {
      metadata: { labels: { x: null }, annotations: null },
      spec: { template: { spec: { nodeName: null, hostname: null } } },
    });
    expect((result.metadata as Json).labels).toEqual({ app: 'web' });
    expect(result.metadata).not.toHaveProperty('annotations');
    expect(podSpecOf(result)).toEqual({ containers: [{ name: 'app' }] });
  });

  it('replaces atomic lists (tolerations, args) whole and merges maps key by key', () => {
    const doc = deployment({
      tolerations: [{ key: 'a', operator: 'Exists' }],
      nodeSelector: { disk: 'ssd' },
      containers: [{ name: 'app', args: ['--a', '--b'] }],
    });
    const result = smp(
      doc,
      podPatch({
        tolerations: [{ key: 'b', operator: 'Exists' }],
        nodeSelector: { zone: 'z1' },
        containers: [{ name: 'app', args: ['--c'] }],
      }),
    );
    // nodeSelector is +mapType=atomic for server-side apply only; it has no patchStrategy tag.
    expect(podSpecOf(result)).toEqual({
      tolerations: [{ key: 'b', operator: 'Exists' }],
      nodeSelector: { disk: 'ssd', zone: 'z1' },
      containers: [{ name: 'app', args: ['--c'] }],
    });
  });

  it('merges ownerReferences by uid and Service ports by port', () => {
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1' };
    const doc = deployment({}, { ownerReferences: [owner] });
    const result = smp(doc, { metadata: { ownerReferences: [{ uid: 'u1', controller: true }] } });
    expect((result.metadata as Json).ownerReferences).toEqual([{ ...owner, controller: true }]);

    const service = deepFreeze({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { ports: [{ port: 80, targetPort: 8080 }], selector: { app: 'web' } },
    });
    const patched = applyStrategicMergePatch('Service', service, {
      spec: { ports: [{ port: 80, targetPort: 9090 }, { port: 443 }] },
    });
    expect((patched.spec as Json).ports).toEqual([{ port: 80, targetPort: 9090 }, { port: 443 }]);
  });

  it('merges two patch items with one new key into a single item', () => {
    const doc = deployment({ containers: [{ name: 'app' }] });
    const result = smp(
      doc,
      podPatch({
        containers: [
          { name: 'n', image: 'a' },
          { name: 'n', workingDir: '/w' },
        ],
      }),
    );
    expect(podSpecOf(result).containers).toEqual([
      { name: 'n', image: 'a', workingDir: '/w' },
      { name: 'app' },
    ]);
  });

  it('leaves no directive key and no patch null in the result', () => {
    const doc = deployment({ containers: [{ name: 'app', image: 'app:1' }] });
    const result = smp(
      doc,
      podPatch({
        containers: [
          {
            name: 'new',
            image: 'n',
            workingDir: null,
            env: [{ name: 'X', value: '1', $patch: 'delete' }],
            '$setElementOrder/env': [{ name: 'X' }],
          },
        ],
        volumes: [
          { name: 'v', $retainKeys: ['name', 'emptyDir'], emptyDir: {} },
          { name: 'gone', $patch: 'delete' },
        ],
        affinity: {
          nodeAffinity: { $patch: 'replace', requiredDuringSchedulingIgnoredDuringExecution: null },
        },
      }),
    );
    expect(directiveKeys(result)).toEqual([]);
    expect(podSpecOf(result)).toEqual({
      containers: [
        { name: 'new', image: 'n', env: [{ name: 'X', value: '1' }] },
        { name: 'app', image: 'app:1' },
      ],
      // New fields go through removeDirectives: a map carrying $patch is dropped.
      volumes: [{ name: 'v', emptyDir: {} }],
      affinity: {},
    });
  });

  it('rejects lists of lists (422) and mixed element types (500)', () => {
    const empty = deployment({}, { finalizers: [] });
    const lists = statusOf(() => smp(empty, { metadata: { finalizers: [['a']] } }));
    expect([lists.code, lists.reason, lists.message]).toEqual([422, 'Invalid', GENERIC_422]);
    expect(causeOf(lists)).toBe('lists of lists are not supported');

    const mixed = statusOf(() =>
      smp(deployment({ containers: [{ name: 'a' }] }), podPatch({ containers: ['b'] })),
    );
    expect([mixed.code, mixed.message]).toEqual([
      500,
      'list element types are not identical: [[map[name:a]] [b]]',
    ]);
  });

  it('rejects a patch that is not an object with 400 and treats null as no change', () => {
    const doc = deployment({});
    const body: unknown = ['a'];
    const error = statusOf(() => smp(doc, body as Json));
    expect([error.code, error.reason, error.message]).toEqual([
      400,
      'BadRequest',
      'json: cannot unmarshal array into Go value of type map[string]interface {}',
    ]);
    const none: unknown = null;
    const result = smp(doc, none as Json);
    expect(result).toEqual(doc);
    expect(result).not.toBe(doc);
  });

  it('applies $patch: replace at the root', () => {
    const doc = deployment({ containers: [{ name: 'app' }] });
    expect(smp(doc, { $patch: 'replace', apiVersion: 'v1', kind: 'X', extra: null })).toEqual({
      apiVersion: 'v1',
      kind: 'X',
    });
  });
});

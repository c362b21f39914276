import { describe, expect, it } from 'vitest';
import { defaultManager, recordUpdate, serverSideApply } from '../../../infra/kube-sim/apply/apply.ts';
import {
  compare,
  FieldSet,
  field,
  keyElement,
  type Path,
  pathString,
  toFieldSet,
} from '../../../infra/kube-sim/apply/fieldset.ts';
import {
  conflictStatusError,
  decodeManagedFields,
  encodeManagedFields,
  managerIdentifier,
} from '../../../infra/kube-sim/apply/managed-fields.ts';
import { StatusError } from '../../../infra/kube-sim/errors.ts';
import type { KubeObject, ManagedFieldsEntry } from '../../../infra/kube-sim/types.ts';

const T0 = '2024-05-01T10:00:00Z';
const T1 = '2024-05-01T11:00:00Z';
const T2 = '2024-05-01T12:00:00Z';
const T3 = '2024-05-01T13:00:00Z';

type Container = Record<string, unknown>;

function deployment(
  spec: { replicas?: number; containers?: Container[]; labels?: Record<string, string> } = {},
) {
  const metadata: Record<string, unknown> = { name: 'web', namespace: 'default' };
  if (spec.labels) metadata.labels = spec.labels;
  const body: Record<string, unknown> = {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: spec.containers ?? [{ name: 'web', image: 'nginx:1' }] },
    },
  };
  if (spec.replicas !== undefined) body.replicas = spec.replicas;
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec: body } as KubeObject;
}

/** What the store would add on create: identity fields the manager never owns. */
function stored(obj: KubeObject): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, uid: 'uid-1', resourceVersion: '1', creationTimestamp: T0 } };
}

function apply(
  live: KubeObject | undefined,
  applied: KubeObject,
  manager: string,
  now: string,
  force = false,
) {
  return serverSideApply({
    kind: applied.kind,
    apiVersion: applied.apiVersion,
    live,
    applied,
    manager,
    force,
    now,
  });
}

function update(
  before: KubeObject | undefined,
  after: KubeObject,
  manager: string,
  now: string,
  subresource?: string,
) {
  return recordUpdate({
    kind: after.kind,
    apiVersion: after.apiVersion,
    before,
    after,
    manager,
    now,
    subresource,
  });
}

function entry(
  obj: KubeObject,
  manager: string,
  operation?: 'Apply' | 'Update',
): ManagedFieldsEntry | undefined {
  return obj.metadata.managedFields?.find(
    (e) => e.manager === manager && (!operation || e.operation === operation),
  );
}

function spec(obj: KubeObject): Record<string, unknown> {
  return obj.spec as Record<string, unknown>;
}

function containers(obj: KubeObject): Container[] {
  const template = spec(obj).template as { spec: { containers: Container[] } };
  return template.spec.containers;
}

function catchStatus(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('expected a StatusError');
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const WEB = keyElement({ name: 'web' });
const path = (...names: (string | ReturnType<typeof keyElement>)[]): Path =>
  names.map((n) => (typeof n === 'string' ? field(n) : n));

describe('field sets', () => {
  const fieldsV1 = {
    'f:metadata': { 'f:labels': { 'f:app': {} } },
    'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {} } } },
  };

  it('round-trips FieldsV1 in upstream key order', () => {
    const set = FieldSet.fromFieldsV1(fieldsV1);
    expect(set.paths().map(pathString)).toEqual([
      '.metadata.labels.app',
      '.spec.containers[name="web"]',
      '.spec.containers[name="web"].image',
    ]);
    expect(JSON.stringify(set.toFieldsV1())).toBe(JSON.stringify(fieldsV1));
  });

  it('orders field names byte-wise, then keys, set values and indexes; "." comes first', () => {
    const set = FieldSet.of(
      [field('b')],
      [field('B')],
      [field('a'), field('x')],
      [field('a')],
      [field('l'), { type: 'index', index: 2 }],
      [field('l'), { type: 'value', value: 'v' }],
      [field('l'), keyElement({ port: 80, protocol: 'TCP' })],
      [field('l'), { type: 'value', value: 1 }],
    );
    expect(JSON.stringify(set.toFieldsV1())).toBe(
      JSON.stringify({
        'f:B': {},
        'f:a': { '.': {}, 'f:x': {} },
        'f:b': {},
        'f:l': { 'k:{"port":80,"protocol":"TCP"}': {}, 'v:1': {}, 'v:"v"': {}, 'i:2': {} },
      }),
    );
  });

  it('parses members, "." markers and drops unknown element types', () => {
    const set = FieldSet.fromFieldsV1({ 'f:a': { '.': {}, 'f:b': {} }, 'x:zzz': {}, 'f:c': { 'y:q': {} } });
    expect(set.paths().map(pathString)).toEqual(['.a', '.c', '.a.b']);
    expect(() => FieldSet.fromFieldsV1({ f: {} })).toThrow('key must be 2 characters long');
    expect(() => FieldSet.fromFieldsV1({ 'fa:': {} })).toThrow('missing colon');
  });

  it('computes unions, intersections and differences as fieldpath.Set does', () => {
    const ab = FieldSet.of(path('a', 'b'));
    const a = FieldSet.of(path('a'));
    expect(a.union(ab).paths().map(pathString)).toEqual(['.a', '.a.b']);
    expect(a.intersection(ab).isEmpty()).toBe(true);
    expect(ab.difference(a).paths().map(pathString)).toEqual(['.a.b']); // child - parent = child
    expect(ab.recursiveDifference(a).isEmpty()).toBe(true);
    expect(
      ab
        .union(FieldSet.of(path('a', 'c')))
        .difference(ab)
        .paths()
        .map(pathString),
    ).toEqual(['.a.c']);
    expect(FieldSet.EMPTY.isEmpty()).toBe(true);
    expect(ab.has(path('a', 'b'))).toBe(true);
    expect(ab.has(path('a'))).toBe(false);
  });

  it('prints paths the way conflict messages do', () => {
    expect(pathString(path('spec', 'replicas'))).toBe('.spec.replicas');
    expect(pathString(path('spec', 'template', 'spec', 'containers', WEB, 'image'))).toBe(
      '.spec.template.spec.containers[name="web"].image',
    );
    expect(pathString([field('ports'), keyElement({ protocol: 'TCP', containerPort: 80 })])).toBe(
      '.ports[containerPort=80,protocol="TCP"]',
    );
    expect(pathString([field('finalizers'), { type: 'value', value: 'x' }])).toBe('.finalizers[="x"]');
  });

  it('owns leaves, list items by key (defaults included), set values, atomic values and empty maps', () => {
    const set = toFieldSet('Deployment', {
      metadata: { labels: {}, finalizers: ['a'] },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          spec: {
            containers: [
              {
                name: 'web',
                args: ['-v'],
                ports: [{ containerPort: 53, protocol: 'UDP' }, { containerPort: 53 }],
              },
            ],
            volumes: [],
            nodeSelector: {},
          },
        },
      },
    });
    expect(set.paths().map(pathString)).toEqual([
      '.metadata.labels',
      '.metadata.finalizers[="a"]',
      '.spec.selector',
      '.spec.template.spec.nodeSelector',
      '.spec.template.spec.containers[name="web"]',
      '.spec.template.spec.containers[name="web"].args',
      '.spec.template.spec.containers[name="web"].name',
      '.spec.template.spec.containers[name="web"].ports[containerPort=53,protocol="TCP"]',
      '.spec.template.spec.containers[name="web"].ports[containerPort=53,protocol="UDP"]',
      '.spec.template.spec.containers[name="web"].ports[containerPort=53,protocol="TCP"].containerPort',
      '.spec.template.spec.containers[name="web"].ports[containerPort=53,protocol="UDP"].containerPort',
      '.spec.template.spec.containers[name="web"].ports[containerPort=53,protocol="UDP"].protocol',
    ]);
  });

  it('compares: added containers with their contents, modified leaves, removed items', () => {
    const c = compare(
      'Deployment',
      { spec: { replicas: 1, template: { spec: { containers: [{ name: 'a', image: 'x' }] } } } },
      { spec: { replicas: 2, template: { spec: { containers: [{ name: 'b', image: 'x' }] } } }, status: {} },
    );
    expect(c.modified.paths().map(pathString)).toEqual(['.spec.replicas']);
    expect(c.added.paths().map(pathString)).toEqual([
      '.status',
      '.spec.template.spec.containers[name="b"]',
      '.spec.template.spec.containers[name="b"].image',
      '.spec.template.spec.containers[name="b"].name',
    ]);
    expect(c.removed.paths().map(pathString)).toEqual([
      '.spec.template.spec.containers[name="a"]',
      '.spec.template.spec.containers[name="a"].image',
      '.spec.template.spec.containers[name="a"].name',
    ]);
  });
});

describe('managedFields entries', () => {
  it('identifies appliers without their apiVersion and updaters with it', () => {
    expect(managerIdentifier({ manager: 'm', operation: 'Apply', apiVersion: 'apps/v1' })).toBe(
      '{"manager":"m","operation":"Apply"}',
    );
    expect(
      managerIdentifier({ manager: 'm', operation: 'Update', apiVersion: 'apps/v1', subresource: 'status' }),
    ).toBe('{"manager":"m","operation":"Update","apiVersion":"apps/v1","subresource":"status"}');
  });

  it('encodes entries sorted by operation, time, manager; drops empty ones on decode errors', () => {
    const entries: ManagedFieldsEntry[] = [
      {
        manager: 'z',
        operation: 'Update',
        apiVersion: 'v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:a': {} },
      },
      {
        manager: 'b',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:b': {} },
      },
      {
        manager: 'a',
        operation: 'Apply',
        apiVersion: 'v1',
        time: T2,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:c': {} },
      },
      {
        manager: 'c',
        operation: 'Update',
        apiVersion: 'v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:d': {} },
      },
    ];
    const encoded = encodeManagedFields(decodeManagedFields(entries), T3)!;
    expect(encoded.map((e) => e.manager)).toEqual(['a', 'c', 'z', 'b']);
    expect(encoded[0]).toEqual(entries[2]);
    expect(() => decodeManagedFields([{ ...entries[0], operation: 'Patch' }])).toThrow(
      'operation must be `Apply` or `Update`',
    );
    expect(() => decodeManagedFields([{ ...entries[0], fieldsType: '' }])).toThrow(
      'missing fieldsType in managed fields entry 0',
    );
    expect(() => decodeManagedFields([{ ...entries[0], apiVersion: '' }])).toThrow(
      'apiVersion must not be empty',
    );
  });

  it('formats conflicts for appliers, updaters, subresources and several managers', () => {
    const applier = managerIdentifier({ manager: 'a', operation: 'Apply' });
    const updater = managerIdentifier({ manager: 'm', operation: 'Update', apiVersion: 'apps/v1' });
    const statusApplier = managerIdentifier({ manager: 's', operation: 'Apply', subresource: 'status' });
    const scaler = managerIdentifier({
      manager: 'h',
      operation: 'Update',
      apiVersion: 'autoscaling/v1',
      subresource: 'scale',
    });
    const replicas = path('spec', 'replicas');

    const one = conflictStatusError([{ manager: updater, path: replicas }]);
    expect(one.code).toBe(409);
    expect(one.reason).toBe('Conflict');
    expect(one.message).toBe('Apply failed with 1 conflict: conflict with "m" using apps/v1: .spec.replicas');
    expect(one.details).toEqual({
      causes: [
        {
          reason: 'FieldManagerConflict',
          message: 'conflict with "m" using apps/v1',
          field: '.spec.replicas',
        },
      ],
    });
    expect(conflictStatusError([{ manager: applier, path: replicas }]).message).toBe(
      'Apply failed with 1 conflict: conflict with "a": .spec.replicas',
    );
    expect(conflictStatusError([{ manager: statusApplier, path: path('status') }]).message).toBe(
      'Apply failed with 1 conflict: conflict with "s" with subresource "status": .status',
    );
    expect(conflictStatusError([{ manager: scaler, path: replicas }]).message).toBe(
      'Apply failed with 1 conflict: conflict with "h" with subresource "scale" using autoscaling/v1: .spec.replicas',
    );
    const several = conflictStatusError([
      { manager: updater, path: replicas },
      { manager: applier, path: path('metadata', 'labels', 'app') },
      { manager: updater, path: path('spec', 'paused') },
    ]);
    expect(several.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "a":\n- .metadata.labels.app\nconflicts with "m" using apps/v1:\n- .spec.replicas\n- .spec.paused',
    );
    expect(several.details?.causes?.map((c) => c.message)).toEqual([
      'conflict with "m" using apps/v1',
      'conflict with "a"',
      'conflict with "m" using apps/v1',
    ]);
  });
});

describe('serverSideApply', () => {
  it('creates a missing object and records what the configuration sets', () => {
    const created = apply(undefined, deployment({ replicas: 2, labels: { app: 'web' } }), 'deployer', T0);
    expect(spec(created).replicas).toBe(2);
    expect(created.metadata.managedFields).toEqual([
      {
        manager: 'deployer',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
            },
          },
        },
      },
    ]);
  });

  it('changes nothing when the same configuration is applied again', () => {
    const live = deepFreeze(stored(apply(undefined, deployment({ replicas: 2 }), 'deployer', T0)));
    const again = apply(live, deployment({ replicas: 2 }), 'deployer', T1);
    // Same time too: a no-op apply must not rewrite the object (nor bump its resourceVersion).
    expect(again).toEqual(live);
    expect(JSON.stringify(again)).toBe(JSON.stringify(live));
  });

  it('updates the value and the entry time when the configuration changes', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 }), 'deployer', T0));
    const next = apply(live, deployment({ replicas: 3 }), 'deployer', T1);
    expect(spec(next).replicas).toBe(3);
    expect(entry(next, 'deployer')?.time).toBe(T1);
    expect(next.metadata.uid).toBe('uid-1');
    expect(next.metadata.resourceVersion).toBe('1');
  });

  it('removes fields the applier owned and no longer applies', () => {
    const live = stored(
      apply(undefined, deployment({ replicas: 2, labels: { app: 'web', tier: 'fe' } }), 'deployer', T0),
    );
    const fewer = apply(live, deployment({ labels: { app: 'web' } }), 'deployer', T1);
    expect(spec(fewer).replicas).toBeUndefined();
    expect(fewer.metadata.labels).toEqual({ app: 'web' });
    const none = apply(fewer, deployment(), 'deployer', T2);
    // The emptied map goes, as a Go struct would have it.
    expect(none.metadata).not.toHaveProperty('labels');
    expect(entry(none, 'deployer')?.fieldsV1).not.toHaveProperty('f:metadata');
  });

  it('keeps a dropped field that another manager also owns', () => {
    const one = stored(apply(undefined, deployment({ replicas: 2 }), 'a', T0));
    const both = apply(one, deployment({ replicas: 2 }), 'b', T1); // same value: shared, no conflict
    expect(entry(both, 'b')?.fieldsV1).toHaveProperty(['f:spec', 'f:replicas']);
    expect(entry(both, 'a')?.fieldsV1).toHaveProperty(['f:spec', 'f:replicas']);
    const aDrops = apply(both, deployment(), 'a', T2);
    expect(spec(aDrops).replicas).toBe(2);
    expect(entry(aDrops, 'a')?.fieldsV1).not.toHaveProperty(['f:spec', 'f:replicas']);
    const bDrops = apply(aDrops, deployment(), 'b', T3);
    expect(spec(bDrops).replicas).toBeUndefined();
  });

  it('reports a conflicting value owned by another applier', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 }), 'a', T0));
    const err = catchStatus(() => apply(live, deployment({ replicas: 5 }), 'b', T1));
    expect(err.code).toBe(409);
    expect(err.reason).toBe('Conflict');
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.replicas');
    expect(err.details).toEqual({
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.replicas' }],
    });
    expect(err.toStatus()).toMatchObject({ kind: 'Status', status: 'Failure', code: 409 });
  });

  it('lists several conflicts grouped by manager', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 }), 'a', T0));
    const err = catchStatus(() =>
      apply(live, deployment({ replicas: 5, containers: [{ name: 'web', image: 'nginx:2' }] }), 'b', T1),
    );
    expect(err.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "a":\n- .spec.replicas\n- .spec.template.spec.containers[name="web"].image',
    );
    expect(err.details?.causes?.map((c) => c.field)).toEqual([
      '.spec.replicas',
      '.spec.template.spec.containers[name="web"].image',
    ]);
  });

  it('takes ownership with force', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 }), 'a', T0));
    const forced = apply(live, deployment({ replicas: 5 }), 'b', T1, true);
    expect(spec(forced).replicas).toBe(5);
    expect(entry(forced, 'b')?.fieldsV1).toHaveProperty(['f:spec', 'f:replicas']);
    expect(entry(forced, 'a')?.fieldsV1).not.toHaveProperty(['f:spec', 'f:replicas']);
    // a still owns (shared) the rest; dropping replicas now leaves b's value alone.
    const aAgain = apply(forced, deployment(), 'a', T2);
    expect(spec(aAgain).replicas).toBe(5);
  });

  it('drops the entry of a manager that loses every field', () => {
    const live = stored(apply(undefined, { ...deployment(), spec: { replicas: 2 } }, 'a', T0));
    const forced = apply(live, { ...deployment(), spec: { replicas: 3 } }, 'b', T1, true);
    expect(forced.metadata.managedFields?.map((e) => e.manager)).toEqual(['b']);
  });

  it('tracks containers, env vars and ports per item', () => {
    const app = deployment({
      containers: [
        {
          name: 'web',
          image: 'nginx:1',
          env: [{ name: 'MODE', value: 'prod' }],
          ports: [{ containerPort: 53, protocol: 'UDP' }, { containerPort: 80 }],
        },
      ],
    });
    const live = stored(apply(undefined, app, 'deployer', T0));
    const webKey = 'k:{"name":"web"}';
    expect(entry(live, 'deployer')?.fieldsV1).toHaveProperty(
      ['f:spec', 'f:template', 'f:spec', 'f:containers', webKey, 'f:ports'],
      {
        'k:{"containerPort":53,"protocol":"UDP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
        'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
      },
    );
    // A sidecar injector adds its own container and an env var to web: no conflict.
    const injected = apply(
      live,
      deployment({
        containers: [
          { name: 'web', env: [{ name: 'PROXY', value: 'on' }] },
          { name: 'proxy', image: 'envoy:1' },
        ],
      }),
      'injector',
      T1,
    );
    expect(containers(injected).map((c) => c.name)).toEqual(['web', 'proxy']);
    expect(containers(injected)[0]!.env).toEqual([
      { name: 'MODE', value: 'prod' },
      { name: 'PROXY', value: 'on' },
    ]);
    // The deployer dropping its port 53 and env var removes only those items.
    const redeployed = apply(
      injected,
      deployment({ containers: [{ name: 'web', image: 'nginx:1', ports: [{ containerPort: 80 }] }] }),
      'deployer',
      T2,
    );
    const web = containers(redeployed)[0]!;
    expect(web.ports).toEqual([{ containerPort: 80 }]);
    expect(web.env).toEqual([{ name: 'PROXY', value: 'on' }]);
    expect(containers(redeployed)[1]).toEqual({ name: 'proxy', image: 'envoy:1' });
    // Port 80/TCP and 80/UDP are different items: naming the TCP one differently conflicts on
    // its name only; adding a UDP item, or a field nobody set, does not.
    const named = apply(
      redeployed,
      deployment({
        containers: [{ name: 'web', image: 'nginx:1', ports: [{ containerPort: 80, name: 'http' }] }],
      }),
      'deployer',
      T3,
    );
    const err = catchStatus(() =>
      apply(
        named,
        deployment({ containers: [{ name: 'web', ports: [{ containerPort: 80, name: 'www' }] }] }),
        'other',
        T3,
      ),
    );
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "deployer": .spec.template.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"].name',
    );
    const ok = apply(
      named,
      deployment({
        containers: [
          {
            name: 'web',
            ports: [
              { containerPort: 80, protocol: 'UDP', name: 'quic' },
              { containerPort: 80, hostPort: 8080 },
            ],
          },
        ],
      }),
      'other',
      T3,
    );
    // The new item goes where the configuration puts it relative to the shared one.
    expect(containers(ok)[0]!.ports).toEqual([
      { containerPort: 80, protocol: 'UDP', name: 'quic' },
      { containerPort: 80, name: 'http', hostPort: 8080 },
    ]);
  });

  it('removes a whole container its applier dropped, keeping another applier’s', () => {
    const two = stored(
      apply(
        undefined,
        deployment({
          containers: [
            { name: 'web', image: 'a' },
            { name: 'job', image: 'b' },
          ],
        }),
        'deployer',
        T0,
      ),
    );
    const shared = apply(two, deployment({ containers: [{ name: 'job', image: 'b' }] }), 'other', T1);
    const one = apply(shared, deployment({ containers: [{ name: 'web', image: 'a' }] }), 'deployer', T2);
    expect(containers(one)).toEqual([
      { name: 'web', image: 'a' },
      { name: 'job', image: 'b' },
    ]);
    const none = apply(one, deployment({ containers: [{ name: 'web', image: 'a' }] }), 'other', T3);
    expect(containers(none)).toEqual([{ name: 'web', image: 'a' }]);
  });

  it('merges set lists (finalizers) by value', () => {
    const withFinalizers = (names: string[]) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default', finalizers: names },
    });
    const live = stored(apply(undefined, withFinalizers(['a.io/x']), 'one', T0));
    expect(entry(live, 'one')?.fieldsV1).toEqual({ 'f:metadata': { 'f:finalizers': { 'v:"a.io/x"': {} } } });
    const both = apply(live, withFinalizers(['b.io/y']), 'two', T1);
    expect(both.metadata.finalizers).toEqual(['a.io/x', 'b.io/y']);
    const dropped = apply(both, withFinalizers([]), 'one', T2);
    expect(dropped.metadata.finalizers).toEqual(['b.io/y']);
  });

  it('owns labels and annotations key by key', () => {
    const cm = (labels: Record<string, string>, annotations?: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default', labels, ...(annotations ? { annotations } : {}) },
      data: { k: 'v' },
    });
    const live = stored(apply(undefined, cm({ a: '1' }, { note: 'x' }), 'one', T0));
    const two = apply(live, cm({ b: '2' }), 'two', T1);
    expect(two.metadata.labels).toEqual({ a: '1', b: '2' });
    const err = catchStatus(() => apply(two, cm({ a: 'changed' }), 'two', T2));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "one": .metadata.labels.a');
    const oneDrops = apply(two, cm({}), 'one', T2);
    expect(oneDrops.metadata.labels).toEqual({ b: '2' });
    expect(oneDrops.metadata).not.toHaveProperty('annotations');
    expect(oneDrops.data).toEqual({ k: 'v' });
  });

  it('conflicts with fields an Update manager wrote, naming its apiVersion', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 }), 'deployer', T0));
    const edited = update(live, { ...live, spec: { ...spec(live), replicas: 4 } }, 'kubectl-edit', T1);
    expect(entry(edited, 'kubectl-edit')).toEqual({
      manager: 'kubectl-edit',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: T1,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    // The update took replicas from the applier.
    expect(entry(edited, 'deployer')?.fieldsV1).not.toHaveProperty(['f:spec', 'f:replicas']);
    const err = catchStatus(() => apply(edited, deployment({ replicas: 2 }), 'deployer', T2));
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: .spec.replicas',
    );
    expect(err.details?.causes).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "kubectl-edit" using apps/v1',
        field: '.spec.replicas',
      },
    ]);
    const forced = apply(edited, deployment({ replicas: 2 }), 'deployer', T2, true);
    expect(spec(forced).replicas).toBe(2);
    expect(entry(forced, 'kubectl-edit')).toBeUndefined();
  });

  // The next three follow structured-merge-diff's merge/multiple_appliers_test.go.
  it('keeps a field an updater also owns when the applier drops it (unset_scalar_shared_with_updater)', () => {
    const created = stored(update(undefined, stored(deployment({ replicas: 2 })), 'updater', T0));
    const applied = apply(created, deployment({ replicas: 2 }), 'applier', T1);
    const dropped = apply(applied, deployment(), 'applier', T2);
    expect(spec(dropped).replicas).toBe(2);
    expect(entry(dropped, 'updater')?.fieldsV1).toHaveProperty(['f:spec', 'f:replicas']);
    expect(entry(dropped, 'applier')?.fieldsV1).not.toHaveProperty(['f:spec', 'f:replicas']);
  });

  it('drops a list item its applier removed even if an updater owns a field in it (dangling sub-item)', () => {
    const live = stored(
      apply(undefined, deployment({ containers: [{ name: 'a' }, { name: 'b', image: 'c' }] }), 'one', T0),
    );
    const controlled = update(
      live,
      deployment({ containers: [{ name: 'a' }, { name: 'b', image: 'c', imagePullPolicy: 'Always' }] }),
      'controller',
      T1,
    );
    expect(entry(controlled, 'controller')?.fieldsV1).toEqual({
      'f:spec': {
        'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"b"}': { 'f:imagePullPolicy': {} } } } },
      },
    });
    const next = apply(stored(controlled), deployment({ containers: [{ name: 'a' }] }), 'one', T2);
    expect(containers(next)).toEqual([{ name: 'a' }]);
    expect(entry(next, 'controller')).toBeUndefined();
  });

  it('keeps an item another applier shares, minus the fields only the remover owned', () => {
    const live = stored(
      apply(undefined, deployment({ containers: [{ name: 'a' }, { name: 'b', image: 'c' }] }), 'one', T0),
    );
    const two = apply(
      live,
      deployment({ containers: [{ name: 'b', env: [{ name: 'D', value: 'd' }] }] }),
      'two',
      T1,
    );
    const next = apply(two, deployment({ containers: [{ name: 'a' }] }), 'one', T2);
    expect(containers(next)).toEqual([{ name: 'a' }, { name: 'b', env: [{ name: 'D', value: 'd' }] }]);
  });

  it('lets an update take a field from an applier (updater_claims_field)', () => {
    const live = stored(
      apply(undefined, deployment({ containers: [{ name: 'web', image: 'a' }] }), 'applier', T0),
    );
    const claimed = update(live, deployment({ containers: [{ name: 'web', image: 'b' }] }), 'updater', T1);
    const web = ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"web"}'];
    expect(entry(claimed, 'updater')?.fieldsV1).toHaveProperty([...web, 'f:image']);
    expect(entry(claimed, 'applier')?.fieldsV1).not.toHaveProperty([...web, 'f:image']);
    expect(entry(claimed, 'applier')?.fieldsV1).toHaveProperty([...web, 'f:name']);
  });

  it('adds a sharing applier to an unchanged object without touching the others', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 }), 'a', T0));
    const shared = apply(live, deployment({ replicas: 2 }), 'b', T1);
    expect({ ...shared, metadata: { ...shared.metadata, managedFields: undefined } }).toEqual({
      ...live,
      metadata: { ...live.metadata, managedFields: undefined },
    });
    expect(entry(shared, 'a')).toEqual(entry(live, 'a'));
    // Upstream leaves `time` out of an entry whose apply changed nothing; ManagedFieldsEntry
    // requires one, so kube-sim dates it with the request.
    expect(entry(shared, 'b')?.time).toBe(T1);
  });

  it('replaces atomic lists and maps whole', () => {
    const live = stored(
      apply(
        undefined,
        deployment({ containers: [{ name: 'web', image: 'a', args: ['--a', '--b'] }] }),
        'deployer',
        T0,
      ),
    );
    const next = apply(
      live,
      deployment({ containers: [{ name: 'web', image: 'a', args: ['--c'] }] }),
      'deployer',
      T1,
    );
    expect(containers(next)[0]!.args).toEqual(['--c']);
    const selector = {
      ...deployment(),
      spec: { ...spec(deployment()), selector: { matchLabels: { other: 'x' } } },
    };
    const replaced = apply(next, selector, 'deployer', T2);
    expect(spec(replaced).selector).toEqual({ matchLabels: { other: 'x' } });
    expect(entry(replaced, 'deployer')?.fieldsV1).toHaveProperty(['f:spec', 'f:selector'], {});
  });

  it('keeps live list order and places new items after the shared ones they follow', () => {
    const live = stored(
      apply(undefined, deployment({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }), 'one', T0),
    );
    const next = apply(
      live,
      deployment({ containers: [{ name: 'b' }, { name: 'x' }, { name: 'c' }] }),
      'two',
      T1,
    );
    expect(containers(next).map((c) => c.name)).toEqual(['a', 'b', 'x', 'c']);
  });

  it('owns an applied empty map without clearing it', () => {
    const live = stored(apply(undefined, deployment({ labels: { a: '1' } }), 'one', T0));
    const next = apply(live, deployment({ labels: {} }), 'two', T1);
    expect(next.metadata.labels).toEqual({ a: '1' });
    expect(entry(next, 'two')?.fieldsV1).toHaveProperty(['f:metadata', 'f:labels'], {});
  });

  it('owns an applied null and leaves the field out of the object', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 }), 'one', T0));
    const cleared = apply(
      live,
      { ...deployment(), spec: { ...spec(deployment()), replicas: null } },
      'one',
      T1,
    );
    expect(spec(cleared)).not.toHaveProperty('replicas');
    expect(entry(cleared, 'one')?.fieldsV1).toHaveProperty(['f:spec', 'f:replicas'], {});
  });

  it('records status-subresource appliers separately and ignores reset fields', () => {
    const live = stored(
      apply(undefined, { ...deployment({ replicas: 1 }), status: { replicas: 9 } }, 'deployer', T0),
    );
    // The main endpoint never owns status (the strategy resets it).
    expect(entry(live, 'deployer')?.fieldsV1).not.toHaveProperty('f:status');
    const status = serverSideApply({
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      live,
      applied: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default' },
        status: { readyReplicas: 1 },
      },
      manager: 'controller',
      force: false,
      now: T1,
      subresource: 'status',
    });
    expect(entry(status, 'controller')).toMatchObject({
      operation: 'Apply',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:readyReplicas': {} } },
    });
    // Not a conflict: status is reset on the main endpoint, so changing it there is nobody's
    // business (the strategy then restores it), and the writer owns nothing of it.
    const main = serverSideApply({
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      live: status,
      applied: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default' },
        status: { readyReplicas: 2 },
      },
      manager: 'other',
      force: false,
      now: T2,
    });
    expect(entry(main, 'other')).toBeUndefined();
    expect(entry(main, 'controller')).toEqual(entry(status, 'controller'));
  });

  it('names a subresource applier in conflicts', () => {
    const live = stored(apply(undefined, deployment(), 'deployer', T0));
    const body = (ready: number): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      status: { readyReplicas: ready },
    });
    const first = serverSideApply({
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      live,
      applied: body(1),
      manager: 'c1',
      force: false,
      now: T1,
      subresource: 'status',
    });
    const err = catchStatus(() =>
      serverSideApply({
        kind: 'Deployment',
        apiVersion: 'apps/v1',
        live: first,
        applied: body(2),
        manager: 'c2',
        force: false,
        now: T2,
        subresource: 'status',
      }),
    );
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "c1" with subresource "status": .status.readyReplicas',
    );
  });

  it('gives an untracked object’s fields to before-first-apply', () => {
    const untracked = stored(deployment({ replicas: 3 }));
    const err = catchStatus(() => apply(untracked, deployment({ replicas: 1 }), 'deployer', T1));
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.replicas',
    );
    const same = apply(untracked, deployment({ replicas: 3 }), 'deployer', T1);
    expect(same.metadata.managedFields?.map((e) => [e.manager, e.operation])).toEqual([
      ['deployer', 'Apply'],
      ['before-first-apply', 'Update'],
    ]);
  });

  it('upgrades kubectl client-side apply: conflicts on last-applied fields are forced', () => {
    const csa = deployment({ replicas: 2 });
    const annotated = {
      ...csa,
      metadata: {
        ...csa.metadata,
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(csa)}\n` },
      },
    };
    const live = stored(update(undefined, stored(annotated), 'kubectl-client-side-apply', T0));
    expect(entry(live, 'kubectl-client-side-apply')?.fieldsV1).toHaveProperty(['f:spec', 'f:replicas']);
    const ssa = apply(live, deployment({ replicas: 3 }), 'kubectl', T1);
    expect(spec(ssa).replicas).toBe(3);
    const annotation = ssa.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
    expect(JSON.parse(annotation!)).toEqual(deployment({ replicas: 3 }));
    expect(annotation!.endsWith('}\n')).toBe(true);
    // Another manager gets no such pass.
    const err = catchStatus(() => apply(live, deployment({ replicas: 3 }), 'someone', T1));
    expect(err.message).toContain('conflict with "kubectl-client-side-apply" using apps/v1');
  });

  it('rejects a body of another type, one carrying managedFields, and untypable lists', () => {
    const wrongKind = catchStatus(() =>
      serverSideApply({
        kind: 'Deployment',
        apiVersion: 'apps/v1',
        live: undefined,
        applied: { ...deployment(), kind: 'ReplicaSet' },
        manager: 'm',
        force: false,
        now: T0,
      }),
    );
    expect([wrongKind.code, wrongKind.reason, wrongKind.message]).toEqual([
      400,
      'BadRequest',
      'invalid object type: apps/v1, Kind=ReplicaSet',
    ]);
    const withFields = deployment();
    withFields.metadata.managedFields = [];
    const mf = catchStatus(() => apply(undefined, withFields, 'm', T0));
    expect([mf.code, mf.message]).toEqual([400, 'metadata.managedFields must be nil']);
    const noName = catchStatus(() => apply(undefined, deployment({ containers: [{ image: 'x' }] }), 'm', T0));
    expect(noName.code).toBe(500);
    expect(noName.message).toBe(
      'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
    const dup = catchStatus(() =>
      apply(
        undefined,
        deployment({ containers: [{ name: 'a', env: [{ name: 'X' }, { name: 'X' }] }] }),
        'm',
        T0,
      ),
    );
    expect(dup.message).toBe(
      'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="a"].env: duplicate entries for key [name="X"]',
    );
  });

  it('never mutates its inputs and returns fresh objects', () => {
    const live = deepFreeze(
      stored(apply(undefined, deployment({ replicas: 2, labels: { a: '1' } }), 'a', T0)),
    );
    const applied = deepFreeze(deployment({ replicas: 3 }));
    const out = apply(live, applied, 'b', T1, true);
    expect(out).not.toBe(live);
    (out.metadata.labels as Record<string, string>).b = '2';
    expect(live.metadata.labels).toEqual({ a: '1' });
  });
});

describe('recordUpdate', () => {
  it('records a create the way kubectl create shows it', () => {
    const created = update(
      undefined,
      stored(deployment({ replicas: 1, labels: { app: 'web' } })),
      'kubectl-create',
      T0,
    );
    expect(created.metadata.managedFields).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
              'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
            },
          },
        },
      },
    ]);
  });

  it('merges a manager’s later changes into its entry and leaves unchanged writes alone', () => {
    const created = stored(update(undefined, stored(deployment({ replicas: 1 })), 'ctl', T0));
    const same = update(created, created, 'ctl', T1);
    expect(same).toEqual(created);
    const scaled = update(created, { ...created, spec: { ...spec(created), replicas: 2 } }, 'ctl', T1);
    expect(entry(scaled, 'ctl')?.time).toBe(T1);
    expect(scaled.metadata.managedFields).toHaveLength(1);
    const other = update(scaled, { ...scaled, spec: { ...spec(scaled), paused: true } }, 'pauser', T2);
    expect(entry(other, 'pauser')?.fieldsV1).toEqual({ 'f:spec': { 'f:paused': {} } });
    expect(entry(other, 'ctl')?.time).toBe(T1);
  });

  it('takes removed fields away from their owners', () => {
    const live = stored(
      apply(undefined, deployment({ replicas: 2, labels: { app: 'web' } }), 'deployer', T0),
    );
    const { labels: _gone, ...metadata } = live.metadata;
    const stripped = update(live, { ...live, metadata }, 'cleaner', T1);
    expect(entry(stripped, 'deployer')?.fieldsV1).not.toHaveProperty('f:metadata');
    expect(entry(stripped, 'cleaner')).toBeUndefined();
  });

  it('keeps a status writer’s entry apart and never lets it own spec', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 }), 'deployer', T0));
    const written = update(
      live,
      { ...live, spec: { ...spec(live), replicas: 7 }, status: { replicas: 2 } },
      'deployment-controller',
      T1,
      'status',
    );
    expect(entry(written, 'deployment-controller')).toEqual({
      manager: 'deployment-controller',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: T1,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { '.': {}, 'f:replicas': {} } },
      subresource: 'status',
    });
    // Reset fields are nobody's change: the applier keeps replicas.
    expect(entry(written, 'deployer')?.fieldsV1).toHaveProperty(['f:spec', 'f:replicas']);
  });

  it('honours managedFields sent by the writer, except on subresources', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 }), 'deployer', T0));
    const reset = update(
      live,
      { ...live, metadata: { ...live.metadata, managedFields: [{} as ManagedFieldsEntry] } },
      'ctl',
      T1,
    );
    expect(reset.metadata.managedFields).toBeUndefined();
    const untracked = { ...live, metadata: { ...live.metadata } };
    delete untracked.metadata.managedFields;
    // An existing object nobody manages stays untracked until something applies to it.
    const next = update(untracked, { ...untracked, spec: { ...spec(untracked), replicas: 3 } }, 'ctl', T1);
    expect(next.metadata.managedFields).toBeUndefined();
    const custom: ManagedFieldsEntry[] = [
      {
        manager: 'x',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:paused': {} } },
      },
    ];
    const replaced = update(
      live,
      { ...live, metadata: { ...live.metadata, managedFields: custom } },
      'ctl',
      T1,
    );
    expect(replaced.metadata.managedFields).toEqual(custom);
    const viaStatus = update(
      live,
      { ...live, metadata: { ...live.metadata, managedFields: custom } },
      'ctl',
      T1,
      'status',
    );
    expect(viaStatus.metadata.managedFields).toEqual(live.metadata.managedFields);
  });

  it('merges the oldest of more than ten update managers into ancient-changes', () => {
    let obj = stored(
      update(
        undefined,
        stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} }),
        'creator',
        T0,
      ),
    );
    for (let i = 0; i < 11; i++) {
      const time = `2024-05-02T00:00:${String(i).padStart(2, '0')}Z`;
      obj = update(obj, { ...obj, data: { ...(obj.data as object), [`k${i}`]: 'v' } }, `writer-${i}`, time);
    }
    const managers = obj.metadata.managedFields!.map((e) => e.manager);
    expect(managers).toHaveLength(10);
    expect(managers[0]).toBe('ancient-changes');
    expect(managers).not.toContain('creator');
    // Capping runs on every write: writer-9's merged creator and writer-0, writer-10's writer-1.
    expect(managers).not.toContain('writer-0');
    expect(managers).not.toContain('writer-1');
    expect(obj.metadata.managedFields![0]).toMatchObject({
      time: '2024-05-02T00:00:01Z',
      fieldsV1: { 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {} } },
    });
  });

  it('keys Update entries by apiVersion too, Apply entries not', () => {
    const live = stored(apply(undefined, deployment({ replicas: 1 }), 'tool', T0));
    const old: ManagedFieldsEntry[] = [
      ...live.metadata.managedFields!.map((e) => ({ ...e, apiVersion: 'apps/v1beta2' })),
      {
        manager: 'tool',
        operation: 'Update',
        apiVersion: 'apps/v1beta2',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:paused': {} } },
      },
    ];
    const legacy = { ...live, metadata: { ...live.metadata, managedFields: old } };
    const updated = update(legacy, { ...legacy, spec: { ...spec(legacy), minReadySeconds: 5 } }, 'tool', T1);
    expect(updated.metadata.managedFields?.map((e) => [e.operation, e.apiVersion])).toEqual([
      ['Apply', 'apps/v1beta2'],
      ['Update', 'apps/v1beta2'],
      ['Update', 'apps/v1'],
    ]);
    const reapplied = apply(stored(updated), deployment({ replicas: 3 }), 'tool', T2);
    expect(
      reapplied.metadata.managedFields?.filter((e) => e.operation === 'Apply').map((e) => e.apiVersion),
    ).toEqual(['apps/v1']);
  });

  it('records a manager-less write as unknown', () => {
    const created = update(undefined, stored(deployment()), '', T0);
    expect(created.metadata.managedFields?.[0]?.manager).toBe('unknown');
  });
});

describe('defaultManager', () => {
  it('takes the User-Agent up to its first slash', () => {
    expect(defaultManager('kubectl/v1.33.0 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(defaultManager('kubernetes-client-javascript/1.4.0')).toBe('kubernetes-client-javascript');
    expect(defaultManager('helm')).toBe('helm');
    expect(defaultManager(undefined)).toBe('');
    expect(defaultManager('a\u0007b/1')).toBe('ab');
    expect(defaultManager('x'.repeat(200))).toHaveLength(128);
  });
});

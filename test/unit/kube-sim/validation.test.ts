import { describe, expect, it } from 'vitest';
import { applyDefaults, defaultJobSelector } from '../../../infra/kube-sim/defaulting/index.ts';
import { type FieldError, statusErrors } from '../../../infra/kube-sim/errors.ts';
import { findByKind, type ResourceType } from '../../../infra/kube-sim/resources.ts';
import type { KubeObject } from '../../../infra/kube-sim/types.ts';
import { cronScheduleError } from '../../../infra/kube-sim/validation/cron.ts';
import { validateCreate, validateUpdate } from '../../../infra/kube-sim/validation/index.ts';
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isRelaxedEnvVarName,
  isValidLabelValue,
  isValidPortName,
} from '../../../infra/kube-sim/validation/names.ts';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

let nextIP = 10;
function typeOf(object: KubeObject): ResourceType {
  const type = findByKind(object.apiVersion, object.kind);
  if (!type) throw new Error(`no type for ${object.apiVersion} ${object.kind}`);
  return type;
}

/** What the server does before validating a create: defaults, uid, the Job selector. */
function prepare(object: KubeObject, old?: KubeObject): KubeObject {
  const copy = structuredClone(object);
  applyDefaults(typeOf(copy), copy, {
    allocateClusterIP: () => `10.96.0.${nextIP++}`,
    ...(old ? { old } : {}),
  });
  if (copy.kind === 'Job') {
    copy.metadata.uid ??= 'uid-1';
    defaultJobSelector(copy);
  }
  return copy;
}

function create(object: KubeObject): FieldError[] {
  const prepared = prepare(object);
  return validateCreate(typeOf(prepared), prepared);
}

/** The 422 message the server sends for a create. */
function createMessage(object: KubeObject): string {
  const prepared = prepare(object);
  const type = typeOf(prepared);
  const errors = validateCreate(type, prepared);
  return errors.length === 0
    ? 'OK'
    : statusErrors.invalid(type, prepared.metadata.name ?? '', errors).message;
}

/** Stores `object` (prepared), applies `mutate` to a copy, and returns the update's errors. */
function update(object: KubeObject, mutate: (o: KubeObject) => void, subresource?: 'status'): FieldError[] {
  const old = prepare(object);
  old.metadata.uid ??= 'uid-1';
  old.metadata.resourceVersion = '5';
  const next = structuredClone(old);
  mutate(next);
  const prepared = prepare(next, old);
  return validateUpdate(typeOf(prepared), prepared, old, subresource);
}

function texts(errors: FieldError[]): string[] {
  return errors.map((e) => `${e.field}: ${e.type}${e.detail ? `: ${e.detail}` : ''}`);
}

const meta = (name: string, namespace = 'default') => ({ name, namespace });
const container = (extra: Record<string, unknown> = {}) => ({ name: 'app', image: 'nginx:1.27', ...extra });
const podSpec = (extra: Record<string, unknown> = {}) => ({ containers: [container()], ...extra });
const deployment = (spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: meta('web'),
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: podSpec() },
    ...spec,
  },
});
const job = (templateSpec: Record<string, unknown> = { restartPolicy: 'Never' }): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: meta('migrate'),
  spec: { template: { spec: podSpec(templateSpec) } },
});
const cronJob = (spec: Record<string, unknown>, name = 'nightly'): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: meta(name),
  spec: { jobTemplate: { spec: { template: { spec: podSpec({ restartPolicy: 'OnFailure' }) } } }, ...spec },
});

describe('name formats', () => {
  it('reports DNS-1123 subdomains, labels and DNS-1035 labels with upstream wording', () => {
    expect(isDNS1123Subdomain('Example.com')).toEqual([SUBDOMAIN_MSG]);
    expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
    expect(isDNS1123Label('My_Name')).toEqual([LABEL_MSG]);
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
    expect(isDNS1035Label('1abc')).toEqual([DNS1035_MSG]);
    expect(isDNS1035Label('abc-1')).toEqual([]);
  });

  it('checks qualified names part by part', () => {
    expect(isQualifiedName('example.com/my-key')).toEqual([]);
    expect(isQualifiedName('/key')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('Bad_Prefix/key')[0]).toBe(`prefix part ${SUBDOMAIN_MSG}`);
    expect(isQualifiedName('a/b/c')).toEqual([
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
    expect(isQualifiedName('x'.repeat(64))).toEqual(['name part must be no more than 63 characters']);
    expect(isQualifiedName('')).toHaveLength(2);
  });

  it('checks label values, config keys, env names and port names', () => {
    expect(isValidLabelValue('')).toEqual([]);
    expect(isValidLabelValue('-x')).toEqual([
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
    expect(isConfigMapKey('a/b')).toEqual([
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    expect(isConfigMapKey('..x')).toEqual(["must not start with '..'"]);
    expect(isRelaxedEnvVarName('1_WEIRD name')).toEqual([]);
    expect(isRelaxedEnvVarName('A=B')).toEqual([
      "a valid environment variable name must consist only of printable ASCII characters other than '='",
    ]);
    expect(isValidPortName('HTTP')).toEqual([
      'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'must contain at least one letter (a-z)',
    ]);
    expect(isValidPortName('a-very-long-port-name')).toEqual(['must be no more than 15 characters']);
  });
});

describe('cron schedules (robfig/cron ParseStandard)', () => {
  it('accepts five fields, names, steps and descriptors', () => {
    for (const spec of [
      '*/5 * * * *',
      '0 3 * jan-mar mon-fri',
      '15 2 1,15 * ?',
      '@daily',
      '@every 1h30m',
      '@annually',
    ]) {
      expect(cronScheduleError(spec), spec).toBeUndefined();
    }
  });

  it('gives the parser error text', () => {
    expect(cronScheduleError('* * * *')).toBe('expected exactly 5 fields, found 4: [* * * *]');
    expect(cronScheduleError('0 24 * * *')).toBe('end of range (24) above maximum (23): 24');
    expect(cronScheduleError('0 0 0 * *')).toBe('beginning of range (0) below minimum (1): 0');
    expect(cronScheduleError('x * * * *')).toBe(
      'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax',
    );
    expect(cronScheduleError('5-1 * * * *')).toBe('beginning of range (5) beyond end of range (1): 5-1');
    expect(cronScheduleError('*/0 * * * *')).toBe('step of range should be a positive number: */0');
    expect(cronScheduleError('@fortnightly')).toBe('unrecognized descriptor: @fortnightly');
    expect(cronScheduleError('@every 5')).toBe(
      'failed to parse duration @every 5: time: missing unit in duration "5"',
    );
    expect(cronScheduleError('')).toBe('empty spec string');
  });
});

describe('ObjectMeta', () => {
  it('requires a name', () => {
    expect(createMessage({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default' } })).toBe(
      'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    );
  });

  it('validates generateName with a trailing dash allowed', () => {
    const errors = create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-abcde', generateName: 'web-', namespace: 'default' },
    });
    expect(errors).toEqual([]);
    expect(
      texts(
        create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'x', generateName: 'Web-', namespace: 'default' },
        }),
      ),
    ).toEqual([`metadata.generateName: FieldValueInvalid: ${SUBDOMAIN_MSG}`]);
  });

  it('requires a namespace on namespaced kinds and forbids it on cluster-scoped ones', () => {
    expect(texts(create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }))).toEqual([
      'metadata.namespace: FieldValueRequired',
    ]);
    expect(
      createMessage({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'pv', namespace: 'x' },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
      }),
    ).toBe('PersistentVolume "pv" is invalid: metadata.namespace: Forbidden: not allowed on this type');
  });

  it('validates label keys and values on the labels path', () => {
    const errors = create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { ...meta('c'), labels: { 'app.kubernetes.io/name': 'x'.repeat(64) } },
    });
    expect(errors).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'metadata.labels',
        value: 'x'.repeat(64),
        detail: 'must be no more than 63 characters',
      },
    ]);
  });

  it('limits annotations to 256 KiB in total', () => {
    expect(
      createMessage({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { ...meta('big'), annotations: { a: 'x'.repeat(262144) } },
      }),
    ).toBe('ConfigMap "big" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
  });

  it('checks owner references and allows one controller', () => {
    const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true };
    const errors = create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { ...meta('c'), ownerReferences: [ref, { ...ref, name: 'rs2', uid: '' }] },
    });
    expect(texts(errors)).toEqual([
      'metadata.ownerReferences.uid: FieldValueInvalid: must not be empty',
      'metadata.ownerReferences: FieldValueInvalid: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/rs and ReplicaSet/rs2',
    ]);
  });

  it('checks finalizer names', () => {
    expect(
      texts(
        create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...meta('c'), finalizers: ['custom'] } }),
      ),
    ).toEqual([
      'metadata.finalizers[0]: FieldValueInvalid: name is neither a standard finalizer name nor is it fully qualified',
    ]);
    expect(
      create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { ...meta('c'), finalizers: ['example.com/cleanup', 'orphan'] },
      }),
    ).toEqual([]);
  });

  it('keeps name, namespace and uid on update', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('c') };
    expect(texts(update(cm, (o) => (o.metadata.uid = 'other')))).toEqual([
      'metadata.uid: FieldValueInvalid: field is immutable',
    ]);
    const renamed = update(cm, (o) => (o.metadata.name = 'd'));
    expect(renamed).toContainEqual({
      type: 'FieldValueInvalid',
      field: 'metadata.name',
      value: 'd',
      detail: 'field is immutable',
    });
  });

  it('refuses new finalizers on an object being deleted', () => {
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { ...meta('c'), deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['example.com/a'] },
    };
    expect(texts(update(cm, (o) => (o.metadata.finalizers = ['example.com/a', 'example.com/b'])))).toEqual([
      'metadata.finalizers: FieldValueForbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b"}',
    ]);
  });
});

describe('Secrets and ConfigMaps', () => {
  it('limits Secret data to 1 MiB', () => {
    const data = { big: Buffer.alloc(1048577).toString('base64') };
    expect(createMessage({ apiVersion: 'v1', kind: 'Secret', metadata: meta('s'), data })).toBe(
      'Secret "s" is invalid: data: Too long: may not be more than 1048576 bytes',
    );
  });

  it('counts stringData and checks keys', () => {
    expect(
      createMessage({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: meta('s'),
        stringData: { 'bad key': 'v' },
      }),
    ).toBe(
      `Secret "s" is invalid: data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    );
  });

  it('requires valid JSON in docker config Secrets', () => {
    const secret = (data: Record<string, string>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta('pull'),
      type: 'kubernetes.io/dockerconfigjson',
      data,
    });
    expect(createMessage(secret({}))).toBe(
      'Secret "pull" is invalid: data[.dockerconfigjson]: Required value',
    );
    expect(createMessage(secret({ '.dockerconfigjson': Buffer.from('{"auths"').toString('base64') }))).toBe(
      'Secret "pull" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input',
    );
    expect(createMessage(secret({ '.dockerconfigjson': Buffer.from('[]').toString('base64') }))).toBe(
      'Secret "pull" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
    expect(create(secret({ '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') }))).toEqual(
      [],
    );
  });

  it('requires the TLS keys and the service account annotation', () => {
    expect(
      texts(
        create({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: meta('t'),
          type: 'kubernetes.io/tls',
          data: {},
        }),
      ),
    ).toEqual(['data[tls.crt]: FieldValueRequired', 'data[tls.key]: FieldValueRequired']);
    expect(
      texts(
        create({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: meta('t'),
          type: 'kubernetes.io/service-account-token',
        }),
      ),
    ).toEqual(['metadata.annotations[kubernetes.io/service-account.name]: FieldValueRequired']);
  });

  it('keeps immutable Secrets and Secret types', () => {
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta('s'),
      immutable: true,
      data: { a: 'YQ==' },
    };
    const errors = update(secret, (o) => {
      o.data = { a: 'Yg==' };
      o.immutable = false;
      o.type = 'example.com/custom';
    });
    expect(texts(errors)).toEqual([
      'type: FieldValueInvalid: field is immutable',
      'immutable: FieldValueForbidden: field is immutable when `immutable` is set',
      'data: FieldValueForbidden: field is immutable when `immutable` is set',
    ]);
    expect(statusErrors.invalid(typeOf(secret), 's', errors.slice(2)).message).toBe(
      'Secret "s" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
  });

  it('limits ConfigMaps to 1 MiB on the root path and rejects keys in both maps', () => {
    expect(
      createMessage({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: meta('c'),
        data: { a: 'x'.repeat(1048577) },
      }),
    ).toBe('ConfigMap "c" is invalid: []: Too long: may not be more than 1048576 bytes');
    expect(
      texts(
        create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: meta('c'),
          data: { a: 'x' },
          binaryData: { a: 'eA==' },
        }),
      ),
    ).toEqual(['data[a]: FieldValueInvalid: duplicate of key present in binaryData']);
  });

  it('keeps immutable ConfigMaps', () => {
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta('c'),
      immutable: true,
      data: { a: '1' },
    };
    expect(texts(update(cm, (o) => (o.data = { a: '2' })))).toEqual([
      'data: FieldValueForbidden: field is immutable when `immutable` is set',
    ]);
    expect(update(cm, (o) => (o.metadata.labels = { tier: 'x' }))).toEqual([]);
  });
});

describe('Namespaces, ServiceAccounts, Leases, Events', () => {
  it('needs DNS-1123 labels as namespace names', () => {
    expect(createMessage({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'Team_A' } })).toBe(
      `Namespace "Team_A" is invalid: metadata.name: Invalid value: "Team_A": ${LABEL_MSG}`,
    );
    expect(createMessage({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a'.repeat(64) } })).toBe(
      // The defaulted kubernetes.io/metadata.name label carries the name too, as upstream.
      `Namespace "${'a'.repeat(64)}" is invalid: [metadata.name: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters, metadata.labels: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters]`,
    );
    expect(create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } })).toEqual([]);
  });

  it('keeps the namespace phase in step with deletion on /status', () => {
    const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } };
    expect(texts(update(ns, (o) => (o.status = { phase: 'Terminating' }), 'status'))).toEqual([
      "status.Phase: FieldValueInvalid: may only be 'Active' if `deletionTimestamp` is empty",
    ]);
  });

  it('validates ServiceAccount names and Lease durations', () => {
    expect(texts(create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('Robot') }))).toEqual([
      `metadata.name: FieldValueInvalid: ${SUBDOMAIN_MSG}`,
    ]);
    expect(
      createMessage({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: meta('l'),
        spec: { leaseDurationSeconds: 0 },
      }),
    ).toBe(
      'Lease.coordination.k8s.io "l" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    );
  });

  it('checks that an event belongs to its object’s namespace', () => {
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: meta('e.1'),
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' },
      reason: 'Started',
    };
    expect(texts(create(event))).toEqual([
      'involvedObject.namespace: FieldValueInvalid: does not match event.namespace',
    ]);
  });
});

describe('Services', () => {
  const service = (spec: Record<string, unknown>, name = 'web'): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(name),
    spec,
  });

  it('needs DNS-1035 names', () => {
    expect(createMessage(service({ ports: [{ port: 80 }] }, '1web'))).toBe(
      `Service "1web" is invalid: metadata.name: Invalid value: "1web": ${DNS1035_MSG}`,
    );
  });

  it('requires ports unless headless or ExternalName', () => {
    expect(createMessage(service({ selector: { app: 'web' } }))).toBe(
      'Service "web" is invalid: spec.ports: Required value',
    );
    expect(create(service({ clusterIP: 'None', selector: { app: 'web' } }))).toEqual([]);
    expect(create(service({ type: 'ExternalName', externalName: 'db.example.com.' }))).toEqual([]);
  });

  it('validates ports', () => {
    const errors = create(
      service({
        ports: [
          { name: 'http', port: 80, targetPort: 'HTTP' },
          { name: 'http', port: 70000, protocol: 'ICMP' },
          { port: 81 },
        ],
      }),
    );
    expect(texts(errors)).toEqual([
      'spec.ports[0].targetPort: FieldValueInvalid: must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.ports[0].targetPort: FieldValueInvalid: must contain at least one letter (a-z)',
      'spec.ports[1].name: FieldValueDuplicate',
      'spec.ports[1].port: FieldValueInvalid: must be between 1 and 65535, inclusive',
      'spec.ports[1].protocol: FieldValueNotSupported: supported values: "SCTP", "TCP", "UDP"',
      'spec.ports[1].targetPort: FieldValueInvalid: must be between 1 and 65535, inclusive',
      'spec.ports[2].name: FieldValueRequired',
    ]);
  });

  it('rejects unknown types and node ports on ClusterIP services', () => {
    expect(texts(create(service({ type: 'Balanced', ports: [{ port: 80 }] })))).toContain(
      'spec.type: FieldValueNotSupported: supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    );
    expect(texts(create(service({ ports: [{ port: 80, nodePort: 30080 }] })))).toEqual([
      "spec.ports[0].nodePort: FieldValueForbidden: may not be used when `type` is 'ClusterIP'",
    ]);
  });

  it('reports invalid and foreign-family cluster IPs before anything else', () => {
    expect(createMessage(service({ clusterIP: '10.0.0.300', ports: [{ port: 80 }] }))).toBe(
      'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    );
    expect(texts(create(service({ clusterIP: 'fd00::1', ports: [{ port: 80 }] })))).toEqual([
      'spec.clusterIPs[0]: FieldValueInvalid: IPv6 is not configured on this cluster',
    ]);
    expect(texts(create(service({ ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] })))).toEqual([
      'spec.ipFamilyPolicy: FieldValueInvalid: this cluster is not configured for dual-stack services',
    ]);
  });

  it('keeps the cluster IP once set', () => {
    const errors = update(service({ clusterIP: '10.96.5.5', ports: [{ port: 80 }] }), (o) => {
      (o.spec as Record<string, unknown>).clusterIP = '10.96.5.6';
      (o.spec as Record<string, unknown>).clusterIPs = ['10.96.5.6'];
    });
    expect(errors).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.clusterIPs[0]',
        value: ['10.96.5.6'],
        detail: 'may not change once set',
      },
    ]);
    // An update that leaves the allocated IP out keeps it (the stored object is passed as `old`).
    expect(
      update(service({ ports: [{ port: 80 }] }), (o) => delete (o.spec as Record<string, unknown>).clusterIP),
    ).toEqual([]);
  });

  it('validates ExternalName services', () => {
    expect(texts(create(service({ type: 'ExternalName', externalName: 'Not_A_Host' })))).toEqual([
      `spec.externalName: FieldValueInvalid: ${SUBDOMAIN_MSG}`,
    ]);
    expect(texts(create(service({ type: 'ExternalName' })))).toEqual([
      'spec.externalName: FieldValueRequired',
    ]);
  });
});

describe('Deployments and ReplicaSets', () => {
  it('requires a selector matching the template', () => {
    const errors = create(deployment({ selector: undefined }));
    expect(statusErrors.invalid(typeOf(deployment()), 'web', errors).message).toBe(
      'Deployment.apps "web" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`]',
    );
    expect(texts(create(deployment({ selector: { matchLabels: { app: 'api' } } })))).toEqual([
      'spec.template.metadata.labels: FieldValueInvalid: `selector` does not match template `labels`',
    ]);
    expect(texts(create(deployment({ selector: {} })))).toEqual([
      'spec.selector: FieldValueInvalid: empty selector is invalid for deployment',
    ]);
  });

  it('validates replicas, strategy and the pod template', () => {
    const errors = create(
      deployment({
        replicas: -1,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'App', image: '' }, container()] },
        },
      }),
    );
    expect(texts(errors)).toEqual([
      'spec.replicas: FieldValueInvalid: must be greater than or equal to 0',
      `spec.template.spec.containers[0].name: FieldValueInvalid: ${LABEL_MSG}`,
      'spec.template.spec.containers[0].image: FieldValueRequired',
      'spec.template.spec.restartPolicy: FieldValueNotSupported: supported values: "Always"',
      'spec.strategy.rollingUpdate.maxUnavailable: FieldValueInvalid: may not be 0 when `maxSurge` is 0',
    ]);
    expect(texts(create(deployment({ strategy: { type: 'BlueGreen' } })))).toEqual([
      'spec.strategy: FieldValueNotSupported: supported values: "Recreate", "RollingUpdate"',
    ]);
  });

  it('keeps the apps/v1 selector', () => {
    const errors = update(deployment(), (o) => {
      const spec = o.spec as {
        selector: { matchLabels: Record<string, string> };
        template: { metadata: { labels: Record<string, string> } };
      };
      spec.selector.matchLabels.tier = 'front';
      spec.template.metadata.labels.tier = 'front';
    });
    expect(texts(errors)).toEqual(['spec.selector: FieldValueInvalid: field is immutable']);
    expect(update(deployment(), (o) => ((o.spec as Record<string, unknown>).replicas = 5))).toEqual([]);
  });

  it('validates ReplicaSets the same way', () => {
    const rs: KubeObject = { ...deployment(), kind: 'ReplicaSet', metadata: meta('web-abc') };
    expect(create(rs)).toEqual([]);
    expect(
      texts(
        update(rs, (o) => ((o.spec as Record<string, unknown>).selector = { matchLabels: { app: 'x' } })),
      ),
    ).toContain('spec.selector: FieldValueInvalid: field is immutable');
  });

  it('checks status counters on /status', () => {
    const errors = update(
      deployment(),
      (o) => (o.status = { replicas: 1, readyReplicas: 2, availableReplicas: 1 }),
      'status',
    );
    expect(texts(errors)).toEqual([
      'status.readyReplicas: FieldValueInvalid: cannot be greater than status.replicas',
    ]);
  });
});

describe('pod templates', () => {
  const pod = (spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta('p'),
    spec,
  });

  it('requires containers, unique names and images', () => {
    expect(createMessage(pod({ containers: [] }))).toBe(
      'Pod "p" is invalid: spec.containers: Required value',
    );
    expect(texts(create(pod({ containers: [container(), container({ image: ' nginx' })] })))).toEqual([
      'spec.containers[1].name: FieldValueDuplicate',
      'spec.containers[1].image: FieldValueInvalid: must not have leading or trailing whitespace',
    ]);
  });

  it('validates ports, env and mounts', () => {
    const errors = create(
      pod({
        containers: [
          container({
            ports: [{ containerPort: 0 }, { containerPort: 8080, name: 'web', protocol: 'HTTP' }],
            env: [
              { name: '' },
              { name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
            ],
            envFrom: [{}],
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
          }),
        ],
      }),
    );
    expect(texts(errors)).toEqual([
      'spec.containers[0].ports[0].containerPort: FieldValueRequired',
      'spec.containers[0].ports[1].protocol: FieldValueNotSupported: supported values: "SCTP", "TCP", "UDP"',
      'spec.containers[0].env[0].name: FieldValueRequired',
      'spec.containers[0].env[1].valueFrom: FieldValueInvalid: may not be specified when `value` is not empty',
      'spec.containers[0].envFrom: FieldValueInvalid: must specify one of: `configMapRef` or `secretRef`',
      'spec.containers[0].volumeMounts[0].name: FieldValueNotFound',
    ]);
  });

  it('validates volumes: names, one source, source fields', () => {
    const errors = create(
      pod({
        volumes: [
          { name: 'a', secret: {}, configMap: { name: 'c' } },
          { name: 'a', emptyDir: {} },
          { name: 'a', emptyDir: {} },
          { name: 'Bad', persistentVolumeClaim: {} },
        ],
        containers: [container()],
      }),
    );
    expect(texts(errors)).toEqual([
      'spec.volumes[0].secret.secretName: FieldValueRequired',
      'spec.volumes[0].configMap: FieldValueForbidden: may not specify more than 1 volume type',
      // A volume with errors does not claim its name (upstream adds names of valid volumes only).
      'spec.volumes[2].name: FieldValueDuplicate',
      'spec.volumes[3].persistentVolumeClaim.claimName: FieldValueRequired',
      `spec.volumes[3].name: FieldValueInvalid: ${LABEL_MSG}`,
    ]);
  });

  it('validates probes after defaulting', () => {
    const errors = create(
      pod({
        containers: [
          container({
            livenessProbe: { httpGet: { port: 99999 }, successThreshold: 2 },
            readinessProbe: {},
          }),
        ],
      }),
    );
    expect(texts(errors)).toEqual([
      'spec.containers[0].livenessProbe.httpGet.port: FieldValueInvalid: must be between 1 and 65535, inclusive',
      'spec.containers[0].livenessProbe.successThreshold: FieldValueInvalid: must be 1',
      'spec.containers[0].readinessProbe: FieldValueRequired: must specify a handler type',
    ]);
  });

  it('validates resource requests against limits', () => {
    const errors = create(
      pod({
        containers: [container({ resources: { limits: { cpu: '500m' }, requests: { cpu: '1', gpu: '1' } } })],
      }),
    );
    expect(texts(errors)).toEqual([
      'spec.containers[0].resources.requests: FieldValueInvalid: must be less than or equal to cpu limit of 500m',
      'spec.containers[0].resources.requests[gpu]: FieldValueInvalid: must be a standard resource type or fully qualified',
      'spec.containers[0].resources.requests[gpu]: FieldValueInvalid: must be a standard resource for containers',
    ]);
  });

  it('validates tolerations, dnsPolicy and restartPolicy', () => {
    const errors = create(
      pod({
        containers: [container()],
        dnsPolicy: 'Cluster',
        tolerations: [{ operator: 'Equal', value: 'x' }],
      }),
    );
    expect(texts(errors)).toEqual([
      'spec.dnsPolicy: FieldValueNotSupported: supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
      'spec.tolerations[0].operator: FieldValueInvalid: operator must be Exists when `key` is empty, which means "match all values and all keys"',
    ]);
  });
});

describe('Pods', () => {
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: meta('p'), spec: podSpec() };

  it('forbids ephemeral containers on create', () => {
    expect(
      texts(
        create({ ...pod, spec: podSpec({ ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }) }),
      ),
    ).toContain('spec.ephemeralContainers: FieldValueForbidden: cannot be set on create');
  });

  it('lets updates change images, and little else', () => {
    expect(
      update(
        pod,
        (o) => ((o.spec as { containers: { image: string }[] }).containers[0]!.image = 'nginx:1.28'),
      ),
    ).toEqual([]);
    const errors = update(
      pod,
      (o) => ((o.spec as { containers: Record<string, unknown>[] }).containers[0]!.command = ['sh']),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]?.field).toBe('spec');
    expect(errors[0]?.type).toBe('FieldValueForbidden');
    expect(errors[0]?.detail?.split('\n')[0]).toBe(
      'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    );
    expect(
      texts(
        update(
          pod,
          (o) => ((o.spec as { containers: unknown[] }).containers = [container(), container({ name: 'b' })]),
        ),
      ),
    ).toEqual(['spec.containers: FieldValueForbidden: pod updates may not add or remove containers']);
  });

  it('allows added tolerations and a shorter deadline', () => {
    const withDeadline: KubeObject = { ...pod, spec: podSpec({ activeDeadlineSeconds: 60 }) };
    expect(
      update(withDeadline, (o) => ((o.spec as Record<string, unknown>).activeDeadlineSeconds = 30)),
    ).toEqual([]);
    expect(
      texts(update(withDeadline, (o) => ((o.spec as Record<string, unknown>).activeDeadlineSeconds = 90))),
    ).toEqual([
      'spec.activeDeadlineSeconds: FieldValueInvalid: must be less than or equal to previous value',
    ]);
    const add = update(
      pod,
      (o) => ((o.spec as Record<string, unknown>).tolerations = [{ key: 'k', operator: 'Exists' }]),
    );
    expect(add).toEqual([]);
  });
});

describe('Jobs and CronJobs', () => {
  it('requires restartPolicy Never or OnFailure (Always after defaulting)', () => {
    expect(createMessage(job({}))).toBe(
      'Job.batch "migrate" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    );
    expect(texts(create(job({ restartPolicy: 'Sometimes' })))).toContain(
      'spec.template.spec.restartPolicy: FieldValueNotSupported: supported values: "Always", "OnFailure", "Never"',
    );
    expect(create(job())).toEqual([]);
  });

  it('rejects a generated selector that does not select this job', () => {
    const custom = job();
    (custom.spec as Record<string, unknown>).selector = {
      matchLabels: { 'batch.kubernetes.io/controller-uid': 'other' },
    };
    expect(texts(create(custom))).toEqual([
      'spec.selector: FieldValueInvalid: `selector` not auto-generated',
      'spec.template.metadata.labels: FieldValueInvalid: `selector` does not match template `labels`',
    ]);
  });

  it('fails long Job names through the generated job-name label', () => {
    const long = job();
    long.metadata.name = 'j'.repeat(64);
    // Both job-name labels fail; the aggregate shows the repeated error once, as upstream's does.
    expect(createMessage(long)).toBe(
      `Job.batch "${'j'.repeat(64)}" is invalid: spec.template.labels: Invalid value: "${'j'.repeat(64)}": must be no more than 63 characters`,
    );
  });

  it('keeps the template and selector after create, except scheduling fields of suspended jobs', () => {
    const setImage = (o: KubeObject) => {
      (o.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec
        .containers[0]!.image = 'busybox';
    };
    expect(texts(update(job(), setImage))).toEqual(['spec.template: FieldValueInvalid: field is immutable']);
    const suspended = job();
    (suspended.spec as Record<string, unknown>).suspend = true;
    const setNodeSelector = (o: KubeObject) => {
      (o.spec as { template: { spec: Record<string, unknown> } }).template.spec.nodeSelector = { zone: 'a' };
    };
    expect(update(suspended, setNodeSelector)).toEqual([]);
    expect(texts(update(job(), setNodeSelector))).toEqual([
      'spec.template: FieldValueInvalid: field is immutable',
    ]);
    expect(update(job(), (o) => ((o.spec as Record<string, unknown>).suspend = true))).toEqual([]);
    expect(texts(update(job(), (o) => ((o.spec as Record<string, unknown>).completions = 3)))).toEqual([
      'spec.completions: FieldValueInvalid: field is immutable',
    ]);
  });

  it('validates CronJob schedules, time zones and name length', () => {
    expect(create(cronJob({ schedule: '@hourly', timeZone: 'Europe/Paris' }))).toEqual([]);
    expect(createMessage(cronJob({ schedule: '0 0 * * *' }, 'n'.repeat(53)))).toBe(
      `CronJob.batch "${'n'.repeat(53)}" is invalid: metadata.name: Invalid value: "${'n'.repeat(53)}": must be no more than 52 characters`,
    );
    expect(texts(create(cronJob({ schedule: '0 0 * *', timeZone: 'Mars/Olympus' })))).toEqual([
      'spec.schedule: FieldValueInvalid: expected exactly 5 fields, found 4: [0 0 * *]',
      'spec.timeZone: FieldValueInvalid: unknown time zone Mars/Olympus',
    ]);
    expect(texts(create(cronJob({ schedule: 'CRON_TZ=UTC 0 0 * * *' })))).toEqual([
      'spec.schedule: FieldValueInvalid: cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
    expect(createMessage(cronJob({}))).toBe(
      'CronJob.batch "nightly" is invalid: spec.schedule: Required value',
    );
    expect(texts(create(cronJob({ schedule: '@daily', timeZone: 'Local' })))).toEqual([
      'spec.timeZone: FieldValueInvalid: timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
    ]);
  });

  it('validates the job template like a Job, without a selector', () => {
    const cj = cronJob({ schedule: '@daily' });
    const jobSpec = (cj.spec as { jobTemplate: { spec: Record<string, unknown> } }).jobTemplate.spec;
    jobSpec.selector = { matchLabels: { a: 'b' } };
    jobSpec.backoffLimit = -1;
    (jobSpec.template as { spec: Record<string, unknown> }).spec.restartPolicy = 'Always';
    expect(texts(create(cj))).toEqual([
      'spec.jobTemplate.spec.backoffLimit: FieldValueInvalid: must be greater than or equal to 0',
      'spec.jobTemplate.spec.template.spec.restartPolicy: FieldValueRequired: valid values: "OnFailure", "Never"',
      'spec.jobTemplate.spec.selector: FieldValueInvalid: `selector` will be auto-generated',
    ]);
  });
});

describe('PersistentVolumeClaims and PersistentVolumes', () => {
  const pvc = (spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: meta('data'),
    spec,
  });
  const claim = pvc({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });

  it('requires access modes and a storage request', () => {
    expect(createMessage(pvc({}))).toBe(
      'PersistentVolumeClaim "data" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]',
    );
    expect(
      texts(
        create(
          pvc({
            accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'],
            resources: { requests: { storage: '0' } },
          }),
        ),
      ),
    ).toEqual([
      'spec.accessModes: FieldValueForbidden: may not use ReadWriteOncePod with other access modes',
      'spec.resources[storage]: FieldValueInvalid: must be greater than zero',
    ]);
  });

  it('keeps the spec after creation except storage growth of bound claims', () => {
    const grow = (o: KubeObject) => {
      (o.spec as { resources: { requests: Record<string, string> } }).resources.requests.storage = '2Gi';
    };
    const errors = update(claim, grow);
    expect(texts(errors).map((t) => t.split('\n')[0])).toEqual([
      'spec: FieldValueForbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    ]);
    const bound = { ...claim, status: { phase: 'Bound', capacity: { storage: '1Gi' } } };
    expect(update(bound, grow)).toEqual([]);
    expect(update(claim, (o) => ((o.spec as Record<string, unknown>).volumeName = 'pv-1'))).toEqual([]);
  });

  it('requires capacity, access modes and exactly one volume source on PVs', () => {
    const pv = (spec: Record<string, unknown>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv' },
      spec,
    });
    expect(texts(create(pv({})))).toEqual([
      'spec.accessModes: FieldValueRequired',
      'spec.capacity: FieldValueRequired',
      'spec.capacity: FieldValueNotSupported: supported values: "storage"',
      'spec: FieldValueRequired: must specify a volume type',
    ]);
    expect(
      texts(
        create(
          pv({
            capacity: { storage: '1Gi' },
            accessModes: ['ReadWriteOnce'],
            persistentVolumeReclaimPolicy: 'Keep',
            hostPath: { path: '/data' },
            nfs: { server: 'nfs', path: '/export' },
          }),
        ),
      ),
    ).toEqual([
      'spec.persistentVolumeReclaimPolicy: FieldValueNotSupported: supported values: "Delete", "Recycle", "Retain"',
      'spec.nfs: FieldValueForbidden: may not specify more than 1 volume type',
    ]);
  });

  it('keeps a PV source', () => {
    const pv: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
    };
    const errors = update(pv, (o) => ((o.spec as Record<string, unknown>).hostPath = { path: '/other' }));
    expect(errors.map((e) => `${e.field}: ${e.detail?.split('\n')[0]}`)).toEqual([
      'spec.persistentvolumesource: spec.persistentvolumesource is immutable after creation',
    ]);
  });
});

describe('Ingresses', () => {
  const ingress = (rules: unknown[]): KubeObject => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: meta('ing'),
    spec: { rules },
  });
  const backend = { service: { name: 'web', port: { number: 80 } } };

  it('accepts DNS names and leading wildcards', () => {
    expect(
      create(
        ingress([{ host: '*.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }]),
      ),
    ).toEqual([]);
  });

  it('rejects IP hosts, inner wildcards, bad paths and backends', () => {
    const errors = create(
      ingress([
        { host: '10.0.0.1', http: { paths: [{ path: 'api', pathType: 'Prefix', backend }] } },
        {
          host: 'a.*.com',
          http: { paths: [{ path: '/x', pathType: 'Regex', backend: { service: { name: 'web' } } }] },
        },
        { http: { paths: [{ path: '/', backend }] } },
      ]),
    );
    expect(texts(errors)).toEqual([
      'spec.rules[0].host: FieldValueInvalid: must be a DNS name, not an IP address',
      'spec.rules[0].http.paths[0].path: FieldValueInvalid: must be an absolute path',
      "spec.rules[1].host: FieldValueInvalid: a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'spec.rules[1].http.paths[0].pathType: FieldValueNotSupported: supported values: "Exact", "ImplementationSpecific", "Prefix"',
      'spec.rules[1].http.paths[0].backend: FieldValueRequired: port name or number is required',
      'spec.rules[2].http.paths[0].pathType: FieldValueRequired: pathType must be specified',
    ]);
  });

  it('requires rules or a default backend', () => {
    expect(createMessage(ingress([]))).toBe(
      'Ingress.networking.k8s.io "ing" is invalid: spec: Invalid value: []: either `defaultBackend` or `rules` must be specified',
    );
  });
});

describe('StorageClasses', () => {
  const sc: KubeObject = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'fast' },
    provisioner: 'ebs.csi.aws.com',
    parameters: { type: 'gp3' },
  };

  it('requires a provisioner', () => {
    expect(createMessage({ ...sc, provisioner: undefined })).toBe(
      'StorageClass.storage.k8s.io "fast" is invalid: provisioner: Required value',
    );
    expect(texts(create({ ...sc, reclaimPolicy: 'Recycle' }))).toEqual([
      'reclaimPolicy: FieldValueNotSupported: supported values: "Delete", "Retain"',
    ]);
  });

  it('forbids changing parameters, provisioner, reclaimPolicy and volumeBindingMode', () => {
    const errors = update(sc, (o) => {
      o.parameters = { type: 'io2' };
      o.provisioner = 'other.io';
      o.reclaimPolicy = 'Retain';
      o.volumeBindingMode = 'WaitForFirstConsumer';
    });
    expect(texts(errors)).toEqual([
      'parameters: FieldValueForbidden: updates to parameters are forbidden.',
      'provisioner: FieldValueForbidden: updates to provisioner are forbidden.',
      'reclaimPolicy: FieldValueForbidden: updates to reclaimPolicy are forbidden.',
      'volumeBindingMode: FieldValueInvalid: field is immutable',
    ]);
    expect(update(sc, (o) => (o.allowVolumeExpansion = true))).toEqual([]);
  });
});

/**
 * decodeProtobuf: the bodies typed client-go clients send as application/vnd.kubernetes.protobuf
 * come out as the JSON the same client would have sent.
 *
 * Two kinds of evidence: bodies captured from the real kubectl 1.33 and helm 4 (the JSON they
 * must equal is kubectl's own `--dry-run=client -o json` of the same command, i.e. Go's
 * json.Marshal of the same object); and, for every served kind, a realistic object encoded with
 * protobufjs from the schema the way the Go encoder writes it (every value field, zero or not).
 */
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { StatusError } from '../../../infra/kube-sim/errors.ts';
import { decodeProtobuf } from '../../../infra/kube-sim/protobuf/decode.ts';
import { messageFor } from '../../../infra/kube-sim/protobuf/kinds.ts';
import { fieldOption, messageType, OPTION } from '../../../infra/kube-sim/protobuf/schema.ts';
import { groupVersion, RESOURCE_TYPES } from '../../../infra/kube-sim/resources.ts';

type Proto = Record<string, unknown>;

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
/** Encoded by their own Marshal in Go: the zero Time is an empty message, not {seconds: 0}. */
const OPAQUE = new Set([`.${META}.Time`, `.${META}.MicroTime`]);

/** The message as the Go encoder writes it: every value field (gogoproto.nullable=false) present. */
function withGoZeros(type: protobuf.Type, value: Proto): Proto {
  if (OPAQUE.has(type.fullName)) return value;
  const out: Proto = { ...value };
  for (const field of type.fieldsArray) {
    const inner = field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
    const current = out[field.name];
    if (field.map || field.repeated) {
      if (!inner || current === undefined) continue;
      out[field.name] = field.map
        ? Object.fromEntries(
            Object.entries(current as Proto).map(([k, v]) => [k, withGoZeros(inner, v as Proto)]),
          )
        : (current as Proto[]).map((v) => withGoZeros(inner, v));
    } else if (current !== undefined) {
      if (inner) out[field.name] = withGoZeros(inner, current as Proto);
    } else if (fieldOption(field, OPTION.nullable) === false) {
      out[field.name] = inner ? withGoZeros(inner, {}) : field.typeDefault;
    }
  }
  return out;
}

function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const unknown = messageType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const message = unknown.fromObject({
    typeMeta: { apiVersion, kind },
    raw,
    contentEncoding: '',
    contentType: '',
  });
  return Buffer.concat([MAGIC, unknown.encode(message).finish()]);
}

/** `k8s\0` + runtime.Unknown around the object's own message, as client-go's serializer writes it. */
function protobufBody(apiVersion: string, kind: string, object: Proto, sparse = false): Buffer {
  const name = messageFor(apiVersion, kind);
  if (!name) throw new Error(`no message for ${apiVersion} ${kind}`);
  const type = messageType(name);
  const message = type.fromObject(sparse ? object : withGoZeros(type, object));
  return envelope(apiVersion, kind, type.encode(message).finish());
}

function statusOf(body: Buffer): { code: number; reason: string; message: string; kind?: string } {
  try {
    decodeProtobuf(body);
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    const status = (err as StatusError).toStatus();
    return {
      code: status.code,
      reason: status.reason ?? '',
      message: status.message,
      kind: status.details?.kind,
    };
  }
  throw new Error('decoded without error');
}

const time = (iso: string) => ({ seconds: Date.parse(iso) / 1000 });
const quantity = (value: string) => ({ string: value });
const intOrString = (value: number | string) =>
  typeof value === 'number' ? { type: 0, intVal: value } : { type: 1, strVal: value };
const meta = (name: string, namespace?: string, extra: Proto = {}) => ({
  name,
  ...(namespace ? { namespace } : {}),
  ...extra,
});
const jsonMeta = (name: string, namespace?: string, extra: Proto = {}) => ({
  name,
  ...(namespace ? { namespace } : {}),
  creationTimestamp: null,
  ...extra,
});

const KUBECTL_BODIES: { command: string; body: string; json: unknown }[] = [
  {
    command: 'kubectl create namespace x',
    body: 'azhzAAoPCgJ2MRIJTmFtZXNwYWNlEhkKEQoBeBIAGgAiACoAMgA4AEIAEgAaAgoAGgAiAA==',
    json: {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'x', creationTimestamp: null },
      spec: {},
      status: {},
    },
  },
  {
    command: 'kubectl create secret generic s --from-literal=a=b --from-literal=empty= -n x',
    body: 'azhzAAoMCgJ2MRIGU2VjcmV0EikKEgoBcxIAGgF4IgAqADIAOABCABIGCgFhEgFiEgkKBWVtcHR5EgAaABoAIgA=',
    json: {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 's', namespace: 'x', creationTimestamp: null },
      data: { a: 'Yg==', empty: '' },
    },
  },
  {
    command: 'kubectl create configmap c --from-literal=k=v --from-file=bin=bin.dat -n x',
    body: 'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEioKEgoBYxIAGgF4IgAqADIAOABCABIGCgFrEgF2GgwKA2JpbhIFazEA//4aACIA',
    json: {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'c', namespace: 'x', creationTimestamp: null },
      data: { k: 'v' },
      binaryData: { bin: 'azEA//4=' },
    },
  },
  {
    command: 'kubectl create serviceaccount sa -n x',
    body: 'azhzAAoUCgJ2MRIOU2VydmljZUFjY291bnQSFQoTCgJzYRIAGgF4IgAqADIAOABCABoAIgA=',
    json: {
      kind: 'ServiceAccount',
      apiVersion: 'v1',
      metadata: { name: 'sa', namespace: 'x', creationTimestamp: null },
    },
  },
  {
    command: 'kubectl create deployment web --image=nginx:1.27 --replicas=0 --port=80 -n x',
    body: 'azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50Er4BCiAKA3dlYhIAGgF4IgAqADIAOABCAFoKCgNhcHASA3dlYhKLAQgAEgwKCgoDYXBwEgN3ZWIacQocCgASABoAIgAqADIAOABCAFoKCgNhcHASA3dlYhJREjMKBW5naW54EgpuZ2lueDoxLjI3KgAyCgoAEAAYUCIAKgBCAGoAcgCAAQCIAQCQAQCiAQAaADIAQgBKAFIAWABgAGgAggEAigEAmgEAwgEAIgIKACgAOAAaDAgAEAAYACAAKAA4ABoAIgA=',
    json: {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'web', namespace: 'x', creationTimestamp: null, labels: { app: 'web' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: {} },
            ],
          },
        },
        strategy: {},
      },
      status: {},
    },
  },
  {
    command: 'kubectl create service nodeport np --tcp=80:8080 --node-port=30080 -n x',
    body: 'azhzAAoNCgJ2MRIHU2VydmljZRJoCh4KAm5wEgAaAXgiACoAMgA4AEIAWgkKA2FwcBICbnASQgodCgc4MC04MDgwEgNUQ1AYUCIHCAAQkD8aACiA6wESCQoDYXBwEgJucBoAIghOb2RlUG9ydDoAQgBSAFoAYABoABoCCgAaACIA',
    json: {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'np', namespace: 'x', creationTimestamp: null, labels: { app: 'np' } },
      spec: {
        ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }],
        selector: { app: 'np' },
        type: 'NodePort',
      },
      status: { loadBalancer: {} },
    },
  },
  {
    command: "kubectl create cronjob cj --image=busybox '--schedule=*/5 * * * *' -n x -- date",
    body: 'azhzAAoTCghiYXRjaC92MRIHQ3JvbkpvYhKlAQoTCgJjahIAGgF4IgAqADIAOABCABKLAQoLKi81ICogKiAqICoaACp6ChIKAmNqEgAaACIAKgAyADgAQgASZDJiChAKABIAGgAiACoAMgA4AEIAEk4SJwoCY2oSB2J1c3lib3gaBGRhdGUqAEIAagByAIABAIgBAJABAKIBABoJT25GYWlsdXJlMgBCAEoAUgBYAGAAaACCAQCKAQCaAQDCAQAaABoAIgA=',
    json: {
      kind: 'CronJob',
      apiVersion: 'batch/v1',
      metadata: { name: 'cj', namespace: 'x', creationTimestamp: null },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: {
          metadata: { name: 'cj', creationTimestamp: null },
          spec: {
            template: {
              metadata: { creationTimestamp: null },
              spec: {
                containers: [{ name: 'cj', image: 'busybox', command: ['date'], resources: {} }],
                restartPolicy: 'OnFailure',
              },
            },
          },
        },
      },
      status: {},
    },
  },
  {
    command: 'kubectl create job fromcj --from=cronjob/cj -n x',
    body: 'azhzAAoPCghiYXRjaC92MRIDSm9iEroCCoUBCgZmcm9tY2oSABoBeCIAKgAyADgAQgBiKwohY3JvbmpvYi5rdWJlcm5ldGVzLmlvL2luc3RhbnRpYXRlEgZtYW51YWxqPwoHQ3JvbkpvYhoCY2oiJGM0NmM0YzM5LTc4OGYtNDRlZi04ZmVhLTIxOGZlMzg3ZDc0YSoIYmF0Y2gvdjEwARKlATKiAQoQCgASABoAIgAqADIAOABCABKNARJFCgJjahIHYnVzeWJveBoEZGF0ZSoAQgBqFC9kZXYvdGVybWluYXRpb24tbG9ncgZBbHdheXOAAQCIAQCQAQCiAQRGaWxlGglPbkZhaWx1cmUgHjIMQ2x1c3RlckZpcnN0QgBKAFIAWABgAGgAcgCCAQCKAQCaARFkZWZhdWx0LXNjaGVkdWxlcsIBABoIIAAoADAAOgAaACIA',
    json: {
      kind: 'Job',
      apiVersion: 'batch/v1',
      metadata: {
        name: 'fromcj',
        namespace: 'x',
        creationTimestamp: null,
        annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' },
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'CronJob',
            name: 'cj',
            uid: 'c46c4c39-788f-44ef-8fea-218fe387d74a',
            controller: true,
          },
        ],
      },
      spec: {
        template: {
          metadata: { creationTimestamp: null },
          spec: {
            containers: [
              {
                name: 'cj',
                image: 'busybox',
                command: ['date'],
                resources: {},
                terminationMessagePath: '/dev/termination-log',
                terminationMessagePolicy: 'File',
                imagePullPolicy: 'Always',
              },
            ],
            restartPolicy: 'OnFailure',
            terminationGracePeriodSeconds: 30,
            dnsPolicy: 'ClusterFirst',
            securityContext: {},
            schedulerName: 'default-scheduler',
          },
        },
      },
      status: {},
    },
  },
  {
    command: 'kubectl create ingress ing --class=nginx --rule=foo.com/bar*=svc:8080,tls=my-cert -n x',
    body: 'azhzAAofChRuZXR3b3JraW5nLms4cy5pby92MRIHSW5ncmVzcxJmChQKA2luZxIAGgF4IgAqADIAOABCABJKEhIKB2Zvby5jb20SB215LWNlcnQaLQoHZm9vLmNvbRIiCiAKHgoEL2JhchIOIgwKA3N2YxIFCgAQkD8aBlByZWZpeCIFbmdpbngaAgoAGgAiAA==',
    json: {
      kind: 'Ingress',
      apiVersion: 'networking.k8s.io/v1',
      metadata: { name: 'ing', namespace: 'x', creationTimestamp: null },
      spec: {
        ingressClassName: 'nginx',
        tls: [{ hosts: ['foo.com'], secretName: 'my-cert' }],
        rules: [
          {
            host: 'foo.com',
            http: {
              paths: [
                {
                  path: '/bar',
                  pathType: 'Prefix',
                  backend: { service: { name: 'svc', port: { number: 8080 } } },
                },
              ],
            },
          },
        ],
      },
      status: { loadBalancer: {} },
    },
  },
];
const HELM_DELETE_OPTIONS = 'azhzAAoTCgJ2MRINRGVsZXRlT3B0aW9ucxIAGgAiAA==';
const HELM_RELEASE_SECRET =
  'azhzAAoMCgJ2MRIGU2VjcmV0Eo0HCocBChlzaC5oZWxtLnJlbGVhc2UudjEucmVsLnYxEgAaACIAKgAyADgAQgBaFwoJY3JlYXRlZEF0EgoxNzk1OTc3MzE5WgsKBG5hbWUSA3JlbFoNCgVvd25lchIEaGVsbVoZCgZzdGF0dXMSD3BlbmRpbmctaW5zdGFsbFoMCgd2ZXJzaW9uEgExEuwFCgdyZWxlYXNlEuAFSDRzSUFBQUFBQUFDLzVSVFgyL2FQaFQ5S3RIOXZTYlVEb1VTUzMyQjM0Q28zYWEyakVLV3FUS0pTVnl1N1NoMmFMT3EzMzBLL2NPbVBreVQ3b045N0h1dTd6M0hUNkM1RXNDZ0ZnZytTTDAxd0o1Z0sydnI3bkpSb1dsRkRneENFZzREU29Nd1d0QVI2dzhZalhxVW5BNEhmVXFpQkh4QS9vOEp1YkJaTFNzbmpRWUdzWlpPY3ZTa3RvNGplbzNPUmYzQVcvREJPdTRhQ3d3cW9YT3BpK0QxRGp6N2tKVzhkdDJEbFhBODU0NTM2OWVPbk5SZCtsN1U5cVVHNmRFZUFSOTRKWmZ2NEQ3c2VOQmtPMkM2UWZUQkNWVWhkOElDKzM0a2V3TlBNdFZydWVxRzlWSVAxcXR4dFZUTE5ndHh2N2szUlg3LzZZS0gyQ1QvbStJcWpKcEVvVjdjVGg4bWltSSttKzdXcSt2eWEyR0tlRFlvTjdmZmh2SGNuY1dUd1UxeSs0anIxUmU4M0Izd1lyc2liaDJTaTJRMkpldUZ1WWduWTUycEplWXpiSktmcGhCOVcxeGlVbTdtUzh6YXdmR3NIWS9pMlRVbWFrbzM4NnNpVmlWdVpvLzdXSTVIOFh4S04vMXJqT2MwbWhUbjUrQ0RNcm1UaHg0L1N0YnZuWjdSVXpJWWtGRUN6ejk4MkhOc3VzRzhUTXBtcFZEOHo5MlJqaEJDZzBNc0NHR0g2SFRmU2p3eS9LWDRNSXFHTkFxVFRpTEZ0ZHdLNjRCQkVBU3Avcys3TVUyZENlWjFRcDk4RUNqVlI1Mlp0NmVwM2ttZE0yOWk5RllXbjNtVjZqZlRzRlI3WGljMDgycUJRYVpTL1E0WHRSQk82b0o1S1pRQzBhU1E2dDl0UmYyRFIyekZzNjZQeDRQQkttenZsSENsNmI2Q3RSeWVmd1VBQVAvL2c3eXRkMmtEQUFBPRoSaGVsbS5zaC9yZWxlYXNlLnYxGgAiAA==';

const T1 = '2026-01-02T03:04:05Z';
const T2 = '2026-01-02T03:09:05Z';

const POD_SPEC = {
  containers: [
    {
      name: 'web',
      image: 'nginx:1.27',
      ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
      envFrom: [{ configMapRef: { localObjectReference: { name: 'settings' } } }],
      env: [
        { name: 'MODE', value: 'prod' },
        {
          name: 'TOKEN',
          valueFrom: {
            secretKeyRef: { localObjectReference: { name: 'creds' }, key: 'token', optional: false },
          },
        },
        { name: 'POD_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
      ],
      resources: {
        limits: { cpu: quantity('500m'), memory: quantity('128Mi') },
        requests: { cpu: quantity('100m') },
      },
      readinessProbe: {
        handler: { httpGet: { path: '/healthz', port: intOrString('http'), scheme: 'HTTP' } },
        periodSeconds: 10,
        failureThreshold: 3,
      },
      volumeMounts: [{ name: 'config', mountPath: '/etc/web', readOnly: true }],
      imagePullPolicy: 'IfNotPresent',
      securityContext: {
        capabilities: { drop: ['ALL'] },
        runAsUser: 0,
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
      },
    },
  ],
  volumes: [
    {
      name: 'config',
      volumeSource: {
        configMap: {
          localObjectReference: { name: 'settings' },
          items: [{ key: 'k', path: 'k.conf' }],
          defaultMode: 420,
        },
      },
    },
  ],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 0,
  serviceAccountName: 'web',
  automountServiceAccountToken: false,
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
};

const POD_SPEC_JSON = {
  volumes: [
    {
      name: 'config',
      configMap: { name: 'settings', items: [{ key: 'k', path: 'k.conf' }], defaultMode: 420 },
    },
  ],
  containers: [
    {
      name: 'web',
      image: 'nginx:1.27',
      ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
      envFrom: [{ configMapRef: { name: 'settings' } }],
      env: [
        { name: 'MODE', value: 'prod' },
        { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token', optional: false } } },
        { name: 'POD_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
      ],
      resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m' } },
      volumeMounts: [{ name: 'config', readOnly: true, mountPath: '/etc/web' }],
      readinessProbe: {
        httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
        periodSeconds: 10,
        failureThreshold: 3,
      },
      imagePullPolicy: 'IfNotPresent',
      securityContext: {
        capabilities: { drop: ['ALL'] },
        runAsUser: 0,
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
      },
    },
  ],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 0,
  serviceAccountName: 'web',
  automountServiceAccountToken: false,
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
};

interface KindCase {
  apiVersion: string;
  kind: string;
  /** What it shows: pointer zeros, inlined structs, custom JSON types… */
  about: string;
  proto: Proto;
  json: Record<string, unknown>;
}

const KIND_CASES: KindCase[] = [
  {
    apiVersion: 'v1',
    kind: 'Secret',
    about: 'a helm release Secret: data bytes as base64, a false pointer kept',
    proto: {
      metadata: meta('sh.helm.release.v1.web.v1', 'apps', {
        labels: { name: 'web', owner: 'helm', status: 'deployed', version: '1' },
      }),
      data: { release: Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff]) },
      type: 'helm.sh/release.v1',
      immutable: false,
    },
    json: {
      metadata: jsonMeta('sh.helm.release.v1.web.v1', 'apps', {
        labels: { name: 'web', owner: 'helm', status: 'deployed', version: '1' },
      }),
      immutable: false,
      data: { release: 'H4sIAP8=' },
      type: 'helm.sh/release.v1',
    },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    about: 'full metadata: times, ownerReferences, managedFields with FieldsV1; binaryData',
    proto: {
      metadata: meta('settings', 'apps', {
        uid: '6f1c0b0e-1111-4222-8333-944445555666',
        resourceVersion: '42',
        generation: 3,
        creationTimestamp: time(T1),
        labels: { app: 'web' },
        annotations: { note: 'kept' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'web',
            uid: 'u-1',
            controller: true,
            blockOwnerDeletion: false,
          },
        ],
        finalizers: ['example.com/keep'],
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Apply',
            apiVersion: 'v1',
            time: time(T2),
            fieldsType: 'FieldsV1',
            fieldsV1: { Raw: Buffer.from('{"f:data":{"f:k":{}}}') },
          },
        ],
      }),
      immutable: true,
      data: { k: 'v', empty: '' },
      binaryData: { blob: Buffer.from([0, 1, 2, 0xff]) },
    },
    json: {
      metadata: {
        name: 'settings',
        namespace: 'apps',
        uid: '6f1c0b0e-1111-4222-8333-944445555666',
        resourceVersion: '42',
        generation: 3,
        creationTimestamp: T1,
        labels: { app: 'web' },
        annotations: { note: 'kept' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'web',
            uid: 'u-1',
            controller: true,
            blockOwnerDeletion: false,
          },
        ],
        finalizers: ['example.com/keep'],
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Apply',
            apiVersion: 'v1',
            time: T2,
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:data': { 'f:k': {} } },
          },
        ],
      },
      immutable: true,
      data: { empty: '', k: 'v' },
      binaryData: { blob: 'AAEC/w==' },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Namespace',
    about: 'spec finalizers and a status condition (required strings, a Time)',
    proto: {
      metadata: meta('team-a', undefined, { labels: { 'kubernetes.io/metadata.name': 'team-a' } }),
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Active',
        conditions: [
          {
            type: 'NamespaceDeletionContentFailure',
            status: 'False',
            lastTransitionTime: time(T1),
            reason: 'ContentDeleted',
            message: 'All content successfully deleted',
          },
        ],
      },
    },
    json: {
      metadata: jsonMeta('team-a', undefined, { labels: { 'kubernetes.io/metadata.name': 'team-a' } }),
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Active',
        conditions: [
          {
            type: 'NamespaceDeletionContentFailure',
            status: 'False',
            lastTransitionTime: T1,
            reason: 'ContentDeleted',
            message: 'All content successfully deleted',
          },
        ],
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    about: 'references and automountServiceAccountToken: false',
    proto: {
      metadata: meta('web', 'apps'),
      secrets: [{ name: 'web-token' }],
      imagePullSecrets: [{ name: 'regcred' }],
      automountServiceAccountToken: false,
    },
    json: {
      metadata: jsonMeta('web', 'apps'),
      secrets: [{ name: 'web-token' }],
      imagePullSecrets: [{ name: 'regcred' }],
      automountServiceAccountToken: false,
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    about: 'IntOrString targetPorts (name and number), pointer fields, status.loadBalancer {}',
    proto: {
      metadata: meta('web', 'apps'),
      spec: {
        ports: [
          { name: 'http', protocol: 'TCP', port: 80, targetPort: intOrString('http'), nodePort: 30080 },
          {
            name: 'metrics',
            protocol: 'TCP',
            appProtocol: 'http',
            port: 9090,
            targetPort: intOrString(9090),
          },
        ],
        selector: { app: 'web' },
        type: 'NodePort',
        sessionAffinity: 'None',
        externalTrafficPolicy: 'Cluster',
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        allocateLoadBalancerNodePorts: false,
        internalTrafficPolicy: 'Cluster',
      },
    },
    json: {
      metadata: jsonMeta('web', 'apps'),
      spec: {
        ports: [
          { name: 'http', protocol: 'TCP', port: 80, targetPort: 'http', nodePort: 30080 },
          { name: 'metrics', protocol: 'TCP', appProtocol: 'http', port: 9090, targetPort: 9090 },
        ],
        selector: { app: 'web' },
        type: 'NodePort',
        sessionAffinity: 'None',
        externalTrafficPolicy: 'Cluster',
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        allocateLoadBalancerNodePorts: false,
        internalTrafficPolicy: 'Cluster',
      },
      status: { loadBalancer: {} },
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    about: 'replicas: 0 kept, percent and int surge, a pod template with inlined selectors and probe',
    proto: {
      metadata: meta('web', 'apps', { labels: { app: 'web' } }),
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: POD_SPEC },
        strategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxUnavailable: intOrString('25%'), maxSurge: intOrString(1) },
        },
        revisionHistoryLimit: 0,
        progressDeadlineSeconds: 600,
      },
    },
    json: {
      metadata: jsonMeta('web', 'apps', { labels: { app: 'web' } }),
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { creationTimestamp: null, labels: { app: 'web' } }, spec: POD_SPEC_JSON },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
        revisionHistoryLimit: 0,
        progressDeadlineSeconds: 600,
      },
      status: {},
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    about: 'status.replicas: 0 printed (no omitempty), other zero counts left out',
    proto: {
      metadata: meta('web-5d9c7b', 'apps', {
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd-1', controller: true },
        ],
      }),
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
      status: {
        replicas: 0,
        observedGeneration: 2,
        conditions: [
          {
            type: 'ReplicaFailure',
            status: 'True',
            lastTransitionTime: time(T1),
            reason: 'FailedCreate',
            message: 'quota',
          },
        ],
      },
    },
    json: {
      metadata: jsonMeta('web-5d9c7b', 'apps', {
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd-1', controller: true },
        ],
      }),
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx', resources: {} }] },
        },
      },
      status: {
        replicas: 0,
        observedGeneration: 2,
        conditions: [
          {
            type: 'ReplicaFailure',
            status: 'True',
            lastTransitionTime: T1,
            reason: 'FailedCreate',
            message: 'quota',
          },
        ],
      },
    },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    about: 'backoffLimit: 0 and suspend: false kept, a pod failure policy, pointer status counts',
    proto: {
      metadata: meta('migrate', 'apps'),
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 0,
        ttlSecondsAfterFinished: 100,
        completionMode: 'NonIndexed',
        suspend: false,
        podFailurePolicy: {
          rules: [
            { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
          ],
        },
        template: {
          spec: {
            containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'exit 0'] }],
            restartPolicy: 'Never',
          },
        },
      },
      status: { startTime: time(T1), active: 1, ready: 0, terminating: 0, uncountedTerminatedPods: {} },
    },
    json: {
      metadata: jsonMeta('migrate', 'apps'),
      spec: {
        parallelism: 1,
        completions: 1,
        podFailurePolicy: {
          rules: [
            { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
          ],
        },
        backoffLimit: 0,
        template: {
          metadata: { creationTimestamp: null },
          spec: {
            containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'exit 0'], resources: {} }],
            restartPolicy: 'Never',
          },
        },
        ttlSecondsAfterFinished: 100,
        completionMode: 'NonIndexed',
        suspend: false,
      },
      status: { startTime: T1, active: 1, ready: 0, terminating: 0, uncountedTerminatedPods: {} },
    },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    about: 'schedule and time zone, startingDeadlineSeconds: 0, a job template, status',
    proto: {
      metadata: meta('nightly', 'apps'),
      spec: {
        schedule: '*/5 * * * *',
        timeZone: 'Etc/UTC',
        startingDeadlineSeconds: 0,
        concurrencyPolicy: 'Forbid',
        suspend: true,
        jobTemplate: {
          metadata: { labels: { job: 'nightly' } },
          spec: {
            backoffLimit: 2,
            template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } },
          },
        },
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 1,
      },
      status: {
        active: [{ kind: 'Job', namespace: 'apps', name: 'nightly-1', uid: 'j-1', apiVersion: 'batch/v1' }],
        lastScheduleTime: time(T2),
      },
    },
    json: {
      metadata: jsonMeta('nightly', 'apps'),
      spec: {
        schedule: '*/5 * * * *',
        timeZone: 'Etc/UTC',
        startingDeadlineSeconds: 0,
        concurrencyPolicy: 'Forbid',
        suspend: true,
        jobTemplate: {
          metadata: { creationTimestamp: null, labels: { job: 'nightly' } },
          spec: {
            backoffLimit: 2,
            template: {
              metadata: { creationTimestamp: null },
              spec: {
                containers: [{ name: 'c', image: 'busybox', resources: {} }],
                restartPolicy: 'OnFailure',
              },
            },
          },
        },
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 1,
      },
      status: {
        active: [{ kind: 'Job', namespace: 'apps', name: 'nightly-1', uid: 'j-1', apiVersion: 'batch/v1' }],
        lastScheduleTime: T2,
      },
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    about: 'rules with the inlined IngressRuleValue, backend ports by number and name, status',
    proto: {
      metadata: meta('web', 'apps'),
      spec: {
        ingressClassName: 'nginx',
        defaultBackend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'static' } },
        tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }],
        rules: [
          {
            host: 'web.example.com',
            ingressRuleValue: {
              http: {
                paths: [
                  {
                    path: '/',
                    pathType: 'Prefix',
                    backend: { service: { name: 'web', port: { number: 80 } } },
                  },
                  {
                    path: '/api',
                    pathType: 'Exact',
                    backend: { service: { name: 'api', port: { name: 'http' } } },
                  },
                ],
              },
            },
          },
        ],
      },
      status: { loadBalancer: { ingress: [{ ip: '10.0.0.1', ports: [{ port: 443, protocol: 'TCP' }] }] } },
    },
    json: {
      metadata: jsonMeta('web', 'apps'),
      spec: {
        ingressClassName: 'nginx',
        defaultBackend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'static' } },
        tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }],
        rules: [
          {
            host: 'web.example.com',
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: 'web', port: { number: 80 } } },
                },
                {
                  path: '/api',
                  pathType: 'Exact',
                  backend: { service: { name: 'api', port: { name: 'http' } } },
                },
              ],
            },
          },
        ],
      },
      status: { loadBalancer: { ingress: [{ ip: '10.0.0.1', ports: [{ port: 443, protocol: 'TCP' }] }] } },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    about: 'a sidecar, inlined volume sources, projected token, affinity, and a kubelet-written status',
    proto: {
      metadata: meta('web-0', 'apps'),
      spec: {
        initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always' }],
        containers: [
          {
            name: 'app',
            image: 'app:1',
            command: ['/app'],
            args: ['--port=8080'],
            livenessProbe: { handler: { exec: { command: ['cat', '/tmp/ok'] } }, initialDelaySeconds: 5 },
            lifecycle: { preStop: { sleep: { seconds: 5 } } },
          },
        ],
        volumes: [
          { name: 'scratch', volumeSource: { emptyDir: { medium: 'Memory', sizeLimit: quantity('64Mi') } } },
          {
            name: 'token',
            volumeSource: {
              projected: {
                sources: [
                  { serviceAccountToken: { path: 'token', expirationSeconds: 3600 } },
                  {
                    configMap: {
                      localObjectReference: { name: 'ca' },
                      items: [{ key: 'ca.crt', path: 'ca.crt' }],
                    },
                  },
                ],
                defaultMode: 420,
              },
            },
          },
          { name: 'data', volumeSource: { persistentVolumeClaim: { claimName: 'data', readOnly: false } } },
        ],
        nodeName: 'node-1',
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 100,
                podAffinityTerm: {
                  labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] },
                  topologyKey: 'kubernetes.io/hostname',
                },
              },
            ],
          },
        },
        priority: 0,
        dnsConfig: { options: [{ name: 'ndots', value: '2' }] },
        enableServiceLinks: false,
      },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: time(T1) }],
        hostIP: '192.168.1.10',
        podIP: '10.244.0.5',
        podIPs: [{ ip: '10.244.0.5' }],
        startTime: time(T1),
        containerStatuses: [
          {
            name: 'app',
            state: { running: { startedAt: time(T2) } },
            ready: false,
            restartCount: 0,
            image: 'app:1',
            imageID: '',
            started: true,
          },
        ],
        qosClass: 'BestEffort',
      },
    },
    json: {
      metadata: jsonMeta('web-0', 'apps'),
      spec: {
        volumes: [
          { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
          {
            name: 'token',
            projected: {
              sources: [
                { serviceAccountToken: { expirationSeconds: 3600, path: 'token' } },
                { configMap: { name: 'ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              ],
              defaultMode: 420,
            },
          },
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
        ],
        initContainers: [{ name: 'proxy', image: 'envoy', resources: {}, restartPolicy: 'Always' }],
        containers: [
          {
            name: 'app',
            image: 'app:1',
            command: ['/app'],
            args: ['--port=8080'],
            resources: {},
            livenessProbe: { exec: { command: ['cat', '/tmp/ok'] }, initialDelaySeconds: 5 },
            lifecycle: { preStop: { sleep: { seconds: 5 } } },
          },
        ],
        nodeName: 'node-1',
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 100,
                podAffinityTerm: {
                  labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] },
                  topologyKey: 'kubernetes.io/hostname',
                },
              },
            ],
          },
        },
        priority: 0,
        dnsConfig: { options: [{ name: 'ndots', value: '2' }] },
        enableServiceLinks: false,
      },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: T1 }],
        hostIP: '192.168.1.10',
        podIP: '10.244.0.5',
        podIPs: [{ ip: '10.244.0.5' }],
        startTime: T1,
        containerStatuses: [
          {
            name: 'app',
            state: { running: { startedAt: T2 } },
            lastState: {},
            ready: false,
            restartCount: 0,
            image: 'app:1',
            imageID: '',
            started: true,
          },
        ],
        qosClass: 'BestEffort',
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    about: 'storageClassName: "" (no class) kept apart from unset, a Quantity request',
    proto: {
      metadata: meta('data', 'apps'),
      spec: {
        accessModes: ['ReadWriteOnce'],
        selector: { matchLabels: { tier: 'db' } },
        resources: { requests: { storage: quantity('1Gi') } },
        storageClassName: '',
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Pending' },
    },
    json: {
      metadata: jsonMeta('data', 'apps'),
      spec: {
        accessModes: ['ReadWriteOnce'],
        selector: { matchLabels: { tier: 'db' } },
        resources: { requests: { storage: '1Gi' } },
        storageClassName: '',
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Pending' },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    about: 'the inlined PersistentVolumeSource, a claimRef, node affinity',
    proto: {
      metadata: meta('pv-1'),
      spec: {
        capacity: { storage: quantity('10Gi') },
        persistentVolumeSource: { hostPath: { path: '/data/pv-1', type: 'DirectoryOrCreate' } },
        accessModes: ['ReadWriteOnce'],
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'apps', name: 'data', uid: 'c-1' },
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: 'manual',
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] },
            ],
          },
        },
      },
      status: { phase: 'Bound' },
    },
    json: {
      metadata: jsonMeta('pv-1'),
      spec: {
        capacity: { storage: '10Gi' },
        hostPath: { path: '/data/pv-1', type: 'DirectoryOrCreate' },
        accessModes: ['ReadWriteOnce'],
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'apps', name: 'data', uid: 'c-1' },
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: 'manual',
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] },
            ],
          },
        },
      },
      status: { phase: 'Bound' },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Event',
    about: 'a zero eventTime (MicroTime) is null; reportingComponent/Instance print even empty',
    proto: {
      metadata: meta('web.17a', 'apps'),
      involvedObject: {
        kind: 'Deployment',
        namespace: 'apps',
        name: 'web',
        uid: 'd-1',
        apiVersion: 'apps/v1',
        resourceVersion: '7',
      },
      reason: 'ScalingReplicaSet',
      message: 'Scaled up replica set web-5d9c7b to 3',
      source: { component: 'deployment-controller' },
      firstTimestamp: time(T1),
      lastTimestamp: time(T2),
      count: 1,
      type: 'Normal',
    },
    json: {
      metadata: jsonMeta('web.17a', 'apps'),
      involvedObject: {
        kind: 'Deployment',
        namespace: 'apps',
        name: 'web',
        uid: 'd-1',
        apiVersion: 'apps/v1',
        resourceVersion: '7',
      },
      reason: 'ScalingReplicaSet',
      message: 'Scaled up replica set web-5d9c7b to 3',
      source: { component: 'deployment-controller' },
      firstTimestamp: T1,
      lastTimestamp: T2,
      count: 1,
      type: 'Normal',
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    },
  },
  {
    // client-go's events.k8s.io recorder (tools/events) sends these; Go's JSON prints the value
    // structs (regarding, deprecatedSource) and zero Times even when empty, and omits the rest.
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    about: 'MicroTime eventTime and series; empty deprecated fields print as {} and null',
    proto: {
      metadata: meta('web.17b', 'apps'),
      eventTime: { seconds: Date.parse(T1) / 1000, nanos: 5000 },
      series: { count: 2, lastObservedTime: { seconds: Date.parse(T2) / 1000, nanos: 0 } },
      reportingController: 'example.com/operator',
      reportingInstance: 'operator-0',
      action: 'Reconcile',
      reason: 'Synced',
      regarding: { kind: 'Deployment', namespace: 'apps', name: 'web', apiVersion: 'apps/v1' },
      note: 'synced',
      type: 'Normal',
    },
    json: {
      metadata: jsonMeta('web.17b', 'apps'),
      eventTime: '2026-01-02T03:04:05.000005Z',
      series: { count: 2, lastObservedTime: '2026-01-02T03:09:05.000000Z' },
      reportingController: 'example.com/operator',
      reportingInstance: 'operator-0',
      action: 'Reconcile',
      reason: 'Synced',
      regarding: { kind: 'Deployment', namespace: 'apps', name: 'web', apiVersion: 'apps/v1' },
      note: 'synced',
      type: 'Normal',
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    },
  },
  {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    about: 'MicroTime with microseconds, leaseTransitions: 0 kept (leader election)',
    proto: {
      metadata: meta('kube-sim-leader', 'kube-system'),
      spec: {
        holderIdentity: 'worker-1',
        leaseDurationSeconds: 15,
        acquireTime: { seconds: Date.parse(T1) / 1000, nanos: 123456789 },
        renewTime: { seconds: Date.parse(T2) / 1000, nanos: 0 },
        leaseTransitions: 0,
      },
    },
    json: {
      metadata: jsonMeta('kube-sim-leader', 'kube-system'),
      spec: {
        holderIdentity: 'worker-1',
        leaseDurationSeconds: 15,
        acquireTime: '2026-01-02T03:04:05.123456Z',
        renewTime: '2026-01-02T03:09:05.000000Z',
        leaseTransitions: 0,
      },
    },
  },
  {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    about: 'provisioner, parameters, pointer enums and allowed topologies',
    proto: {
      metadata: meta('fast'),
      provisioner: 'rancher.io/local-path',
      parameters: { type: 'ssd' },
      reclaimPolicy: 'Delete',
      mountOptions: ['noatime'],
      allowVolumeExpansion: true,
      volumeBindingMode: 'WaitForFirstConsumer',
      allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a'] }] }],
    },
    json: {
      metadata: jsonMeta('fast'),
      provisioner: 'rancher.io/local-path',
      parameters: { type: 'ssd' },
      reclaimPolicy: 'Delete',
      mountOptions: ['noatime'],
      allowVolumeExpansion: true,
      volumeBindingMode: 'WaitForFirstConsumer',
      allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a'] }] }],
    },
  },
  {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    about: "helm create's HPA: a Resource metric; the status counts print 0",
    proto: {
      metadata: meta('demo'),
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'demo' },
        minReplicas: 1,
        maxReplicas: 100,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
          },
        ],
      },
    },
    json: {
      metadata: jsonMeta('demo'),
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'demo' },
        minReplicas: 1,
        maxReplicas: 100,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
          },
        ],
      },
      status: { currentReplicas: 0, desiredReplicas: 0 },
    },
  },
  {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    about: 'IntOrString minAvailable as a percentage; counts in status print 0',
    proto: {
      metadata: meta('api'),
      spec: { minAvailable: intOrString('50%'), selector: { matchLabels: { app: 'api' } } },
    },
    json: {
      metadata: jsonMeta('api'),
      spec: { minAvailable: '50%', selector: { matchLabels: { app: 'api' } } },
      status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    about: 'a default class by annotation, with parameters',
    proto: {
      metadata: { ...meta('nginx'), annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
      spec: {
        controller: 'k8s.io/ingress-nginx',
        parameters: { kind: 'IngressParameters', name: 'p', scope: 'Cluster' },
      },
    },
    json: {
      metadata: {
        ...jsonMeta('nginx'),
        annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
      },
      spec: {
        controller: 'k8s.io/ingress-nginx',
        parameters: { kind: 'IngressParameters', name: 'p', scope: 'Cluster' },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Node',
    about: 'capacity Quantities, conditions, addresses, daemonEndpoints and nodeInfo',
    proto: {
      metadata: meta('kube-sim-node', undefined, { labels: { 'kubernetes.io/hostname': 'kube-sim-node' } }),
      spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], unschedulable: true },
      status: {
        capacity: { cpu: quantity('4'), pods: quantity('110') },
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            lastHeartbeatTime: time(T1),
            lastTransitionTime: time(T1),
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
          },
        ],
        addresses: [{ type: 'InternalIP', address: '172.18.0.2' }],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: { kubeletVersion: 'v1.33.9', operatingSystem: 'linux', architecture: 'amd64' },
      },
    },
    json: {
      metadata: {
        name: 'kube-sim-node',
        creationTimestamp: null,
        labels: { 'kubernetes.io/hostname': 'kube-sim-node' },
      },
      spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], unschedulable: true },
      status: {
        capacity: { cpu: '4', pods: '110' },
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            lastHeartbeatTime: '2026-01-02T03:04:05Z',
            lastTransitionTime: '2026-01-02T03:04:05Z',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
          },
        ],
        addresses: [{ type: 'InternalIP', address: '172.18.0.2' }],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          machineID: '',
          systemUUID: '',
          bootID: '',
          kernelVersion: '',
          osImage: '',
          containerRuntimeVersion: '',
          kubeletVersion: 'v1.33.9',
          kubeProxyVersion: '',
          operatingSystem: 'linux',
          architecture: 'amd64',
        },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Endpoints',
    about: 'subsets with addresses, targetRefs and ports',
    proto: {
      metadata: meta('web', 'apps'),
      subsets: [
        {
          addresses: [
            {
              ip: '10.244.0.5',
              nodeName: 'kube-sim-node',
              targetRef: { kind: 'Pod', namespace: 'apps', name: 'web-0', uid: 'p-1' },
            },
          ],
          ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        },
      ],
    },
    json: {
      metadata: { name: 'web', namespace: 'apps', creationTimestamp: null },
      subsets: [
        {
          addresses: [
            {
              ip: '10.244.0.5',
              nodeName: 'kube-sim-node',
              targetRef: { kind: 'Pod', namespace: 'apps', name: 'web-0', uid: 'p-1' },
            },
          ],
          ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        },
      ],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    about: 'claim templates, partition 0 kept, retention policy, status revisions',
    proto: {
      metadata: meta('db', 'apps'),
      spec: {
        replicas: 3,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [{ name: 'db', image: 'postgres:16' }] },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: quantity('1Gi') } } },
          },
        ],
        podManagementPolicy: 'Parallel',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
      },
      status: {
        replicas: 3,
        readyReplicas: 3,
        currentRevision: 'db-abc',
        updateRevision: 'db-abc',
        availableReplicas: 3,
      },
    },
    json: {
      metadata: { name: 'db', namespace: 'apps', creationTimestamp: null },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'db' } },
          spec: { containers: [{ name: 'db', image: 'postgres:16', resources: {} }] },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data', creationTimestamp: null },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            status: {},
          },
        ],
        serviceName: 'db',
        podManagementPolicy: 'Parallel',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
      },
      status: {
        replicas: 3,
        readyReplicas: 3,
        currentRevision: 'db-abc',
        updateRevision: 'db-abc',
        availableReplicas: 3,
      },
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    about: 'IntOrString maxUnavailable and maxSurge, zero counts printed',
    proto: {
      metadata: meta('agent', 'apps'),
      spec: {
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [{ name: 'db', image: 'postgres:16' }] },
        },
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxUnavailable: intOrString('10%'), maxSurge: intOrString(0) },
        },
      },
      status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    },
    json: {
      metadata: { name: 'agent', namespace: 'apps', creationTimestamp: null },
      spec: {
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'db' } },
          spec: { containers: [{ name: 'db', image: 'postgres:16', resources: {} }] },
        },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%', maxSurge: 0 } },
      },
      status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    about: 'data as a RawExtension of JSON, revision',
    proto: {
      metadata: meta('db-abc', 'apps'),
      data: { raw: Buffer.from('{"spec":{"template":{"$patch":"replace"}}}') },
      revision: 2,
    },
    json: {
      metadata: { name: 'db-abc', namespace: 'apps', creationTimestamp: null },
      data: { spec: { template: { $patch: 'replace' } } },
      revision: 2,
    },
  },
  {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    about: 'pointer conditions, an empty port name, nodeName',
    proto: {
      metadata: meta('web-x7k2q', 'apps', { labels: { 'kubernetes.io/service-name': 'web' } }),
      addressType: 'IPv4',
      endpoints: [
        {
          addresses: ['10.244.0.5'],
          conditions: { ready: true, serving: true, terminating: false },
          nodeName: 'kube-sim-node',
          targetRef: { kind: 'Pod', namespace: 'apps', name: 'web-0', uid: 'p-1' },
        },
      ],
      ports: [{ name: '', port: 8080, protocol: 'TCP' }],
    },
    json: {
      metadata: {
        name: 'web-x7k2q',
        namespace: 'apps',
        creationTimestamp: null,
        labels: { 'kubernetes.io/service-name': 'web' },
      },
      addressType: 'IPv4',
      endpoints: [
        {
          addresses: ['10.244.0.5'],
          conditions: { ready: true, serving: true, terminating: false },
          targetRef: { kind: 'Pod', namespace: 'apps', name: 'web-0', uid: 'p-1' },
          nodeName: 'kube-sim-node',
        },
      ],
      ports: [{ name: '', protocol: 'TCP', port: 8080 }],
    },
  },
  {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    about: 'the scale subresource body; status.replicas prints 0',
    proto: { metadata: meta('web', 'apps'), spec: { replicas: 3 }, status: { replicas: 0 } },
    json: { metadata: jsonMeta('web', 'apps'), spec: { replicas: 3 }, status: { replicas: 0 } },
  },
  {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    about: 'delete bodies: gracePeriodSeconds: 0, preconditions, dryRun',
    proto: {
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u-1', resourceVersion: '9' },
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    },
    json: {
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u-1', resourceVersion: '9' },
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    about: 'rules with resourceNames',
    proto: {
      metadata: meta('reader', 'team'),
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['db'] }],
    },
    json: {
      metadata: { name: 'reader', namespace: 'team', creationTimestamp: null },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['db'] }],
    },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    about: 'non-resource URLs and an aggregationRule',
    proto: {
      metadata: meta('viewer'),
      rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] },
    },
    json: {
      metadata: { name: 'viewer', creationTimestamp: null },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] },
    },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    about: 'a ServiceAccount subject',
    proto: {
      metadata: meta('reader', 'team'),
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'team' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    },
    json: {
      metadata: { name: 'reader', namespace: 'team', creationTimestamp: null },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'team' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    about: 'a Group subject',
    proto: {
      metadata: meta('readers'),
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'readers' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    },
    json: {
      metadata: { name: 'readers', creationTimestamp: null },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'readers' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    },
  },
  {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    about: 'kubectl auth can-i',
    proto: { spec: { resourceAttributes: { namespace: 'team', verb: 'get', resource: 'secrets' } } },
    json: {
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'team', verb: 'get', resource: 'secrets' } },
      status: { allowed: false },
    },
  },
  {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    about: 'a non-resource review for a user',
    proto: { spec: { user: 'ann', groups: ['devs'], nonResourceAttributes: { path: '/api', verb: 'get' } } },
    json: {
      metadata: { creationTimestamp: null },
      spec: { nonResourceAttributes: { path: '/api', verb: 'get' }, user: 'ann', groups: ['devs'] },
      status: { allowed: false },
    },
  },
  {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'LocalSubjectAccessReview',
    about: 'a namespaced review',
    proto: {
      metadata: meta('', 'team'),
      spec: { user: 'ann', resourceAttributes: { namespace: 'team', verb: 'list', resource: 'pods' } },
    },
    json: {
      metadata: { namespace: 'team', creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'team', verb: 'list', resource: 'pods' }, user: 'ann' },
      status: { allowed: false },
    },
  },
  {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    about: 'kubectl auth can-i --list',
    proto: { spec: { namespace: 'team' } },
    json: {
      metadata: { creationTimestamp: null },
      spec: { namespace: 'team' },
      status: { incomplete: false },
    },
  },
  {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    about: 'kubectl auth whoami',
    proto: { metadata: meta('') },
    json: { metadata: { creationTimestamp: null }, status: { userInfo: {} } },
  },
];

describe('decodeProtobuf: bodies the real kubectl and helm sent', () => {
  it.each(KUBECTL_BODIES)('$command', ({ body, json }) => {
    expect(decodeProtobuf(Buffer.from(body, 'base64'))).toStrictEqual(json);
  });

  it("helm's release Secret: labels, type, and the release as base64", () => {
    const secret = decodeProtobuf(Buffer.from(HELM_RELEASE_SECRET, 'base64')) as {
      metadata: Record<string, unknown>;
      data: { release: string };
    };
    expect(secret).toMatchObject({
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: {
        name: 'sh.helm.release.v1.rel.v1',
        creationTimestamp: null,
        labels: { name: 'rel', owner: 'helm', status: 'pending-install', version: '1' },
      },
      type: 'helm.sh/release.v1',
    });
    expect(Object.keys(secret.metadata)).toEqual(['name', 'creationTimestamp', 'labels']);
    // helm stores base64(gzip(release JSON)); the Secret's bytes are that text, base64 again in JSON.
    const stored = Buffer.from(secret.data.release, 'base64').toString('latin1');
    expect(stored.startsWith('H4sI')).toBe(true);
  });

  it("helm's DeleteOptions (uninstall): an empty options body", () => {
    expect(decodeProtobuf(Buffer.from(HELM_DELETE_OPTIONS, 'base64'))).toStrictEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
    });
  });
});

describe('decodeProtobuf: every kind kube-sim serves', () => {
  it('has a message, and a case below, for every served kind', () => {
    // CustomResourceDefinitions are decoded from JSON only for now: kube-sim has no protobuf schema
    // for apiextensions.k8s.io (kubectl apply/create -f and helm send them as JSON).
    const kinds = RESOURCE_TYPES.filter((t) => t.group !== 'apiextensions.k8s.io').map(
      (t) => `${groupVersion(t)} ${t.kind}`,
    );
    for (const kind of kinds) expect(messageFor(...(kind.split(' ') as [string, string]))).toBeDefined();
    const covered = KIND_CASES.map((c) => `${c.apiVersion} ${c.kind}`);
    expect(kinds.filter((k) => !covered.includes(k))).toEqual([]);
  });

  it.each(KIND_CASES)('$apiVersion $kind: $about', ({ apiVersion, kind, proto, json }) => {
    expect(decodeProtobuf(protobufBody(apiVersion, kind, proto))).toStrictEqual({
      kind,
      apiVersion,
      ...json,
    });
  });

  it('gives the same JSON when a non-Go encoder leaves the zero value fields out', () => {
    for (const { apiVersion, kind, proto } of KIND_CASES) {
      const sparse = decodeProtobuf(protobufBody(apiVersion, kind, proto, true));
      expect(sparse).toStrictEqual(decodeProtobuf(protobufBody(apiVersion, kind, proto)));
    }
  });

  it('decodes DeleteOptions in any served group version and in meta.k8s.io/v1', () => {
    for (const apiVersion of ['meta.k8s.io/v1', 'apps/v1', 'batch/v1']) {
      const body = protobufBody(apiVersion, 'DeleteOptions', { propagationPolicy: 'Orphan' });
      expect(decodeProtobuf(body)).toStrictEqual({
        kind: 'DeleteOptions',
        apiVersion,
        propagationPolicy: 'Orphan',
      });
    }
  });

  it('prints a zero time as null, a set pointer to it too, and an unset pointer not at all', () => {
    const zero = { seconds: -62135596800 };
    const body = protobufBody('v1', 'ConfigMap', {
      metadata: { name: 'c', creationTimestamp: zero, deletionTimestamp: {} },
    });
    expect(decodeProtobuf(body)).toStrictEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'c', creationTimestamp: null, deletionTimestamp: null },
    });
  });
});

describe('the schema', () => {
  // Field numbers read in upstream's generated.proto (kubernetes/api core/v1, apps/v1) and
  // apimachinery meta/v1: a slip in the schema would move data between fields.
  it.each([
    ['k8s.io.api.core.v1.ConfigMap', { metadata: 1, data: 2, binaryData: 3, immutable: 4 }],
    ['k8s.io.api.core.v1.Secret', { metadata: 1, data: 2, type: 3, stringData: 4, immutable: 5 }],
    [
      'k8s.io.api.core.v1.Container',
      { name: 1, image: 2, envFrom: 19, terminationMessagePolicy: 20, startupProbe: 22 },
    ],
    [
      'k8s.io.api.apps.v1.DeploymentSpec',
      { replicas: 1, template: 3, paused: 7, progressDeadlineSeconds: 9 },
    ],
    ['k8s.io.api.apps.v1.ReplicaSetStatus', { replicas: 1, observedGeneration: 3, terminatingReplicas: 7 }],
    [
      `${META}.ObjectMeta`,
      { name: 1, generation: 7, creationTimestamp: 8, finalizers: 14, managedFields: 17 },
    ],
    ['k8s.io.apimachinery.pkg.runtime.Unknown', { typeMeta: 1, raw: 2, contentEncoding: 3, contentType: 4 }],
  ] as const)('%s', (name, numbers) => {
    const type = messageType(name);
    for (const [field, id] of Object.entries(numbers)) expect(type.fields[field]?.id, field).toBe(id);
  });

  it('knows which fields Go keeps as pointers', () => {
    const nullable = (type: string, field: string) =>
      fieldOption(messageType(type).fields[field]!, OPTION.nullable) !== false;
    expect(nullable('k8s.io.api.apps.v1.DeploymentSpec', 'replicas')).toBe(true);
    expect(nullable('k8s.io.api.apps.v1.DeploymentSpec', 'paused')).toBe(false);
    expect(nullable('k8s.io.api.core.v1.PersistentVolumeClaimSpec', 'storageClassName')).toBe(true);
    expect(nullable('k8s.io.api.core.v1.PersistentVolumeSpec', 'storageClassName')).toBe(false);
  });
});

describe('decodeProtobuf: errors', () => {
  it('400 for a body without the k8s\\0 prefix, as the protobuf serializer says', () => {
    const json = Buffer.from('{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s"}}');
    expect(statusOf(json)).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'the object provided is unrecognized: provided data does not appear to be a protobuf message, ' +
        'expected prefix [107 56 115 0] ({"kind":"Secret","apiVersion": ...)',
    });
    expect(statusOf(Buffer.from([0x6b, 0x38]))).toMatchObject({
      code: 400,
      message: expect.stringContaining('(6b38)'),
    });
  });

  it('400 for the prefix alone, and for a truncated envelope', () => {
    expect(statusOf(MAGIC)).toMatchObject({ code: 400, message: expect.stringContaining(': empty body (') });
    const cut = protobufBody('v1', 'Secret', { metadata: { name: 's' } }).subarray(0, 12);
    expect(statusOf(cut)).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: expect.stringMatching(/^the object provided is unrecognized: unexpected EOF \(6b387300/),
    });
  });

  it('400 naming the kind when the object inside cannot be decoded', () => {
    const raw = messageType('k8s.io.api.core.v1.Secret')
      .encode({ metadata: { name: 'long-enough' } })
      .finish();
    expect(statusOf(envelope('v1', 'Secret', raw.subarray(0, raw.length - 3)))).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'Secret in version "v1" cannot be handled as a Secret: unexpected EOF',
    });
  });

  it('400 when the envelope has no kind or no apiVersion', () => {
    expect(statusOf(envelope('v1', '', new Uint8Array()))).toMatchObject({
      code: 400,
      message: expect.stringContaining(
        `Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"v1", Kind:""}'`,
      ),
    });
    expect(statusOf(envelope('', 'Secret', new Uint8Array()))).toMatchObject({
      code: 400,
      message: expect.stringContaining(
        `Object 'apiVersion' is missing in 'runtime.TypeMeta{APIVersion:"", Kind:"Secret"}'`,
      ),
    });
  });

  it('400 when managedFields carry FieldsV1 bytes that are not JSON', () => {
    const body = protobufBody('v1', 'ConfigMap', {
      metadata: { name: 'c', managedFields: [{ manager: 'm', fieldsV1: { Raw: Buffer.from('{not json') } }] },
    });
    expect(statusOf(body)).toMatchObject({
      code: 400,
      message: expect.stringContaining('ConfigMap in version "v1" cannot be handled as a ConfigMap:'),
    });
  });

  it('415 naming a kind it does not decode', () => {
    for (const [apiVersion, kind] of [
      ['node.k8s.io/v1', 'RuntimeClass'],
      ['extensions/v1beta1', 'Deployment'],
      ['policy/v1beta1', 'PodSecurityPolicy'],
    ]) {
      const status = statusOf(envelope(apiVersion!, kind!, new Uint8Array()));
      expect(status).toMatchObject({ code: 415, reason: 'UnsupportedMediaType', kind });
      expect(status.message).toContain(
        `does not decode application/vnd.kubernetes.protobuf bodies of kind ${kind} (${apiVersion})`,
      );
      expect(status.message).toContain('apps/v1 Deployment');
    }
  });
});

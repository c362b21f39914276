/**
 * An ordinary chart against kube-sim, as a new user would bring one: `helm create demo` (helm's
 * own starter chart: Deployment, Service, ServiceAccount, HPA, test Pod) installed with
 * `autoscaling.enabled=true`, plus a StatefulSet with a volumeClaimTemplate, a PodDisruptionBudget,
 * a Role and a RoleBinding added to its templates. It installs with --wait, every object is
 * served and readable by kubectl, and `helm uninstall` removes them all.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

/** Templates added to the starter chart; they reuse its helpers (`demo.fullname`, labels). */
const EXTRA_TEMPLATES: Record<string, string> = {
  'statefulset.yaml': `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ include "demo.fullname" . }}-db
  labels:
    {{- include "demo.labels" . | nindent 4 }}
spec:
  serviceName: {{ include "demo.fullname" . }}-db
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/component: db
  template:
    metadata:
      labels:
        app.kubernetes.io/component: db
    spec:
      containers:
        - name: db
          image: postgres:16
          volumeMounts:
            - name: data
              mountPath: /var/lib/postgresql/data
  volumeClaimTemplates:
    - metadata:
        name: data
      spec:
        accessModes: ["ReadWriteOnce"]
        resources:
          requests:
            storage: 1Gi
`,
  'pdb.yaml': `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "demo.fullname" . }}
spec:
  minAvailable: 1
  selector:
    matchLabels:
      {{- include "demo.selectorLabels" . | nindent 6 }}
`,
  'role.yaml': `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ include "demo.fullname" . }}-reader
rules:
  - apiGroups: [""]
    resources: ["configmaps", "secrets"]
    verbs: ["get", "list", "watch"]
`,
  'rolebinding.yaml': `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ include "demo.fullname" . }}-reader
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ include "demo.fullname" . }}-reader
subjects:
  - kind: ServiceAccount
    name: {{ include "demo.serviceAccountName" . }}
    namespace: {{ .Release.Namespace }}
`,
};

/** What the release makes, as `kubectl get -o name` names it (and accepts it). */
const KINDS = [
  'deployment.apps/demo',
  'service/demo',
  'serviceaccount/demo',
  'horizontalpodautoscaler.autoscaling/demo',
  'statefulset.apps/demo-db',
  'poddisruptionbudget.policy/demo',
  'role.rbac.authorization.k8s.io/demo-reader',
  'rolebinding.rbac.authorization.k8s.io/demo-reader',
];

describe('helm create, with autoscaling and the kinds ordinary charts add', () => {
  let c: SimClients;
  let cli: KubeCli;
  let chart: string;
  const ns = 'demo';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { podReadyDelayMs: 100 } });
    cli = await kubeCli(c.sim);
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
    const created = await cli.helm(['create', join(cli.dir, 'demo')]);
    expect(created.code, created.stderr).toBe(0);
    chart = join(cli.dir, 'demo');
    for (const [name, body] of Object.entries(EXTRA_TEMPLATES))
      writeFileSync(join(chart, 'templates', name), body);
  });
  afterAll(() => c.sim.stop());

  it('installs with --wait and serves every object it declares', async () => {
    const install = await cli.helm([
      'install',
      'demo',
      chart,
      '-n',
      ns,
      '--set',
      'autoscaling.enabled=true',
      '--wait',
      '--timeout',
      '90s',
    ]);
    expect(install.stderr).toBe('');
    expect(install.code).toBe(0);
    expect(install.stdout).toContain('STATUS: deployed');

    const got = await cli.kubectl(['get', '-n', ns, '-o', 'name', ...KINDS]);
    expect(got.stderr).toBe('');
    expect(got.stdout.trim().split('\n').sort()).toEqual([...KINDS].sort());
    // The StatefulSet's ordered pods and the claims of its volumeClaimTemplate.
    const status = await cli.kubectl([
      'rollout',
      'status',
      'statefulset/demo-db',
      '-n',
      ns,
      '--timeout',
      '60s',
    ]);
    expect(status.code, status.stderr).toBe(0);
    const claims = (await c.core.listNamespacedPersistentVolumeClaim({ namespace: ns })).items.map(
      (p) => p.metadata?.name,
    );
    expect(claims.sort()).toEqual(['data-demo-db-0', 'data-demo-db-1']);
    // The HPA follows the Deployment (the starter chart's 1–100 replicas, CPU 80%).
    const hpa = await cli.kubectl([
      'get',
      'hpa',
      'demo',
      '-n',
      ns,
      '-o',
      'jsonpath={.spec.scaleTargetRef.name}',
    ]);
    expect(hpa.stdout).toBe('demo');
  });

  it('uninstalls every object the release made', async () => {
    const uninstall = await cli.helm(['uninstall', 'demo', '-n', ns, '--wait', '--timeout', '60s']);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    await until(async () => {
      const left = await cli.kubectl(['get', '-n', ns, '-o', 'name', '--ignore-not-found', ...KINDS]);
      return left.code === 0 && left.stdout.trim() === '' ? true : undefined;
    }, 'the release objects to be gone');
    await until(async () => {
      const left = await cli.kubectl([
        'get',
        'pods',
        '-n',
        ns,
        '-o',
        'name',
        '-l',
        'app.kubernetes.io/component=db',
      ]);
      return left.stdout.trim() === '' ? true : undefined;
    }, "the StatefulSet's pods to be gone");
  });
});

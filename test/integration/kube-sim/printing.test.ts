/**
 * Server-side printing against the real kubectl 1.33: `kubectl get` asks for
 * `application/json;as=Table;v=v1;g=meta.k8s.io` and prints the server's columns. The expected
 * headers are upstream's column definitions (kubernetes/kubernetes
 * pkg/printers/internalversion/printers.go, AddHandlers), upper-cased as kubectl prints them.
 * Raw fetches check includeObject and watch Table events.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../../infra/kube-sim/sim.ts';
import { ensureKubeTools } from '../../../infra/kube-sim/tools.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

/** Any JSON answer, read loosely. */
// biome-ignore lint/suspicious/noExplicitAny: answers of several shapes, checked field by field.
async function json(res: Response): Promise<any> {
  return res.json();
}
/** A read asking for a Table (any kind's, so its rows are read loosely too). */
// biome-ignore lint/suspicious/noExplicitAny: see json.
async function table(url: string): Promise<any> {
  return json(await fetch(url, { headers: { Accept: TABLE } }));
}

const MANIFESTS = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx:1.27
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  selector:
    app: web
  ports:
    - port: 80
      protocol: TCP
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
data:
  a: "1"
  b: "2"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: features
  namespace: shop
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: builder
  namespace: shop
---
apiVersion: v1
kind: Secret
metadata:
  name: token
  namespace: shop
type: Opaque
stringData:
  key: value
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
  namespace: shop
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
            - name: task
              image: busybox:1.36
---
apiVersion: batch/v1
kind: Job
metadata:
  name: once
  namespace: shop
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: task
          image: busybox:1.36
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: shop
spec:
  rules:
    - host: shop.example.com
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: web
                port:
                  number: 80
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: shop
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
---
apiVersion: v1
kind: Event
metadata:
  name: web.checked
  namespace: shop
involvedObject:
  apiVersion: apps/v1
  kind: Deployment
  name: web
  namespace: shop
reason: Checked
message: checked by hand
type: Normal
source:
  component: printing-test
firstTimestamp: "2026-01-01T00:00:00Z"
lastTimestamp: "2026-01-01T00:00:00Z"
count: 1
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: slow
provisioner: example.com/slow
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: archive
spec:
  capacity:
    storage: 5Gi
  accessModes: [ReadOnlyMany]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: slow
  hostPath:
    path: /srv/archive
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: leader
  namespace: shop
spec:
  holderIdentity: web-0
`;

/** One object of each kind kube-sim part 3 added (issue 16). */
const PART3_MANIFESTS = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: shop
spec:
  serviceName: db
  replicas: 1
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
        - name: db
          image: postgres:16
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: shop
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      containers:
        - name: agent
          image: busybox:1.36
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: shop
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  minReplicas: 1
  maxReplicas: 3
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: shop
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app: web
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: reader
  namespace: shop
rules:
  - apiGroups: [""]
    resources: ["secrets"]
    verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: read
  namespace: shop
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: reader
subjects:
  - kind: ServiceAccount
    name: default
    namespace: shop
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: readers
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: view
subjects:
  - apiGroup: rbac.authorization.k8s.io
    kind: Group
    name: readers
`;

/** The header line of a kubectl table, split on its column gaps. */
const header = (stdout: string) =>
  stdout
    .split('\n')[0]!
    .trim()
    .split(/\s{2,}/);
/** The table that follows `kind.group/` rows in a multi-kind `kubectl get`: header of each block. */
const headers = (stdout: string) =>
  stdout
    .split('\n\n')
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map(header);

describe('server-side printing', () => {
  let sim: Sim;
  let cli: KubeCli;

  beforeAll(async () => {
    ({ sim } = await startSimWithClients());
    cli = await kubeCli(sim);
    const applied = await cli.kubectl(['apply', '-f', cli.file('shop.yaml', MANIFESTS)]);
    expect(applied.stderr).toBe('');
    await until(async () => {
      const pods = await cli.kubectl(['get', 'pods', '-n', 'shop', '-l', 'app=web', '--no-headers']);
      return /\s1\/1\s+Running\s/.test(pods.stdout);
    }, 'the web pod is running and ready');
  });
  afterAll(async () => {
    await sim?.stop();
  });

  it('kubectl get pods prints upstream pod columns with READY and STATUS from the pod', async () => {
    const got = await cli.kubectl(['get', 'pods', '-n', 'shop', '-l', 'app=web']);
    expect(got.stderr).toBe('');
    // printers.go podColumnDefinitions (priority 0).
    expect(header(got.stdout)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    const row = got.stdout.split('\n')[1]!.trim().split(/\s+/);
    expect(row[0]).toMatch(/^web-[a-z0-9]+-[a-z0-9]{5}$/);
    expect(row.slice(1, 4)).toEqual(['1/1', 'Running', '0']);
    expect(row[4]).toMatch(/^\d+s$/);
  });

  it('-o wide adds the priority-1 pod columns', async () => {
    const got = await cli.kubectl(['get', 'pods', '-n', 'shop', '-l', 'app=web', '-o', 'wide']);
    expect(got.stderr).toBe('');
    expect(header(got.stdout)).toEqual([
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'IP',
      'NODE',
      'NOMINATED NODE',
      'READINESS GATES',
    ]);
    const row = got.stdout
      .split('\n')[1]!
      .trim()
      .split(/\s{2,}/);
    expect(row[5]).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(row[7]).toBe('<none>');
    expect(row[8]).toBe('<none>');
  });

  it('prints every served kind with upstream headers', async () => {
    const got = await cli.kubectl([
      'get',
      'deploy,svc,rs,cm,secret,jobs,cronjobs,ing,pvc,ev,sa,leases',
      '-n',
      'shop',
    ]);
    // As against a real cluster: `ev` is also events.events.k8s.io's short name, and kubectl's
    // shortcut expander (client-go restmapper/shortcut.go) warns that it picked core's.
    expect(got.stderr).toBe(
      'Warning: short name "ev" could also match lower priority resource events.events.k8s.io\n',
    );
    // printers.go AddHandlers: deployment, service, replicaSet, configMap, secret, job, cronJob,
    // ingress, persistentVolumeClaim, event, serviceAccount and lease column definitions.
    expect(headers(got.stdout)).toEqual([
      ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'],
      ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE'],
      ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE'],
      ['NAME', 'DATA', 'AGE'],
      ['NAME', 'TYPE', 'DATA', 'AGE'],
      ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE'],
      ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE'],
      ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE'],
      [
        'NAME',
        'STATUS',
        'VOLUME',
        'CAPACITY',
        'ACCESS MODES',
        'STORAGECLASS',
        'VOLUMEATTRIBUTESCLASS',
        'AGE',
      ],
      ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
      ['NAME', 'SECRETS', 'AGE'],
      ['NAME', 'HOLDER', 'AGE'],
    ]);
    expect(got.stdout).toMatch(/deployment\.apps\/web\s+1\/1\s+1\s+1\s+/);
    expect(got.stdout).toMatch(/service\/web\s+ClusterIP\s+\d+\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s+/);
    expect(got.stdout).toMatch(/configmap\/settings\s+2\s+/);
    expect(got.stdout).toMatch(/secret\/token\s+Opaque\s+1\s+/);
    expect(got.stdout).toMatch(/cronjob\.batch\/nightly\s+0 3 \* \* \*\s+<none>\s+False\s+0\s+<none>\s+/);
    expect(got.stdout).toMatch(/ingress\.networking\.k8s\.io\/web\s+<none>\s+shop\.example\.com\s+80\s+/);
    expect(got.stdout).toMatch(/\S+\s+Normal\s+Checked\s+deployment\/web\s+checked by hand/);
    expect(got.stdout).toMatch(/lease\.coordination\.k8s\.io\/leader\s+web-0\s+/);
    expect(got.stdout).toMatch(/job\.batch\/once\s+(Running|Complete)\s+[01]\/1\s+/);
  });

  it('prints the cluster-scoped kinds with upstream headers', async () => {
    const got = await cli.kubectl(['get', 'ns,pv,sc']);
    expect(got.stderr).toBe('');
    // printers.go namespace, persistentVolume and storageClass column definitions.
    expect(headers(got.stdout)).toEqual([
      ['NAME', 'STATUS', 'AGE'],
      [
        'NAME',
        'CAPACITY',
        'ACCESS MODES',
        'RECLAIM POLICY',
        'STATUS',
        'CLAIM',
        'STORAGECLASS',
        'VOLUMEATTRIBUTESCLASS',
        'REASON',
        'AGE',
      ],
      ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE'],
    ]);
    expect(got.stdout).toMatch(/namespace\/shop\s+Active\s+/);
    expect(got.stdout).toMatch(/persistentvolume\/archive\s+5Gi\s+ROX\s+Retain\s+\S+\s+/);
    expect(got.stdout).toMatch(
      /storageclass\.storage\.k8s\.io\/slow\s+example\.com\/slow\s+Delete\s+Immediate\s+false\s+/,
    );
  });

  it('prints the kinds of kube-sim part 3 with upstream headers', async () => {
    const applied = await cli.kubectl(['apply', '-f', cli.file('part3.yaml', PART3_MANIFESTS)]);
    expect(applied.stderr).toBe('');
    const got = await cli.kubectl([
      'get',
      'sts,ds,controllerrevisions,hpa,pdb,ep,endpointslices,roles,rolebindings',
      '-n',
      'shop',
    ]);
    expect(got.stderr).toBe('');
    // printers.go statefulSet, daemonSet, controllerRevision, horizontalPodAutoscaler,
    // podDisruptionBudget, endpoints, endpointSlice, role and roleBinding column definitions.
    expect(headers(got.stdout)).toEqual([
      ['NAME', 'READY', 'AGE'],
      ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE'],
      ['NAME', 'CONTROLLER', 'REVISION', 'AGE'],
      ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE'],
      ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE'],
      ['NAME', 'ENDPOINTS', 'AGE'],
      ['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE'],
      ['NAME', 'CREATED AT'],
      ['NAME', 'ROLE', 'AGE'],
    ]);
    expect(got.stdout).toMatch(/horizontalpodautoscaler\.autoscaling\/web\s+Deployment\/web\s+/);
    expect(got.stdout).toMatch(/rolebinding\.rbac\.authorization\.k8s\.io\/read\s+Role\/reader\s+/);

    const cluster = await cli.kubectl(['get', 'nodes,ingressclasses']);
    expect(cluster.stderr).toBe('');
    // printers.go node, ingressClass, clusterRole and clusterRoleBinding column definitions.
    expect(headers(cluster.stdout)).toEqual([
      ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'],
      ['NAME', 'CONTROLLER', 'PARAMETERS', 'AGE'],
    ]);
    expect(header((await cli.kubectl(['get', 'clusterrole', 'view'])).stdout)).toEqual([
      'NAME',
      'CREATED AT',
    ]);
    expect(header((await cli.kubectl(['get', 'clusterrolebinding', 'readers'])).stdout)).toEqual([
      'NAME',
      'ROLE',
      'AGE',
    ]);
    expect(cluster.stdout).toMatch(/node\/kube-sim-node\s+Ready\s+<none>\s+\S+\s+v1\.33/);

    const wide = await cli.kubectl(['get', 'rolebindings', '-n', 'shop', '-o', 'wide']);
    expect(header(wide.stdout)).toEqual(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
  });

  it('kubectl get pods -w prints rows as they come', async () => {
    const tools = await ensureKubeTools();
    let child: ChildProcess | undefined;
    let out = '';
    try {
      child = spawn(tools.kubectl, ['get', 'pods', '-n', 'shop', '-w'], {
        env: {
          ...process.env,
          KUBECONFIG: cli.kubeconfig,
          HOME: cli.dir,
          KUBECACHEDIR: join(cli.dir, 'cache'),
        },
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
      });
      await until(() => /\nweb-\S+\s+1\/1\s+Running\s/.test(out), 'kubectl -w prints the running pod');
      // A new pod arrives through the watch (rows without a header).
      await cli.kubectl([
        'run',
        'extra',
        '-n',
        'shop',
        '--image=busybox:1.36',
        '--restart=Never',
        '--',
        'sleep',
        '3600',
      ]);
      await until(() => /\nextra\s+\d\/1\s+\S+\s+\d+\s+\S+/.test(out), 'kubectl -w prints the new pod');
      expect(
        out
          .split('\n')[0]!
          .trim()
          .split(/\s{2,}/),
      ).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      expect(out.match(/^NAME\s/gm)).toHaveLength(1);
    } finally {
      if (child?.pid) child.kill();
    }
  });

  it('answers a Table to raw requests: PartialObjectMetadata rows, includeObject=Object and None', async () => {
    const url = `${sim.url}/api/v1/namespaces/shop/configmaps`;
    const meta = await table(url);
    expect(meta.kind).toBe('Table');
    expect(meta.apiVersion).toBe('meta.k8s.io/v1');
    expect(meta.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(meta.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(meta.columnDefinitions[0]).toMatchObject({ type: 'string', format: 'name', priority: 0 });
    const row = meta.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'settings');
    expect(row.cells[1]).toBe(2);
    expect(row.object.kind).toBe('PartialObjectMetadata');
    expect(row.object.apiVersion).toBe('meta.k8s.io/v1');
    expect(row.object.metadata.name).toBe('settings');
    expect(row.object.data).toBeUndefined();

    const full = await table(`${url}/settings?includeObject=Object`);
    expect(full.rows).toHaveLength(1);
    expect(full.rows[0].object).toMatchObject({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      data: { a: '1', b: '2' },
    });

    const none = await table(`${url}?includeObject=None`);
    expect(none.rows.every((r: { object: unknown }) => r.object === null)).toBe(true);

    // Paging: the Table carries the list's continue token.
    const page = await table(`${url}?limit=1`);
    expect(page.rows).toHaveLength(1);
    expect(page.metadata.continue).toEqual(expect.any(String));
  });

  it('falls back along the Accept list, and refuses an unknown conversion with 406', async () => {
    const url = `${sim.url}/api/v1/namespaces/shop/configmaps/settings`;
    const plain = await fetch(url, {
      headers: { Accept: 'application/json;as=Fancy;v=v1;g=meta.k8s.io, application/json' },
    });
    expect((await json(plain)).kind).toBe('ConfigMap');
    const refused = await fetch(url, { headers: { Accept: 'application/json;as=Table;v=v9;g=meta.k8s.io' } });
    expect(refused.status).toBe(406);
    const status = await json(refused);
    expect(status).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    // Metadata-only reads, as client-go's metadata client asks for them.
    const metaList = await json(
      await fetch(`${sim.url}/api/v1/namespaces/shop/configmaps`, {
        headers: {
          Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
        },
      }),
    );
    expect(metaList.kind).toBe('PartialObjectMetadataList');
    expect(metaList.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain('settings');
    expect(metaList.items[0].data).toBeUndefined();
    const wrongForm = await fetch(url, {
      headers: { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' },
    });
    expect(wrongForm.status).toBe(406);
  });

  it('watch events carry one-row Tables, column definitions only on the first', async () => {
    const list = await json(await fetch(`${sim.url}/api/v1/namespaces/shop/configmaps`));
    const controller = new AbortController();
    const res = await fetch(
      `${sim.url}/api/v1/namespaces/shop/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`,
      { headers: { Accept: TABLE }, signal: controller.signal },
    );
    const events: { type: string; object: Record<string, unknown> & { rows: { cells: unknown[] }[] } }[] = [];
    const reader = res.body!.getReader();
    const reading = (async () => {
      let buffered = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffered += Buffer.from(value).toString('utf8');
        let at = buffered.indexOf('\n');
        while (at >= 0) {
          events.push(JSON.parse(buffered.slice(0, at)));
          buffered = buffered.slice(at + 1);
          at = buffered.indexOf('\n');
        }
      }
    })().catch(() => undefined);
    try {
      for (const name of ['w1', 'w2']) {
        await cli.kubectl(['create', 'configmap', name, '-n', 'shop', '--from-literal=k=v']);
      }
      await until(() => events.length >= 2, 'two watch events');
      expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED']);
      expect(events[0]!.object.kind).toBe('Table');
      expect((events[0]!.object.columnDefinitions as unknown[]).length).toBe(3);
      expect(events[1]!.object.columnDefinitions).toBeNull();
      expect(events.map((e) => e.object.rows[0]!.cells[0])).toEqual(['w1', 'w2']);
      expect(events[1]!.object.rows[0]!.cells[1]).toBe(1);
    } finally {
      controller.abort();
      await reading;
    }
  });
});

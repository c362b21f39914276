/**
 * `kubectl get KIND -o wide` with the real kubectl 1.33 for every kind kube-sim's discovery lists
 * as listable: the header kubectl prints must be upstream's full column list for the kind (every
 * priority, as `-o wide` shows them), and kube-sim's printer definition must be that list too.
 * The kinds come from discovery, so a kind added to kube-sim is covered without touching the loop,
 * and fails here until it has a printer definition and its upstream columns are written below.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInPrinterFor } from '../../../infra/kube-sim/printing/printers.ts';
import { findByPlural, type ResourceType } from '../../../infra/kube-sim/resources.ts';
import { collectionPath, fixtureFor, objectFor, typeLabel } from '../../helpers/kind-fixtures.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';

const ns = 'wide';

/**
 * Upstream's column names, wide ones included, by `group/Kind`: kubernetes/kubernetes 1.33
 * pkg/printers/internalversion/printers.go AddHandlers (`*ColumnDefinitions`), upper-cased as
 * kubectl prints them. events.k8s.io Events are served by the core Event storage, so print alike;
 * CustomResourceDefinitions have no printer upstream (apiextensions-apiserver serves them with
 * k8s.io/apiserver's DefaultTableConvertor: NAME, CREATED AT).
 */
const CONTAINERS = ['CONTAINERS', 'IMAGES', 'SELECTOR'];
const EVENT = [
  'LAST SEEN',
  'TYPE',
  'REASON',
  'OBJECT',
  'SUBOBJECT',
  'SOURCE',
  'MESSAGE',
  'FIRST SEEN',
  'COUNT',
  'NAME',
];
const BINDING = ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS'];
const UPSTREAM_COLUMNS: Record<string, string[]> = {
  '/ConfigMap': ['NAME', 'DATA', 'AGE'],
  '/Event': EVENT,
  'events.k8s.io/Event': EVENT,
  '/Namespace': ['NAME', 'STATUS', 'AGE'],
  '/PersistentVolumeClaim': [
    'NAME',
    'STATUS',
    'VOLUME',
    'CAPACITY',
    'ACCESS MODES',
    'STORAGECLASS',
    'VOLUMEATTRIBUTESCLASS',
    'AGE',
    'VOLUMEMODE',
  ],
  '/PersistentVolume': [
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
    'VOLUMEMODE',
  ],
  '/Pod': ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'],
  '/Secret': ['NAME', 'TYPE', 'DATA', 'AGE'],
  '/ServiceAccount': ['NAME', 'SECRETS', 'AGE'],
  '/Service': ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR'],
  '/Node': [
    'NAME',
    'STATUS',
    'ROLES',
    'AGE',
    'VERSION',
    'INTERNAL-IP',
    'EXTERNAL-IP',
    'OS-IMAGE',
    'KERNEL-VERSION',
    'CONTAINER-RUNTIME',
  ],
  '/Endpoints': ['NAME', 'ENDPOINTS', 'AGE'],
  'apps/Deployment': ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', ...CONTAINERS],
  'apps/ReplicaSet': ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', ...CONTAINERS],
  'apps/StatefulSet': ['NAME', 'READY', 'AGE', 'CONTAINERS', 'IMAGES'],
  'apps/DaemonSet': [
    'NAME',
    'DESIRED',
    'CURRENT',
    'READY',
    'UP-TO-DATE',
    'AVAILABLE',
    'NODE SELECTOR',
    'AGE',
    ...CONTAINERS,
  ],
  'apps/ControllerRevision': ['NAME', 'CONTROLLER', 'REVISION', 'AGE'],
  'batch/CronJob': [
    'NAME',
    'SCHEDULE',
    'TIMEZONE',
    'SUSPEND',
    'ACTIVE',
    'LAST SCHEDULE',
    'AGE',
    ...CONTAINERS,
  ],
  'batch/Job': ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE', ...CONTAINERS],
  'coordination.k8s.io/Lease': ['NAME', 'HOLDER', 'AGE'],
  'networking.k8s.io/Ingress': ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE'],
  'networking.k8s.io/IngressClass': ['NAME', 'CONTROLLER', 'PARAMETERS', 'AGE'],
  'storage.k8s.io/StorageClass': [
    'NAME',
    'PROVISIONER',
    'RECLAIMPOLICY',
    'VOLUMEBINDINGMODE',
    'ALLOWVOLUMEEXPANSION',
    'AGE',
  ],
  'apiextensions.k8s.io/CustomResourceDefinition': ['NAME', 'CREATED AT'],
  'discovery.k8s.io/EndpointSlice': ['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE'],
  'autoscaling/HorizontalPodAutoscaler': [
    'NAME',
    'REFERENCE',
    'TARGETS',
    'MINPODS',
    'MAXPODS',
    'REPLICAS',
    'AGE',
  ],
  'policy/PodDisruptionBudget': ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE'],
  'rbac.authorization.k8s.io/Role': ['NAME', 'CREATED AT'],
  'rbac.authorization.k8s.io/ClusterRole': ['NAME', 'CREATED AT'],
  'rbac.authorization.k8s.io/RoleBinding': BINDING,
  'rbac.authorization.k8s.io/ClusterRoleBinding': BINDING,
};

interface DiscoveredResource {
  group: string;
  version: string;
  name: string;
  verbs: string[];
}

/** Every top-level resource (no subresources) of the preferred version of every served group. */
async function discover(url: string): Promise<DiscoveredResource[]> {
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}${path}`);
    expect(res.status, path).toBe(200);
    return (await res.json()) as T;
  };
  type ResourceList = { resources: { name: string; verbs: string[] }[] };
  const versions: { group: string; version: string; path: string }[] = [
    { group: '', version: 'v1', path: '/api/v1' },
  ];
  const groups = await get<{ groups: { name: string; preferredVersion: { version: string } }[] }>('/apis');
  for (const g of groups.groups) {
    const version = g.preferredVersion.version;
    versions.push({ group: g.name, version, path: `/apis/${g.name}/${version}` });
  }
  const found: DiscoveredResource[] = [];
  for (const v of versions) {
    const list = await get<ResourceList>(v.path);
    for (const r of list.resources) {
      if (!r.name.includes('/'))
        found.push({ group: v.group, version: v.version, name: r.name, verbs: r.verbs });
    }
  }
  return found;
}

/** kubectl's resource argument, fully qualified so `events` of two groups are told apart. */
const resourceArg = (t: ResourceType) => (t.group ? `${t.plural}.${t.version}.${t.group}` : t.plural);

describe('kubectl get -o wide for every served kind', () => {
  let c: SimClients;
  let cli: KubeCli;
  let listable: ResourceType[] = [];

  beforeAll(async () => {
    c = await startSimWithClients({ controllers: false });
    cli = await kubeCli(c.sim);
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
    // Discovery first: the CRD fixture below adds a group of its own, whose custom resources
    // print from their CRD's columns (crd.test.ts), not from a built-in printer.
    const discovered = await discover(c.sim.url);
    const unknown = discovered.filter((r) => !findByPlural(r.group, r.version, r.name));
    expect(unknown, 'discovery lists resources kube-sim has no type for').toEqual([]);
    listable = discovered
      .filter((r) => r.verbs.includes('list'))
      .map((r) => findByPlural(r.group, r.version, r.name) as ResourceType);
  });
  afterAll(() => c.sim.stop());

  it("prints each kind with upstream's columns, as its printer definition has them", async () => {
    // Sanity bound: kube-sim serves over thirty listable kinds; an empty discovery must not pass.
    expect(listable.length).toBeGreaterThan(30);
    const key = (t: ResourceType) => `${t.group}/${t.kind}`;
    const noPrinter = listable.filter((t) => !builtInPrinterFor(t)).map(key);
    expect(noPrinter, 'kinds without a printer definition (infra/kube-sim/printing/printers.ts)').toEqual([]);
    const noUpstream = listable.filter((t) => !UPSTREAM_COLUMNS[key(t)]).map(key);
    expect(noUpstream, 'kinds whose upstream columns are not in UPSTREAM_COLUMNS above').toEqual([]);
    const mismatches: string[] = [];
    for (const type of listable) {
      // One object of the kind, so kubectl has a row and prints the header.
      const object = objectFor(type, `wide-${typeLabel(type)}`, ns, fixtureFor(type, ns).valid);
      const res = await fetch(`${c.sim.url}${collectionPath(type, ns)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(object),
      });
      expect(res.status, `${type.group}/${type.kind} fixture: ${await res.text()}`).toBe(201);

      const args = ['get', resourceArg(type), '-o', 'wide', ...(type.namespaced ? ['-n', ns] : [])];
      const got = await cli.kubectl(args);
      expect(got.stderr, `kubectl ${args.join(' ')}`).toBe('');
      const header = (got.stdout.split('\n')[0] ?? '').trim().split(/\s{2,}/);
      const expected = UPSTREAM_COLUMNS[key(type)] ?? [];
      const defined = (builtInPrinterFor(type)?.columns ?? []).map((col) => col.name.toUpperCase());
      if (JSON.stringify(header) !== JSON.stringify(expected)) {
        mismatches.push(
          `${key(type)}: kubectl printed ${header.join(' | ')}; upstream ${expected.join(' | ')}`,
        );
      }
      if (JSON.stringify(defined) !== JSON.stringify(expected)) {
        mismatches.push(
          `${key(type)}: kube-sim defines ${defined.join(' | ')}; upstream ${expected.join(' | ')}`,
        );
      }
    }
    expect(mismatches).toEqual([]);
  });
});

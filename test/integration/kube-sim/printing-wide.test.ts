/**
 * `kubectl get KIND -o wide` with the real kubectl 1.33 for every kind kube-sim's discovery lists
 * as listable: the header kubectl prints is the kind's full column list (every priority, as `-o
 * wide` shows them), upper-cased, from kube-sim's printer definitions, which follow upstream's
 * (kubernetes/kubernetes pkg/printers/internalversion/printers.go, AddHandlers; the unit tests in
 * test/unit/kube-sim/printing compare them with upstream's names). The kinds come from discovery,
 * so a kind added to kube-sim is covered without touching this file, and one without a printer
 * definition fails here instead of printing the default NAME, CREATED AT table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInPrinterFor } from '../../../infra/kube-sim/printing/printers.ts';
import { findByPlural, type ResourceType } from '../../../infra/kube-sim/resources.ts';
import { collectionPath, fixtureFor, objectFor, typeLabel } from '../../helpers/kind-fixtures.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';

const ns = 'wide';

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

  it('prints each kind with the columns of its printer definition', async () => {
    // Sanity bound: kube-sim serves over thirty listable kinds; an empty discovery must not pass.
    expect(listable.length).toBeGreaterThan(30);
    const noPrinter = listable.filter((t) => !builtInPrinterFor(t)).map((t) => `${t.group}/${t.kind}`);
    expect(noPrinter, 'kinds without a printer definition (infra/kube-sim/printing/printers.ts)').toEqual([]);
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
      const expected = (builtInPrinterFor(type)?.columns ?? []).map((col) => col.name.toUpperCase());
      if (JSON.stringify(header) !== JSON.stringify(expected)) {
        mismatches.push(
          `${type.group}/${type.kind}: got ${header.join(' | ')}; want ${expected.join(' | ')}`,
        );
      }
    }
    expect(mismatches).toEqual([]);
  });
});

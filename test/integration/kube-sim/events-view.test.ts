/**
 * events.k8s.io/v1 Events as a view of core/v1 Events, over real HTTP with client-node's
 * EventsV1Api and CoreV1Api and the real kubectl: one storage and one resourceVersion sequence,
 * two shapes (pkg/apis/events/v1/conversion.go), watches of either API seeing the other's writes,
 * the strict events.k8s.io create and update rules (pkg/apis/core/validation/events.go) with
 * upstream's messages, its field selectors, server-side apply and patches on its shape.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

const ns = 'events-view';
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const ssa = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);
const EVENT_TIME = '2026-01-02T03:04:05.123456Z';

/** A new-style Event that passes the events.k8s.io/v1 create rules. */
function eventsV1(name: string, extra: Record<string, unknown> = {}): k8s.EventsV1Event {
  return {
    metadata: { name },
    eventTime: EVENT_TIME as unknown as k8s.V1MicroTime,
    reportingController: 'example.com/operator',
    reportingInstance: 'operator-0',
    action: 'Reconcile',
    reason: 'Synced',
    regarding: { kind: 'Deployment', namespace: ns, name: 'web', apiVersion: 'apps/v1' },
    note: 'synced web',
    type: 'Normal',
    ...extra,
  } as k8s.EventsV1Event;
}

/** What the raw API answers (client-node turns times into Dates; the wire shape is compared here). */
// biome-ignore lint/suspicious/noExplicitAny: answers of several shapes, read field by field.
async function raw(c: SimClients, path: string): Promise<any> {
  const res = await fetch(`${c.sim.url}${path}`);
  return res.json();
}

const corePath = (name = '') => `/api/v1/namespaces/${ns}/events${name ? `/${name}` : ''}`;
const viewPath = (name = '') => `/apis/events.k8s.io/v1/namespaces/${ns}/events${name ? `/${name}` : ''}`;

describe('events.k8s.io/v1 Events, a view of core/v1 Events', () => {
  let c: SimClients;
  let events: k8s.EventsV1Api;
  let cli: KubeCli;

  beforeAll(async () => {
    c = await startSimWithClients({ controllers: false });
    events = c.kc.makeApiClient(k8s.EventsV1Api);
    cli = await kubeCli(c.sim);
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  it('is discovered in events.k8s.io/v1 with core events’ short name and storage version hash', async () => {
    const groups = await raw(c, '/apis');
    // biome-ignore lint/suspicious/noExplicitAny: discovery documents read loosely.
    const group = groups.groups.find((g: any) => g.name === 'events.k8s.io');
    expect(group.preferredVersion).toEqual({ groupVersion: 'events.k8s.io/v1', version: 'v1' });
    const view = (await raw(c, '/apis/events.k8s.io/v1')).resources[0];
    // biome-ignore lint/suspicious/noExplicitAny: see above.
    const core = (await raw(c, '/api/v1')).resources.find((r: any) => r.name === 'events');
    expect(view).toMatchObject({ name: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] });
    // One storage version (core/v1 Event) behind both: upstream's hash r2yiGXH7wu8= for either.
    expect(view.storageVersionHash).toBe('r2yiGXH7wu8=');
    expect(core.storageVersionHash).toBe('r2yiGXH7wu8=');
    const api = await raw(c, '/openapi/v3/apis/events.k8s.io/v1');
    const schema = api.components.schemas['io.k8s.api.events.v1.Event'];
    expect(schema.required).toEqual(['eventTime']);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['note', 'regarding', 'deprecatedCount']),
    );
  });

  it('shows a core/v1 Event through events.k8s.io/v1 with its fields renamed, and back', async () => {
    // Raw JSON, so the times are on the wire as written (client-node would send Dates).
    const res = await fetch(`${c.sim.url}${corePath()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        metadata: { name: 'legacy' },
        involvedObject: {
          kind: 'Pod',
          namespace: ns,
          name: 'web-1',
          uid: 'u-1',
          fieldPath: 'spec.containers{web}',
        },
        reason: 'Pulled',
        message: 'Container image "nginx:1.27" already present on machine',
        source: { component: 'kubelet', host: 'node-1' },
        firstTimestamp: '2026-01-02T03:04:05Z',
        lastTimestamp: '2026-01-02T03:09:05Z',
        count: 3,
        type: 'Normal',
      }),
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as k8s.CoreV1Event;
    const view = await raw(c, viewPath('legacy'));
    expect(view).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      regarding: { kind: 'Pod', namespace: ns, name: 'web-1', uid: 'u-1', fieldPath: 'spec.containers{web}' },
      reason: 'Pulled',
      note: 'Container image "nginx:1.27" already present on machine',
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2026-01-02T03:04:05Z',
      deprecatedLastTimestamp: '2026-01-02T03:09:05Z',
      deprecatedCount: 3,
      type: 'Normal',
    });
    for (const core of ['involvedObject', 'message', 'source', 'firstTimestamp', 'count'])
      expect(view).not.toHaveProperty(core);
    expect(view.metadata.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(view.metadata.uid).toBe(created.metadata?.uid);
    const read = await events.readNamespacedEvent({ namespace: ns, name: 'legacy' });
    expect(read.note).toBe(view.note);
    expect(read.deprecatedCount).toBe(3);
  });

  it('stores an events.k8s.io/v1 Event as a core/v1 one: both APIs list it, one resourceVersion', async () => {
    const before = c.sim.store.currentRv;
    const created = await events.createNamespacedEvent({
      namespace: ns,
      body: eventsV1('operator-sync', {
        series: { count: 2, lastObservedTime: '2026-01-02T03:09:05.000000Z' },
        related: { kind: 'ReplicaSet', namespace: ns, name: 'web-5d9c7b' },
      }),
    });
    expect(Number(created.metadata?.resourceVersion)).toBe(before + 1);
    const core = await raw(c, corePath('operator-sync'));
    expect(core).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: { kind: 'Deployment', namespace: ns, name: 'web', apiVersion: 'apps/v1' },
      message: 'synced web',
      reportingComponent: 'example.com/operator',
      reportingInstance: 'operator-0',
      action: 'Reconcile',
      reason: 'Synced',
      eventTime: EVENT_TIME,
      series: { count: 2, lastObservedTime: '2026-01-02T03:09:05.000000Z' },
      related: { kind: 'ReplicaSet', namespace: ns, name: 'web-5d9c7b' },
    });
    expect(core).not.toHaveProperty('note');
    expect(core.metadata.resourceVersion).toBe(created.metadata?.resourceVersion);
    // The managedFields say which version wrote which fields, as upstream's do.
    expect(core.metadata.managedFields[0]).toMatchObject({ apiVersion: 'events.k8s.io/v1' });
    expect(core.metadata.managedFields[0].fieldsV1).toHaveProperty('f:note');

    const coreNames = (await c.core.listNamespacedEvent({ namespace: ns })).items.map(
      (e) => e.metadata?.name,
    );
    const viewList = await events.listNamespacedEvent({ namespace: ns });
    expect(viewList.items.map((e) => e.metadata?.name)).toEqual(coreNames);
    expect(coreNames).toEqual(['legacy', 'operator-sync']);
    const all = await raw(c, '/apis/events.k8s.io/v1/events');
    expect(all.kind).toBe('EventList');
    expect(all.apiVersion).toBe('events.k8s.io/v1');
  });

  it('a patch through either API is one write, seen by both', async () => {
    // core/v1 updates skip the strict rules: the message may change there.
    const before = c.sim.store.currentRv;
    await c.core.patchNamespacedEvent(
      {
        namespace: ns,
        name: 'operator-sync',
        body: { message: 'synced web again', metadata: { labels: { a: '1' } } },
      },
      merge,
    );
    expect(c.sim.store.currentRv).toBe(before + 1);
    const view = await events.readNamespacedEvent({ namespace: ns, name: 'operator-sync' });
    expect(view.note).toBe('synced web again');
    expect(view.metadata?.labels).toEqual({ a: '1' });
    // A merge patch in the view's shape: its names, not core's.
    const patched = await events.patchNamespacedEvent(
      { namespace: ns, name: 'operator-sync', body: { metadata: { labels: { b: '2' } } } },
      merge,
    );
    expect(patched.metadata?.labels).toEqual({ a: '1', b: '2' });
    expect(c.sim.store.currentRv).toBe(before + 2);
    expect((await raw(c, corePath('operator-sync'))).metadata.labels).toEqual({ a: '1', b: '2' });
  });

  it('keeps the fields events.k8s.io/v1 updates may not change immutable, with upstream’s messages', async () => {
    const status = await statusOf(
      events.patchNamespacedEvent(
        { namespace: ns, name: 'operator-sync', body: { note: 'rewritten', action: 'Other' } },
        merge,
      ),
    );
    expect(status.code).toBe(422);
    // Upstream validates the internal core Event: core/v1 field names in the paths.
    expect(status.message).toBe(
      'Event.events.k8s.io "operator-sync" is invalid: [message: Invalid value: "rewritten": field is immutable, action: Invalid value: "Other": field is immutable]',
    );
  });

  it('refuses an events.k8s.io/v1 create missing what the strict rules require', async () => {
    const status = await statusOf(
      events.createNamespacedEvent({
        namespace: ns,
        body: {
          metadata: { name: 'incomplete' },
          eventTime: EVENT_TIME as unknown as k8s.V1MicroTime,
          reportingController: 'example.com/operator',
          regarding: { kind: 'Pod', namespace: ns, name: 'p' },
          type: 'Unknown',
          deprecatedCount: 2,
        } as k8s.EventsV1Event,
      }),
    );
    expect(status.code).toBe(422);
    expect(status.message).toBe(
      'Event.events.k8s.io "incomplete" is invalid: [reportingInstance: Required value, action: Required value, reason: Required value, type: Invalid value: "": has invalid value: Unknown, count: Invalid value: "": needs to be unset]',
    );
    const tooLong = await statusOf(
      events.createNamespacedEvent({
        namespace: ns,
        body: eventsV1('too-long', { action: 'a'.repeat(129), note: 'n'.repeat(1025) }),
      }),
    );
    expect(tooLong.message).toBe(
      'Event.events.k8s.io "too-long" is invalid: [action: Invalid value: "": can have at most 128 characters, message: Invalid value: "": can have at most 1024 characters]',
    );
    const noTime = await statusOf(
      events.createNamespacedEvent({
        namespace: ns,
        body: { ...eventsV1('no-time'), eventTime: undefined } as unknown as k8s.EventsV1Event,
      }),
    );
    expect(noTime.message).toBe('Event.events.k8s.io "no-time" is invalid: eventTime: Required value');
    // The same body through core/v1 only gets the legacy rules.
    const legacy = await fetch(`${c.sim.url}${corePath()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        metadata: { name: 'legacy-ok' },
        involvedObject: { kind: 'Pod', namespace: ns, name: 'p' },
        type: 'Unknown',
        count: 2,
      }),
    });
    expect(legacy.status).toBe(201);
  });

  it('decodes into the view’s own fields: a core/v1 field name is unknown there', async () => {
    const res = await fetch(`${c.sim.url}${viewPath()}?fieldValidation=Strict`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        ...eventsV1('strict'),
        message: 'x',
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(
      'Event in version "v1" cannot be handled as a Event: strict decoding error: unknown field "message"',
    );
  });

  it('selects by upstream’s events.k8s.io field labels, mapped onto the stored Event', async () => {
    const names = async (fieldSelector: string) =>
      (await events.listNamespacedEvent({ namespace: ns, fieldSelector })).items.map((e) => e.metadata?.name);
    expect(await names('regarding.name=web-1')).toEqual(['legacy']);
    expect(await names('regarding.kind=Deployment,reason=Synced')).toEqual(['operator-sync']);
    expect(await names('reportingController=example.com/operator')).toEqual(['operator-sync']);
    // `source` is the legacy source.component, else the reporting controller.
    expect(await names('source=kubelet')).toEqual(['legacy']);
    expect(await names('source=example.com/operator')).toEqual(['operator-sync']);
    const status = await statusOf(
      events.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=p' }),
    );
    expect(status.code).toBe(400);
    expect(status.message).toBe('field label not supported: involvedObject.name');
    // And core/v1's own labels for the same objects.
    const core = await c.core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: 'reportingComponent=example.com/operator',
    });
    expect(core.items.map((e) => e.metadata?.name)).toEqual(['operator-sync']);
  });

  it('server-side apply works on the view’s shape and tracks its fields', async () => {
    const body = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      ...eventsV1('applied'),
      metadata: { name: 'applied', namespace: ns },
    };
    const created = await events.patchNamespacedEvent(
      { namespace: ns, name: 'applied', body, fieldManager: 'operator' },
      ssa,
    );
    const entry = created.metadata?.managedFields?.find((m) => m.manager === 'operator');
    expect(entry).toMatchObject({ operation: 'Apply', apiVersion: 'events.k8s.io/v1' });
    expect(entry?.fieldsV1).toMatchObject({ 'f:note': {}, 'f:regarding': { 'f:name': {} } });
    const rv = c.sim.store.currentRv;
    // The same apply again writes nothing; a changed series is one write, seen through core/v1.
    await events.patchNamespacedEvent(
      { namespace: ns, name: 'applied', body, fieldManager: 'operator' },
      ssa,
    );
    expect(c.sim.store.currentRv).toBe(rv);
    await events.patchNamespacedEvent(
      {
        namespace: ns,
        name: 'applied',
        body: { ...body, series: { count: 5, lastObservedTime: '2026-01-02T03:19:05.000000Z' } },
        fieldManager: 'operator',
      },
      ssa,
    );
    expect(c.sim.store.currentRv).toBe(rv + 1);
    expect((await raw(c, corePath('applied'))).series).toEqual({
      count: 5,
      lastObservedTime: '2026-01-02T03:19:05.000000Z',
    });
  });

  it('an apply through one API conflicts with a manager of the other, compared in its version', async () => {
    // A core/v1 writer owns `message` and the series; an events.k8s.io/v1 applier changing
    // `note` changes its `message`.
    const series = { count: 2, lastObservedTime: '2026-01-02T03:09:05.000000Z' };
    const created = await fetch(`${c.sim.url}${corePath()}?fieldManager=legacy-writer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        metadata: { name: 'owned' },
        involvedObject: { kind: 'Pod', namespace: ns, name: 'p' },
        message: 'old',
        series,
      }),
    });
    expect(created.status).toBe(201);
    const body = (note: string, count: number) => ({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'owned', namespace: ns },
      regarding: { kind: 'Pod', namespace: ns, name: 'p' },
      note,
      series: { ...series, count },
    });
    const apply = (note: string, count: number, force = false) =>
      events.patchNamespacedEvent(
        { namespace: ns, name: 'owned', body: body(note, count), fieldManager: 'operator', force },
        ssa,
      );
    // Upstream's Updater reports a conflict in the other manager's version and field names.
    const status = await statusOf(apply('new', 2));
    expect(status.code).toBe(409);
    expect(status.message).toBe(
      'Apply failed with 1 conflict: conflict with "legacy-writer" using v1: .message',
    );
    expect((await statusOf(apply('old', 3))).message).toBe(
      'Apply failed with 1 conflict: conflict with "legacy-writer" using v1: .series.count',
    );
    const forced = await apply('old', 3, true);
    expect(forced.series?.count).toBe(3);
    const managers = Object.fromEntries(
      (forced.metadata?.managedFields ?? []).map((m) => [m.manager, m.fieldsV1 as Record<string, unknown>]),
    );
    // The core/v1 writer lost the series count to the applier and kept its message.
    expect(managers['legacy-writer']).toMatchObject({
      'f:message': {},
      'f:series': { 'f:lastObservedTime': {} },
    });
    expect(managers['legacy-writer']?.['f:series']).not.toHaveProperty('f:count');
    expect(managers.operator).toMatchObject({ 'f:note': {}, 'f:series': { 'f:count': {} } });
    await c.core.deleteNamespacedEvent({ namespace: ns, name: 'owned' });
  });

  it('watches see the other API’s writes, converted to their own shape', async () => {
    const seen: { api: string; type: string; name?: string; object: Record<string, unknown> }[] = [];
    const start = (api: string, path: string) =>
      new k8s.Watch(c.kc).watch(
        path,
        { resourceVersion: String(c.sim.store.currentRv) },
        (type, object: Record<string, unknown> & { metadata?: { name?: string } }) => {
          seen.push({ api, type, ...(object.metadata?.name ? { name: object.metadata.name } : {}), object });
        },
        () => undefined,
      );
    const watches = await Promise.all([start('view', viewPath()), start('core', corePath())]);
    try {
      await c.core.createNamespacedEvent({
        namespace: ns,
        body: {
          metadata: { name: 'watched' },
          involvedObject: { kind: 'Pod', namespace: ns, name: 'p' },
          message: 'hi',
        },
      });
      await events.deleteNamespacedEvent({ namespace: ns, name: 'watched' });
      await until(() => seen.length >= 4 || undefined, 'ADDED and DELETED on both watches');
      const of = (api: string) => seen.filter((e) => e.api === api);
      expect(of('view').map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED watched', 'DELETED watched']);
      expect(of('core').map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED watched', 'DELETED watched']);
      expect(of('view')[0]!.object).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'hi' });
      expect(of('view')[0]!.object).not.toHaveProperty('message');
      expect(of('core')[0]!.object).toMatchObject({ apiVersion: 'v1', message: 'hi' });
      // One change, one resourceVersion, whichever API shows it.
      expect((of('view')[1]!.object.metadata as { resourceVersion: string }).resourceVersion).toBe(
        (of('core')[1]!.object.metadata as { resourceVersion: string }).resourceVersion,
      );
    } finally {
      for (const w of watches) w.abort();
    }
    expect((await raw(c, corePath('watched'))).code).toBe(404);
  });

  it('kubectl get events.events.k8s.io prints the event columns from the same objects', async () => {
    const got = await cli.kubectl(['get', 'events.events.k8s.io', '-n', ns]);
    expect(got.stderr).toBe('');
    // printers.go eventColumnDefinitions, upper-cased by kubectl (priority-0 columns).
    expect(
      got.stdout
        .split('\n')[0]!
        .trim()
        .split(/\s{2,}/),
    ).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(got.stdout).toMatch(
      /\S+\s+Normal\s+Pulled\s+pod\/web-1\s+Container image "nginx:1.27" already present/,
    );
    expect(got.stdout).toMatch(/Normal\s+Synced\s+deployment\/web\s+synced web again/);
    const note = await cli.kubectl([
      'get',
      'events.v1.events.k8s.io',
      'operator-sync',
      '-n',
      ns,
      '-o',
      'jsonpath={.note} {.reportingController} {.regarding.name}',
    ]);
    expect(note.stdout).toBe('synced web again example.com/operator web');
    const deleted = await cli.kubectl(['delete', 'events.events.k8s.io', 'legacy', '-n', ns]);
    expect(deleted.stdout).toBe('event.events.k8s.io "legacy" deleted\n');
    expect(c.sim.store.get('/events', ns, 'legacy')).toBeUndefined();
  });
});

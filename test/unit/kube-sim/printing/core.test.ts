/** Core, storage and RBAC printers (kubernetes/kubernetes pkg/printers/internalversion/printers.go). */
import { describe, expect, it } from 'vitest';
import {
  configMapPrinter,
  eventPrinter,
  leasePrinter,
  namespacePrinter,
  nodePrinter,
  secretPrinter,
  serviceAccountPrinter,
} from '../../../../infra/kube-sim/printing/core.ts';
import { roleBindingPrinter, rolePrinter } from '../../../../infra/kube-sim/printing/rbac.ts';
import { pvcPrinter, pvPrinter, storageClassPrinter } from '../../../../infra/kube-sim/printing/storage.ts';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const metadata = { name: 'x', creationTimestamp: '2026-01-01T00:00:00Z' };
const wide = (p: { columns: { name: string; priority: number }[] }) =>
  p.columns.map((c) => (c.priority === 1 ? `${c.name}*` : c.name));

describe('core printers', () => {
  it('configmap, secret, serviceaccount, namespace, lease', () => {
    expect(configMapPrinter.cells({ metadata, data: { a: '1' }, binaryData: { b: 'AA==' } }, NOW)).toEqual([
      'x',
      2,
      '60m',
    ]);
    expect(
      secretPrinter.cells(
        { metadata, type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } },
        NOW,
      ),
    ).toEqual(['x', 'kubernetes.io/tls', 2, '60m']);
    expect(serviceAccountPrinter.cells({ metadata }, NOW)).toEqual(['x', 0, '60m']);
    expect(namespacePrinter.cells({ metadata, status: { phase: 'Terminating' } }, NOW)).toEqual([
      'x',
      'Terminating',
      '60m',
    ]);
    expect(leasePrinter.cells({ metadata, spec: { holderIdentity: 'me' } }, NOW)).toEqual(['x', 'me', '60m']);
  });

  it('node: status from Ready, SchedulingDisabled, roles, wide addresses and versions', () => {
    expect(wide(nodePrinter)).toEqual([
      'Name',
      'Status',
      'Roles',
      'Age',
      'Version',
      'Internal-IP*',
      'External-IP*',
      'OS-Image*',
      'Kernel-Version*',
      'Container-Runtime*',
    ]);
    const node = {
      metadata: {
        ...metadata,
        labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'master' },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [{ type: 'InternalIP', address: '172.18.0.2' }],
        nodeInfo: {
          kubeletVersion: 'v1.33.0',
          osImage: 'Debian',
          kernelVersion: '6.1',
          containerRuntimeVersion: 'containerd://2.0',
        },
      },
    };
    expect(nodePrinter.cells(node, NOW)).toEqual([
      'x',
      'Ready,SchedulingDisabled',
      'control-plane,master',
      '60m',
      'v1.33.0',
      '172.18.0.2',
      '<none>',
      'Debian',
      '6.1',
      'containerd://2.0',
    ]);
    expect(nodePrinter.cells({ metadata, status: {} }, NOW).slice(1, 3)).toEqual(['Unknown', '<none>']);
    expect(
      nodePrinter.cells({ metadata, status: { conditions: [{ type: 'Ready', status: 'False' }] } }, NOW)[1],
    ).toBe('NotReady');
  });

  it('event: LAST SEEN with repeats, OBJECT as kind/name, wide source, first seen, count and name', () => {
    expect(wide(eventPrinter)).toEqual([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject*',
      'Source*',
      'Message',
      'First Seen*',
      'Count*',
      'Name*',
    ]);
    const ev = {
      metadata: { ...metadata, name: 'web.1' },
      involvedObject: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{web}' },
      reason: 'Pulled',
      type: 'Normal',
      message: 'pulled\n',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2026-01-01T00:50:00Z',
      lastTimestamp: '2026-01-01T00:58:00Z',
      count: 3,
    };
    // printEvent's LAST SEEN is the bare age: `(x3 over 10m)` is kubectl events' form, not the table's.
    expect(eventPrinter.cells(ev, NOW)).toEqual([
      '2m',
      'Normal',
      'Pulled',
      'pod/web',
      'spec.containers{web}',
      'kubelet, node-1',
      'pulled',
      '10m',
      3,
      'web.1',
    ]);
    expect(eventPrinter.cells({ ...ev, count: 1 }, NOW)[0]).toBe('2m');
    // No lastTimestamp: LAST SEEN is FIRST SEEN; no timestamps at all: <unknown>.
    expect(eventPrinter.cells({ ...ev, lastTimestamp: undefined }, NOW)[0]).toBe('10m');
    const bare = { metadata: ev.metadata, involvedObject: { kind: 'Node' }, reason: 'x' };
    expect(eventPrinter.cells(bare, NOW)).toEqual([
      '<unknown>',
      '',
      'x',
      'node',
      '',
      '',
      '',
      '<unknown>',
      1,
      'web.1',
    ]);
  });

  it('events.k8s.io/v1 events print through the same columns', () => {
    const ev = {
      apiVersion: 'events.k8s.io/v1',
      metadata: { ...metadata, name: 'e' },
      eventTime: '2026-01-01T00:40:00.000000Z',
      series: { count: 4, lastObservedTime: '2026-01-01T00:59:00.000000Z' },
      regarding: { kind: 'Deployment', name: 'web' },
      note: 'scaled',
      reason: 'ScalingReplicaSet',
      type: 'Normal',
      reportingController: 'deployment-controller',
    };
    expect(eventPrinter.cells(ev, NOW)).toEqual([
      '60s',
      'Normal',
      'ScalingReplicaSet',
      'deployment/web',
      '',
      'deployment-controller',
      'scaled',
      '20m',
      4,
      'e',
    ]);
    // A singleton of the new API: no series, no count, counted once; reporting instance shown.
    const single = { ...ev, series: undefined, reportingInstance: 'deployment-controller-cp' };
    expect(eventPrinter.cells(single, NOW)).toEqual([
      '20m',
      'Normal',
      'ScalingReplicaSet',
      'deployment/web',
      '',
      'deployment-controller, deployment-controller-cp',
      'scaled',
      '20m',
      1,
      'e',
    ]);
    // The same Event read through core/v1 names its controller reportingComponent.
    const core = {
      metadata: ev.metadata,
      involvedObject: ev.regarding,
      reportingComponent: 'c',
      reportingInstance: 'i',
    };
    expect(eventPrinter.cells(core, NOW)[5]).toBe('c, i');
  });
});

describe('storage printers', () => {
  it('pvc: bound volume, capacity, access modes, class, <unset> attributes class and mode', () => {
    expect(wide(pvcPrinter)).toEqual([
      'Name',
      'Status',
      'Volume',
      'Capacity',
      'Access Modes',
      'StorageClass',
      'VolumeAttributesClass',
      'Age',
      'VolumeMode*',
    ]);
    const pvc = {
      metadata,
      spec: { volumeName: 'pv-1', storageClassName: 'standard', volumeMode: 'Filesystem' },
      status: {
        phase: 'Bound',
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteMany', 'ReadWriteOnce'],
      },
    };
    expect(pvcPrinter.cells(pvc, NOW)).toEqual([
      'x',
      'Bound',
      'pv-1',
      '1Gi',
      'RWO,RWX',
      'standard',
      '<unset>',
      '60m',
      'Filesystem',
    ]);
    expect(pvcPrinter.cells({ metadata, spec: {}, status: { phase: 'Pending' } }, NOW).slice(1, 6)).toEqual([
      'Pending',
      '',
      '',
      '',
      '',
    ]);
  });

  it('pv: claim as namespace/name; Terminating while deleted', () => {
    const pv = {
      metadata: { ...metadata, deletionTimestamp: '2026-01-01T00:59:00Z' },
      spec: {
        capacity: { storage: '5Gi' },
        accessModes: ['ReadWriteOncePod'],
        persistentVolumeReclaimPolicy: 'Retain',
        claimRef: { namespace: 'a', name: 'data' },
        storageClassName: 'fast',
      },
      status: { phase: 'Bound' },
    };
    expect(pvPrinter.cells(pv, NOW)).toEqual([
      'x',
      '5Gi',
      'RWOP',
      'Retain',
      'Terminating',
      'a/data',
      'fast',
      '<unset>',
      '',
      '60m',
      '<unset>',
    ]);
  });

  it('storageclass: (default), defaults for policy and binding mode', () => {
    const sc = {
      metadata: { ...metadata, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'rancher.io/local-path',
    };
    expect(storageClassPrinter.cells(sc, NOW)).toEqual([
      'x (default)',
      'rancher.io/local-path',
      'Delete',
      'Immediate',
      false,
      '60m',
    ]);
  });
});

describe('rbac printers', () => {
  it('roles: name and creation date; bindings: role ref, wide subjects', () => {
    expect(rolePrinter.columns.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect(rolePrinter.cells({ metadata }, NOW)).toEqual(['x', '2026-01-01T00:00:00Z']);
    expect(wide(roleBindingPrinter)).toEqual([
      'Name',
      'Role',
      'Age',
      'Users*',
      'Groups*',
      'ServiceAccounts*',
    ]);
    const binding = {
      metadata,
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'User', name: 'bob' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', namespace: 'ci', name: 'deployer' },
      ],
    };
    expect(roleBindingPrinter.cells(binding, NOW)).toEqual([
      'x',
      'ClusterRole/view',
      '60m',
      'alice, bob',
      'devs',
      'ci/deployer',
    ]);
  });
});

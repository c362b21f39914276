/**
 * The real kubectl 1.33 against kube-sim: get, get -o yaml, apply --server-side, client-side
 * apply, patch, label, delete and wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Sim } from '../../../infra/kube-sim/sim.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: tools
  labels:
    app: web
spec:
  replicas: 2
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
          ports:
            - containerPort: 80
`;

describe('real kubectl against kube-sim', () => {
  let sim: Sim;
  let cli: KubeCli;

  beforeAll(async () => {
    ({ sim } = await startSimWithClients({ controllers: false }));
    cli = await kubeCli(sim);
    // `kubectl create <kind>` sends protobuf (typed clients); apply sends JSON, as below.
    const ns = await cli.kubectl(
      ['apply', '-f', '-'],
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tools\n',
    );
    expect(ns.stderr).toBe('');
    expect(ns.stdout.trim()).toBe('namespace/tools created');
  });
  afterAll(() => sim.stop());

  it('applies server-side, and again with no change', async () => {
    const file = cli.file('deploy.yaml', DEPLOYMENT);
    const first = await cli.kubectl(['apply', '--server-side', '--field-manager', 'longshore', '-f', file]);
    expect(first.stderr).toBe('');
    expect(first.stdout.trim()).toBe('deployment.apps/web serverside-applied');
    const before = sim.store.currentRv;
    const second = await cli.kubectl(['apply', '--server-side', '--field-manager', 'longshore', '-f', file]);
    expect(second.stdout.trim()).toBe('deployment.apps/web serverside-applied');
    expect(sim.store.currentRv).toBe(before);
  });

  it('gets, as a table and as YAML', async () => {
    const table = await cli.kubectl(['get', 'deployments', '-n', 'tools']);
    expect(table.stderr).toBe('');
    expect(table.stdout).toMatch(/^NAME\s+/);
    expect(table.stdout).toMatch(/\nweb\s+/);
    const yaml = await cli.kubectl(['get', 'deploy', 'web', '-n', 'tools', '-o', 'yaml']);
    const object = parse(yaml.stdout) as {
      kind: string;
      spec: { replicas: number };
      metadata: { managedFields?: unknown[] };
    };
    expect(object.kind).toBe('Deployment');
    expect(object.spec.replicas).toBe(2);
    const all = await cli.kubectl(['get', 'ns,cm,svc', '-A']);
    expect(all.stdout).toContain('namespace/tools');
    expect(all.stdout).toContain('service/kubernetes');
  });

  it('applies client-side, creating then patching with the last-applied annotation', async () => {
    const cm = (value: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: tools\ndata:\n  mode: ${value}\n`;
    const created = await cli.kubectl(['apply', '-f', cli.file('cm1.yaml', cm('a'))]);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('configmap/settings created');
    const configured = await cli.kubectl(['apply', '-f', cli.file('cm2.yaml', cm('b'))]);
    expect(configured.stderr).toBe('');
    expect(configured.stdout.trim()).toBe('configmap/settings configured');
    const unchanged = await cli.kubectl(['apply', '-f', cli.file('cm3.yaml', cm('b'))]);
    expect(unchanged.stdout.trim()).toBe('configmap/settings unchanged');
    const got = await cli.kubectl(['get', 'cm', 'settings', '-n', 'tools', '-o', 'jsonpath={.data.mode}']);
    expect(got.stdout).toBe('b');
  });

  it('patches (strategic, merge and JSON) and labels', async () => {
    const strategic = await cli.kubectl([
      'patch',
      'deployment',
      'web',
      '-n',
      'tools',
      '-p',
      '{"spec":{"replicas":3}}',
    ]);
    expect(strategic.stdout.trim()).toBe('deployment.apps/web patched');
    const merge = await cli.kubectl([
      'patch',
      'cm',
      'settings',
      '-n',
      'tools',
      '--type',
      'merge',
      '-p',
      '{"data":{"extra":"1"}}',
    ]);
    expect(merge.stdout.trim()).toBe('configmap/settings patched');
    const json = await cli.kubectl([
      'patch',
      'cm',
      'settings',
      '-n',
      'tools',
      '--type',
      'json',
      '-p',
      '[{"op":"remove","path":"/data/extra"}]',
    ]);
    expect(json.stdout.trim()).toBe('configmap/settings patched');
    const label = await cli.kubectl(['label', 'cm', 'settings', '-n', 'tools', 'team=platform']);
    expect(label.stdout.trim()).toBe('configmap/settings labeled');
    const selected = await cli.kubectl(['get', 'cm', '-n', 'tools', '-l', 'team=platform', '-o', 'name']);
    expect(selected.stdout.trim()).toBe('configmap/settings');
    const replicas = await cli.kubectl([
      'get',
      'deploy',
      'web',
      '-n',
      'tools',
      '-o',
      'jsonpath={.spec.replicas}',
    ]);
    expect(replicas.stdout).toBe('3');
  });

  it('reports server errors the way a cluster does', async () => {
    const missing = await cli.kubectl(['get', 'cm', 'nope', '-n', 'tools']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr.trim()).toBe('Error from server (NotFound): configmaps "nope" not found');
    const invalid = await cli.kubectl(
      ['apply', '-f', '-'],
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n  namespace: tools\n',
    );
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toContain(
      'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"',
    );
  });

  it('waits for a condition and deletes', async () => {
    await cli.kubectl(
      ['apply', '-f', '-'],
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: short-lived\n  namespace: tools\n',
    );
    const lists = () =>
      sim.requests.entries({ verb: 'list', resource: '/configmaps', namespace: 'tools' }).length;
    const listsBefore = lists();
    const waiting = cli.kubectl([
      'wait',
      '--for=delete',
      'configmap/short-lived',
      '-n',
      'tools',
      '--timeout=20s',
    ]);
    // kubectl wait lists the object, then watches from that list: once the list is answered, a
    // deletion reaches it through the watch (deleting before would test the not-found path instead).
    await until(() => lists() > listsBefore, 'kubectl wait to list the ConfigMap', { intervalMs: 10 });
    const deleted = await cli.kubectl(['delete', 'configmap', 'short-lived', '-n', 'tools']);
    expect(deleted.stdout.trim()).toBe('configmap "short-lived" deleted');
    const waited = await waiting;
    expect(waited.stderr).toBe('');
    expect(waited.code).toBe(0);
    const labelled = await cli.kubectl([
      'wait',
      '--for=jsonpath={.metadata.labels.team}=platform',
      'configmap/settings',
      '-n',
      'tools',
      '--timeout=10s',
    ]);
    expect(labelled.code).toBe(0);
    expect(labelled.stdout.trim()).toBe('configmap/settings condition met');
  });
});

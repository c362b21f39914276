/**
 * The pure parts of kube-sim's container runtime model: the tty line discipline, the kubelet's
 * crash-loop back-off, how a container's output becomes log lines, and the kubelet's `$(VAR)`
 * expansion and environment of a container.
 */
import { describe, expect, it } from 'vitest';
import {
  containerArgv,
  expandReferences,
  processEnv,
  resolveContainerEnv,
} from '../../../infra/kube-sim/controllers/container-env.ts';
import type { Container, Pod } from '../../../infra/kube-sim/controllers/workload-types.ts';
import { goDuration, RestartBackOff } from '../../../infra/kube-sim/runtime/back-off.ts';
import { ContainerLog } from '../../../infra/kube-sim/runtime/container-log.ts';
import { LineDiscipline } from '../../../infra/kube-sim/runtime/line-discipline.ts';
import type { KubeObject } from '../../../infra/kube-sim/types.ts';

describe('the tty line discipline', () => {
  it('echoes typed text, turns CR into NL and delivers whole lines', () => {
    const tty = new LineDiscipline();
    expect(tty.input('echo hi')).toEqual([{ kind: 'echo', text: 'echo hi' }]);
    expect(tty.input('\r')).toEqual([
      { kind: 'echo', text: '\r\n' },
      { kind: 'data', text: 'echo hi\n' },
    ]);
    expect(tty.input(Buffer.from('a\nb\r'))).toEqual([
      { kind: 'echo', text: 'a\r\n' },
      { kind: 'data', text: 'a\n' },
      { kind: 'echo', text: 'b\r\n' },
      { kind: 'data', text: 'b\n' },
    ]);
  });

  it('erases with DEL and BS, kills the line with Ctrl-U, echoes control characters as ^X', () => {
    const tty = new LineDiscipline();
    expect(tty.input('ab\x7f\x08c\r')).toEqual([
      { kind: 'echo', text: 'ab\b \b\b \bc\r\n' },
      { kind: 'data', text: 'c\n' },
    ]);
    expect(tty.input('\x7f')).toEqual([]);
    expect(tty.input('xyz\x15ok\x1b\r')).toEqual([
      { kind: 'echo', text: 'xyz\b \b\b \b\b \bok^[\r\n' },
      { kind: 'data', text: 'ok\x1b\n' },
    ]);
  });

  it('Ctrl-C echoes ^C, drops the line and interrupts; Ctrl-D ends input at a line start, sends the line mid-line', () => {
    const tty = new LineDiscipline();
    expect(tty.input('half\x03')).toEqual([{ kind: 'echo', text: 'half^C' }, { kind: 'interrupt' }]);
    expect(tty.input('\x04')).toEqual([{ kind: 'eof' }]);
    expect(tty.input('part\x04')).toEqual([
      { kind: 'echo', text: 'part' },
      { kind: 'data', text: 'part' },
    ]);
  });

  it('keeps a UTF-8 character split across writes whole; erases it as one', () => {
    const tty = new LineDiscipline();
    const bytes = Buffer.from('é');
    expect(tty.input(bytes.subarray(0, 1))).toEqual([]);
    expect(tty.input(bytes.subarray(1))).toEqual([{ kind: 'echo', text: 'é' }]);
    expect(tty.input('\x7f\r')).toEqual([
      { kind: 'echo', text: '\b \b\r\n' },
      { kind: 'data', text: '\n' },
    ]);
  });

  it('turns every NL of the output into CR NL', () => {
    expect(new LineDiscipline().output('a\nb\r\n')).toBe('a\r\nb\r\r\n');
  });
});

describe('the crash-loop back-off', () => {
  const backOff = () =>
    new RestartBackOff(
      () => 10_000,
      () => 300_000,
    );

  it('restarts at once the first time, then waits 10 s, doubling to 5 min', () => {
    const b = backOff();
    let now = 0;
    expect(b.isInBackOffSince('c', now, now)).toBe(false);
    b.next('c', now, now);
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      now += 1_000; // the container ran a second, then exited
      const finished = now;
      expect(b.isInBackOffSince('c', finished, now)).toBe(true);
      waits.push(b.get('c'));
      expect(b.remainingMs('c', finished, now)).toBe(b.get('c'));
      now += b.get('c');
      expect(b.isInBackOffSince('c', finished, now)).toBe(false);
      b.next('c', finished, now);
    }
    expect(waits.map(goDuration)).toEqual(['10s', '20s', '40s', '1m20s', '2m40s', '5m0s', '5m0s']);
  });

  it('starts over after a container ran longer than twice the maximum', () => {
    const b = backOff();
    b.next('c', 0, 0);
    b.next('c', 20_000, 20_000);
    expect(b.get('c')).toBe(20_000);
    const late = 20_000 + 600_001;
    expect(b.isInBackOffSince('c', late, late)).toBe(false);
    b.next('c', late, late);
    expect(b.get('c')).toBe(10_000);
    b.forget('c');
    expect(b.get('c')).toBe(0);
  });

  it('prints durations as Go does', () => {
    expect([0, 100, 1_600, 10_000, 61_500, 3_600_000].map(goDuration)).toEqual([
      '0s',
      '100ms',
      '1.6s',
      '10s',
      '1m1.5s',
      '1h0m0s',
    ]);
  });
});

describe('a container’s log', () => {
  it('cuts output into lines at NL, drops a trailing CR, keeps streams apart and ends a last partial line at exit', () => {
    let t = 0;
    const log = new ContainerLog(() => new Date(1_700_000_000_000 + t++));
    const seen: string[] = [];
    log.follow({ line: (l) => seen.push(`${l.stream}:${l.text}`), closed: () => seen.push('closed') });
    log.write('stdout', Buffer.from('one\ntw'));
    log.write('stderr', Buffer.from('err\r\n'));
    log.write('stdout', Buffer.from('o\r\nthr'));
    expect(log.lines().map((l) => l.text)).toEqual(['one', 'err', 'two']);
    log.close();
    expect(log.lines().map((l) => l.text)).toEqual(['one', 'err', 'two', 'thr']);
    expect(seen).toEqual(['stdout:one', 'stderr:err', 'stdout:two', 'stdout:thr', 'closed']);
    expect(log.lines().map((l) => l.at.getTime() - 1_700_000_000_000)).toEqual([0, 1, 2, 3]);
    log.write('stdout', Buffer.from('after exit\n'));
    expect(log.lines()).toHaveLength(4);
    let closed = false;
    log.follow({ line: () => undefined, closed: () => (closed = true) });
    expect(closed).toBe(true);
  });
});

describe('a container’s environment and command line (kubelet)', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const objects: Record<string, KubeObject> = {
    'secret/app/config-web': {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'config-web' },
      data: { GREETING: b64('hi there'), B: b64('2') },
    },
    'configmap/app/settings': {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings' },
      data: { MODE: 'fast', A: '1' },
    },
  };
  const lookup = {
    secret: (ns: string, name: string) => objects[`secret/${ns}/${name}`],
    configMap: (ns: string, name: string) => objects[`configmap/${ns}/${name}`],
    services: (ns: string): KubeObject[] =>
      ns === 'default'
        ? [
            {
              apiVersion: 'v1',
              kind: 'Service',
              metadata: { name: 'kubernetes' },
              spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443 }] },
            },
          ]
        : [
            {
              apiVersion: 'v1',
              kind: 'Service',
              metadata: { name: 'web-db' },
              spec: { clusterIP: '10.96.0.9', ports: [{ port: 5432, protocol: 'TCP' }] },
            },
          ],
  };
  const pod = (extra: Record<string, unknown> = {}): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'app', uid: 'u-1', labels: { tier: 'front' } },
    spec: { containers: [], nodeName: 'kube-sim-node', ...extra },
  });

  it('expands $(VAR) as the kubelet: known names, $$ → $, unknown and unclosed stay', () => {
    const vars = new Map([['A', 'x']]);
    expect(expandReferences('$(A)-$(B)-$$(A)-$$-$-$(A', (n) => vars.get(n))).toBe('x-$(B)-$(A)-$-$-$(A');
  });

  it('puts service variables, envFrom (with prefix), then env in order; env values see what came before', () => {
    const container: Container = {
      name: 'web',
      envFrom: [{ secretRef: { name: 'config-web' } }, { configMapRef: { name: 'settings' }, prefix: 'CM_' }],
      env: [
        { name: 'PORT', value: '5000' },
        { name: 'URL', value: 'http://$(WEB_DB_SERVICE_HOST):$(PORT)/$(NOPE)' },
        { name: 'GREETING', value: 'overridden' },
        { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'TIER', valueFrom: { fieldRef: { fieldPath: "metadata.labels['tier']" } } },
        { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        { name: 'MODE2', valueFrom: { configMapKeyRef: { name: 'settings', key: 'MODE' } } },
      ],
    };
    const resolved = resolveContainerEnv(pod(), container, lookup, '10.244.0.7');
    expect(resolved.error).toBeUndefined();
    const env = Object.fromEntries(resolved.env!);
    expect(env).toMatchObject({
      B: '2',
      GREETING: 'overridden',
      CM_A: '1',
      CM_MODE: 'fast',
      PORT: '5000',
      URL: 'http://10.96.0.9:5000/$(NOPE)',
      POD: 'web-1',
      TIER: 'front',
      IP: '10.244.0.7',
      MODE2: 'fast',
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
      KUBERNETES_SERVICE_PORT: '443',
      KUBERNETES_SERVICE_PORT_HTTPS: '443',
      KUBERNETES_PORT: 'tcp://10.96.0.1:443',
      KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
      WEB_DB_PORT_5432_TCP: 'tcp://10.96.0.9:5432',
    });
    expect([...resolved.env!.keys()].slice(0, 5)).toEqual(['B', 'GREETING', 'CM_A', 'CM_MODE', 'PORT']);
    const noLinks = resolveContainerEnv(pod({ enableServiceLinks: false }), { name: 'c' }, lookup);
    expect([...noLinks.env!.keys()].some((k) => k.startsWith('WEB_DB'))).toBe(false);
    expect(noLinks.env!.get('KUBERNETES_SERVICE_HOST')).toBe('10.96.0.1');
  });

  it('gives CreateContainerConfigError’s message for the first missing reference; optional ones are skipped', () => {
    const resolve = (container: Partial<Container>) =>
      resolveContainerEnv(pod(), { name: 'c', ...container }, lookup).error;
    expect(resolve({ envFrom: [{ secretRef: { name: 'gone' } }] })).toBe('secret "gone" not found');
    expect(resolve({ envFrom: [{ configMapRef: { name: 'gone', optional: true } }] })).toBeUndefined();
    expect(
      resolve({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'config-web', key: 'NOPE' } } }] }),
    ).toBe("couldn't find key NOPE in Secret app/config-web");
    expect(resolve({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'gone' } } }] })).toBe(
      'configmap "gone" not found',
    );
  });

  it('adds what the runtime adds, and builds argv from command and args with $(VAR) expanded', () => {
    const container: Container = {
      name: 'c',
      tty: true,
      command: ['sh', '-c'],
      args: ['echo $(GREETING) $$(X)'],
    };
    const kubelet = new Map([['GREETING', 'hi']]);
    expect([...processEnv(pod(), container, kubelet)]).toEqual([
      ['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
      ['HOSTNAME', 'web-1'],
      ['GREETING', 'hi'],
      ['TERM', 'xterm'],
      ['HOME', '/root'],
    ]);
    expect(containerArgv(container, kubelet)).toEqual(['sh', '-c', 'echo hi $(X)']);
    expect(containerArgv({ name: 'c', args: ['rake', 'db:migrate'] }, kubelet)).toEqual([
      'rake',
      'db:migrate',
    ]);
    expect(containerArgv({ name: 'c' }, kubelet)).toEqual([]);
  });
});

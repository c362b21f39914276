import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/core/errors.ts';
import { JOB_TYPES } from '../../src/jobs/contract.ts';
import { contractFor } from '../../src/jobs/contracts.ts';
import { laneId } from '../../src/jobs/lane.ts';
import { ReaderKey } from '../../src/jobs/reader-sealing.ts';
import {
  APP_NAME_MAX,
  appName,
  cronSchedule,
  domainName,
  imageRef,
  portMap,
  quantity,
} from '../../src/jobs/schemas/common.ts';
import { runJobNameFor } from '../../src/jobs/schemas/run.ts';
import { Sealer, sealContext } from '../../src/jobs/sealing.ts';
import { MAX_PAYLOAD_BYTES, validateJob } from '../../src/jobs/validate.ts';

const ok = (schema: { safeParse(v: unknown): { success: boolean } }, value: unknown) =>
  schema.safeParse(value).success;

describe('app names', () => {
  it('accepts DNS-1035 labels up to the documented maximum', () => {
    expect(ok(appName, 'web')).toBe(true);
    expect(ok(appName, 'a1-b2')).toBe(true);
    expect(ok(appName, 'a'.repeat(APP_NAME_MAX))).toBe(true);
  });

  it.each([
    '',
    'Web',
    '1web',
    'web-',
    'we_b',
    'a'.repeat(APP_NAME_MAX + 1),
    'config-web',
    'pull-secret-x',
    'tls-x',
    'storage-x',
  ])('refuses %j', (name) => expect(ok(appName, name)).toBe(false));

  it('keeps every derived name within its Kubernetes limit', () => {
    const longest = 'a'.repeat(APP_NAME_MAX);
    expect(`pull-secret-${longest}`.length).toBeLessThanOrEqual(63); // release label value
    expect(`${longest}-${'p'.repeat(20)}`.length).toBeLessThanOrEqual(63); // Deployment, label value
    expect(`${longest}-cron-${'x'.repeat(8)}`.length).toBeLessThanOrEqual(52); // CronJob
  });
});

describe('field schemas', () => {
  it.each([
    'nginx',
    'nginx:1.27',
    'ghcr.io/team/web:1.4',
    'localhost:5000/a/b',
    `web@sha256:${'a'.repeat(64)}`,
    'registry.example.com:443/x/y:tag',
  ])('accepts image %s', (image) => expect(ok(imageRef, image)).toBe(true));
  it.each(['', 'UPPER/case', 'web:', 'web@sha256:short', 'a b'])('refuses image %j', (image) =>
    expect(ok(imageRef, image)).toBe(false),
  );

  it.each(['*/5 * * * *', '0 3 * * MON-FRI', '@daily', '15 2 1 JAN *', '0 0 ? * *'])(
    'accepts schedule %s',
    (s) => expect(ok(cronSchedule, s)).toBe(true),
  );
  it.each(['* * * *', '0 0 0 * * *', '61 * * * *', 'TZ=UTC 0 * * * *', '0 0 L * *', '@every 5m'])(
    'refuses schedule %s',
    (s) => expect(ok(cronSchedule, s)).toBe(false),
  );

  it.each(['app.example.com', '*.example.com', 'localhost', 'EXAMPLE.com'])('accepts domain %s', (d) =>
    expect(ok(domainName, d)).toBe(true),
  );
  it.each(['10.0.0.1', 'a..b', '-a.com', `${'a'.repeat(64)}.com`, 'a.*.com'])('refuses domain %s', (d) =>
    expect(ok(domainName, d)).toBe(false),
  );

  it.each(['http:80:5000', 'https:443:5000', 'tcp:5432:5432'])('accepts port map %s', (p) =>
    expect(ok(portMap, p)).toBe(true),
  );
  it.each(['http:80', 'ftp:21:21', 'http:0:5000', 'http:80:70000'])('refuses port map %s', (p) =>
    expect(ok(portMap, p)).toBe(false),
  );

  it.each(['1Gi', '512Mi', '1.5G', '10'])('accepts quantity %s', (q) => expect(ok(quantity, q)).toBe(true));
  it.each(['0', '1 Gi', 'lots', '-1Gi'])('refuses quantity %s', (q) => expect(ok(quantity, q)).toBe(false));
});

describe('job contracts', () => {
  const sealer = new Sealer('unit-test-passphrase-long-enough-0123456789');
  const samples: Record<string, unknown> = {
    deploy: {
      app: 'web',
      image: 'nginx:1.27',
      source: { sha: 'a'.repeat(40), ref: 'refs/heads/main', pusher: 'ann' },
    },
    config: { app: 'web', set: { A: sealer.seal('1', sealContext.config('web', 'A')) } },
    'config-read': { app: 'web', readerKey: new ReaderKey().publicKey },
    scale: { app: 'web', processes: { web: 2 } },
    domains: { app: 'web', action: 'add', domains: ['web.example.com'] },
    ports: { app: 'web', action: 'set', ports: ['http:80:5000'] },
    properties: { app: 'web', set: { deployTimeoutSeconds: 600, ingressClass: null } },
    rename: { app: 'web', newName: 'site' },
    destroy: { app: 'web' },
    prune: {},
    sync: {},
    reconcile: { app: 'web' },
    'storage-create': { entry: { name: 'data', size: '1Gi' } },
    'storage-destroy': { name: 'data' },
    'storage-status': { name: 'data' },
    run: { app: 'web', command: ['rake', 'db:migrate'] },
    mounts: { app: 'web', action: 'mount', mount: { entry: 'data', mountPath: '/data' } },
    'storage-list': {},
    releases: { app: 'web' },
    rollback: { app: 'web', revision: 2 },
    ps: { app: 'web', action: 'restart', process: 'web', at: '2026-01-02T03:04:05.000Z' },
    resources: { app: 'web', kind: 'limit', process: 'web', memory: '512Mi', clear: false },
    report: { app: 'web' },
    logs: { app: 'web' },
    'registry-login': {
      server: 'ghcr.io',
      username: 'ci',
      password: sealer.seal('pw', sealContext.registryGlobalPassword('ghcr.io')),
      global: true,
    },
    'registry-logout': { server: 'ghcr.io', app: 'web' },
    metadata: {
      app: 'web',
      kind: 'label',
      action: 'set',
      key: 'example.com/team',
      value: 'payments',
      processType: 'web',
      resourceType: 'pod',
    },
    profiles: {
      action: 'set',
      name: 'gpu',
      nodeSelector: { 'example.com/gpu': 'true' },
      tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
    },
    'autoscaling-auth': {
      app: 'web',
      trigger: 'redis',
      action: 'set',
      metadata: { password: sealer.seal('pw', sealContext.autoscalingAuth('web', 'redis', 'password')) },
    },
    'dry-run': {
      type: 'config',
      payload: { app: 'web', set: { A: sealer.seal('1', sealContext.config('web', 'A')) } },
    },
  };

  it('dry-run: the inner payload validated by its own contract, in its lane, for the plannable types only', () => {
    const valid = validateJob('dry-run', {
      type: 'domains',
      payload: { app: 'web', action: 'remove', domains: ['a.example.com'] },
    });
    expect(valid.payload).toEqual({
      type: 'domains',
      payload: { app: 'web', action: 'remove', domains: ['a.example.com'] },
    });
    const contract = contractFor('dry-run');
    expect(contract.lane(valid.payload)).toEqual({ kind: 'app', name: 'web' });
    expect(contract.app(valid.payload)).toBe('web');
    expect(contract.describe(valid.payload)).toBe('dry run: domains remove web a.example.com');
    expect(contract.operatorChange).toBe(false);
    expect(contract.supersedeKey).toBeUndefined();
    // Defaults of the inner schema apply (config's restart).
    expect(validateJob('dry-run', samples['dry-run']).payload).toMatchObject({
      payload: { restart: true, unset: [] },
    });
    // A mount holds its entry's lane, dry or not.
    const mount = validateJob('dry-run', {
      type: 'mounts',
      payload: { app: 'web', action: 'mount', mount: { entry: 'data', mountPath: '/data' } },
    });
    expect(contract.barrierLane?.(mount.payload)).toEqual({ kind: 'storage', name: 'data' });
    expect(() => validateJob('dry-run', { type: 'deploy', payload: { app: 'web' } })).toThrow(
      /payload\.image: is required/,
    );
    expect(() =>
      validateJob('dry-run', { type: 'rename', payload: { app: 'web', newName: 'shop' } }),
    ).toThrow(/type: has no dry run \(dry runs exist for: deploy, config/);
    expect(() => validateJob('dry-run', { type: 'deploy', payload: {}, extra: 1 })).toThrow(/extra/i);
  });

  it.each(JOB_TYPES)('%s has a valid sample, a lane rule and a secret-free description', (type) => {
    const valid = validateJob(type, samples[type]);
    const contract = contractFor(type);
    expect(contract.describe(valid.payload)).not.toMatch(/lss1\./);
    const lane = contract.lane(valid.payload);
    if (lane) expect(laneId(lane)).not.toContain(':');
  });

  it('orders app mutations by app, storage by entry, and leaves one-off runs unordered', () => {
    expect(contractFor('deploy').lane({ app: 'web' } as never)).toEqual({ kind: 'app', name: 'web' });
    expect(contractFor('storage-create').lane({ entry: { name: 'data' } } as never)).toEqual({
      kind: 'storage',
      name: 'data',
    });
    expect(contractFor('prune').lane({} as never)).toEqual({ kind: 'fleet' });
    expect(contractFor('run').lane({ app: 'web' } as never)).toBeUndefined();
  });

  it('deploy: env changes (sealed, null unsets) and domain changes (add/remove), named in the summary without values', () => {
    const sealed = sealer.seal('hello', sealContext.config('web', 'GREETING'));
    const payload = validateJob('deploy', {
      app: 'web',
      image: 'nginx:1.27',
      env: { GREETING: sealed, OLD: null },
      domains: { 'b.example.com': 'remove', 'c.example.com': 'add' },
    }).payload;
    expect(payload).toMatchObject({ env: { GREETING: sealed, OLD: null } });
    expect(contractFor('deploy').describe(payload)).toBe(
      'deploy web nginx:1.27 with env GREETING, -OLD; domains -b.example.com, +c.example.com',
    );
    expect(() => validateJob('deploy', { app: 'web', image: 'nginx', env: { GREETING: 'plain' } })).toThrow(
      /env\.GREETING: must be a value sealed/,
    );
    expect(() => validateJob('deploy', { app: 'web', image: 'nginx', env: { '1BAD': sealed } })).toThrow(
      /env/,
    );
    expect(() =>
      validateJob('deploy', { app: 'web', image: 'nginx', domains: { 'b.example.com': 'rename' } }),
    ).toThrow(/domains/);
    expect(() =>
      validateJob('deploy', { app: 'web', image: 'nginx', domains: { 'not a host': 'add' } }),
    ).toThrow(/domains/);
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`d${i}.example.com`, 'add']));
    expect(() => validateJob('deploy', { app: 'web', image: 'nginx', domains: many })).toThrow(
      /domains: must name at most 100 domains/,
    );
  });

  it('run: unordered, a command required, defaults (web, a day, an hour, followed), bounded seconds, sealed env', () => {
    expect(validateJob('run', { app: 'web', command: ['rake', 'db:migrate'] }).payload).toEqual({
      app: 'web',
      command: ['rake', 'db:migrate'],
      env: {},
      process: 'web',
      ttlSeconds: 3600,
      timeoutSeconds: 86_400,
      detach: false,
      tty: false,
    });
    const env = { EXTRA: sealer.seal('x', sealContext.runEnv('web', 'EXTRA')) };
    expect(
      validateJob('run', {
        app: 'web',
        command: ['true'],
        env,
        process: 'worker',
        ttlSeconds: 5,
        timeoutSeconds: 60,
        detach: true,
      }).payload,
    ).toMatchObject({ env, process: 'worker', ttlSeconds: 5, timeoutSeconds: 60, detach: true });
    expect(() => validateJob('run', { app: 'web', command: [] })).toThrow(/command: give a command to run/);
    expect(() => validateJob('run', { app: 'web', command: ['x'], timeoutSeconds: 0 })).toThrow(
      /timeoutSeconds: must be at least 1 second/,
    );
    expect(() => validateJob('run', { app: 'web', command: ['x'], ttlSeconds: 1.5 })).toThrow(
      /ttlSeconds: must be a whole number of seconds/,
    );
    expect(() => validateJob('run', { app: 'web', command: ['x'], timeoutSeconds: 8 * 86_400 })).toThrow(
      /timeoutSeconds: must be at most 604800 seconds/,
    );
    expect(() => validateJob('run', { app: 'web', command: ['x'], env: { EXTRA: 'plain' } })).toThrow(
      /env\.EXTRA: must be a value sealed/,
    );
    expect(() => validateJob('run', { app: 'web', command: ['x'], env: { '1BAD': env.EXTRA } })).toThrow(
      /env/,
    );
    expect(runJobNameFor('web', 'run.web.xabc')).toBe(runJobNameFor('web', 'run.web.xabc'));
    expect(runJobNameFor('web', 'run.web.xabc')).toMatch(/^web-run-[0-9a-f]{8}$/);
    expect(runJobNameFor('web', 'run.web.xabd')).not.toBe(runJobNameFor('web', 'run.web.xabc'));
  });

  it('config-read: in the app lane (after the config changes before it), a reader key, named keys', () => {
    const readerKey = new ReaderKey().publicKey;
    expect(contractFor('config-read').lane({ app: 'web' } as never)).toEqual({ kind: 'app', name: 'web' });
    expect(validateJob('config-read', { app: 'web', readerKey, keys: ['A'] }).payload).toEqual({
      app: 'web',
      readerKey,
      keys: ['A'],
    });
    expect(() => validateJob('config-read', { app: 'web' })).toThrow(/readerKey/);
    expect(() => validateJob('config-read', { app: 'web', readerKey: 'short' })).toThrow(
      /readerKey: must be an X25519 public key/,
    );
    expect(() => validateJob('config-read', { app: 'web', readerKey, keys: ['1BAD'] })).toThrow(/keys\.0/);
    expect(() => validateJob('config-read', { app: 'web', readerKey, keys: [] })).toThrow(/keys/);
  });

  it('logs: unordered (never behind deploys), --tail 100 and no follow unless given, a bounded tail', () => {
    expect(contractFor('logs').lane({ app: 'web' } as never)).toBeUndefined();
    expect(validateJob('logs', { app: 'web' }).payload).toEqual({ app: 'web', tail: 100, follow: false });
    expect(validateJob('logs', { app: 'web', process: 'worker', tail: 5, follow: true }).payload).toEqual({
      app: 'web',
      process: 'worker',
      tail: 5,
      follow: true,
    });
    expect(() => validateJob('logs', { app: 'web', tail: 0 })).toThrow(/tail/);
    expect(() => validateJob('logs', { app: 'web', tail: 10_001 })).toThrow(/tail/);
    expect(() => validateJob('logs', { app: 'web', process: 'Bad_Type' })).toThrow(/process/);
  });

  it('prune: one app or all, --dry-run as `dryRun` (false unless given), in the app lane or the fleet lane', () => {
    expect(validateJob('prune', {}).payload).toEqual({ dryRun: false });
    expect(validateJob('prune', { app: 'web', dryRun: true }).payload).toEqual({ app: 'web', dryRun: true });
    expect(contractFor('prune').lane({ app: 'web', dryRun: true } as never)).toEqual({
      kind: 'app',
      name: 'web',
    });
    expect(contractFor('prune').describe({ dryRun: true } as never)).toBe('prune (all apps) (dry run)');
    try {
      validateJob('prune', { dryRun: 'yes' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidInputError);
      expect((err as InvalidInputError).issues.map((i) => i.path)).toEqual(['dryRun']);
    }
  });

  it('names every invalid field', () => {
    try {
      validateJob('deploy', { app: 'Web', extra: 1 });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidInputError);
      const paths = (err as InvalidInputError).issues.map((i) => i.path);
      expect(paths).toEqual(expect.arrayContaining(['app', 'image', '']));
      expect((err as Error).message).toMatch(/Unrecognized key.*extra/);
    }
  });

  it('refuses plaintext where a sealed value belongs, and config changes that change nothing', () => {
    expect(() => validateJob('config', { app: 'web', set: { A: 'plain' } })).toThrow(
      /set\.A: must be a value sealed/,
    );
    expect(() => validateJob('config', { app: 'web' })).toThrow(/set: set or unset at least one variable/);
  });

  it('refuses unknown types and oversized payloads', () => {
    expect(() => validateJob('teleport', {})).toThrow(/type: unknown job type "teleport"/);
    expect(() => validateJob('run', { app: 'web', command: ['x'.repeat(MAX_PAYLOAD_BYTES)] })).toThrow(
      /payload: is \d+ bytes/,
    );
  });
});

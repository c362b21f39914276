import { describe, expect, it } from 'vitest';
import { appChartValues, envDigest, imagePullSecretsOf, portsOf } from '../../../src/apps/chart-values.ts';
import { assignCronSuffixes, cronTaskId } from '../../../src/apps/cron-tasks.ts';
import {
  applyDeploy,
  applyDomains,
  applyMounts,
  applyPorts,
  applyProperties,
  applyScale,
  removedProcessTypes,
} from '../../../src/apps/mutations.ts';
import { type AppSpec, appSpec, emptySpec } from '../../../src/apps/spec.ts';
import { InvalidInputError } from '../../../src/core/errors.ts';
import type { DeployPayload } from '../../../src/jobs/schemas/deploy.ts';

const deploy = (p: Partial<DeployPayload>): DeployPayload => ({ app: 'shop', image: 'nginx:1.27', ...p });

function deployed(p: Partial<DeployPayload> = {}): AppSpec {
  return applyDeploy(emptySpec('shop'), deploy(p));
}

describe('applyDeploy', () => {
  it('runs an image without a Procfile as one web process', () => {
    const spec = deployed();
    expect(spec.image).toBe('nginx:1.27');
    expect(spec.processes).toEqual({ web: { replicas: 1 } });
    expect(appSpec.parse(spec)).toEqual(spec);
  });

  it('replaces the process set from the Procfile, keeping replicas and resources of known types', () => {
    const first = deployed({
      processes: { web: { command: 'a' }, worker: { command: 'b' } },
    });
    expect(first.processes).toEqual({
      web: { command: 'a', replicas: 1 },
      worker: { command: 'b', replicas: 0 },
    });
    const scaled = applyScale(
      {
        ...first,
        processes: { ...first.processes, web: { ...first.processes.web!, resources: { cpu: '250m' } } },
      },
      { app: 'shop', processes: { web: 3, worker: 2 } },
    );
    const second = applyDeploy(
      scaled,
      deploy({ processes: { web: { command: 'a2' }, clock: { command: 'c' } } }),
    );
    expect(second.processes).toEqual({
      web: { command: 'a2', replicas: 3, resources: { cpu: '250m' } },
      clock: { command: 'c', replicas: 0 },
    });
    const formation = applyDeploy(second, deploy({ processes: { web: { command: 'a2', replicas: 5 } } }));
    expect(formation.processes.web?.replicas).toBe(5);
  });

  it('adds and removes the domains a deploy names, keeping the others sorted', () => {
    const spec = { ...deployed(), domains: ['a.example.com', 'b.example.com'] };
    const next = applyDeploy(
      spec,
      deploy({ domains: { 'b.example.com': 'remove', 'c.example.com': 'add' } }),
    );
    expect(next.domains).toEqual(['a.example.com', 'c.example.com']);
    expect(applyDeploy(spec, deploy({})).domains).toEqual(spec.domains);
  });

  it('keeps cron tasks unless the deploy names them, and keeps registry credentials unless told to clear them', () => {
    const spec = deployed({
      cron: [{ command: 'x', schedule: '@daily', concurrencyPolicy: 'Forbid', suspend: false }],
      registry: { server: 'r.example.com', username: 'u', password: 'sealed' },
    });
    expect(spec.registry).toEqual({ server: 'r.example.com', username: 'u' });
    const again = applyDeploy(spec, deploy({ image: 'nginx:1.28' }));
    expect(again.cron).toEqual(spec.cron);
    expect(again.cronSuffixes).toEqual(spec.cronSuffixes);
    expect(again.registry).toEqual(spec.registry);
    expect(applyDeploy(spec, deploy({ registry: null })).registry).toBeUndefined();
  });

  it('does not change the spec it builds on', () => {
    const spec = deployed();
    const copy = structuredClone(spec);
    applyDeploy(spec, deploy({ image: 'nginx:2', processes: { web: { command: 'x' } } }));
    applyScale(spec, { app: 'shop', processes: { web: 4 } });
    expect(spec).toEqual(copy);
  });
});

describe('autoscaling', () => {
  const AUTOSCALING = {
    minReplicas: 1,
    maxReplicas: 5,
    triggers: [{ type: 'cpu' as const, metadata: { value: '60' } }],
  };
  const twoTypes = () => deployed({ processes: { web: { command: 'a' }, worker: { command: 'b' } } });

  it("is the formation entry's: kept across Procfile deploys, removed by an entry without it", () => {
    const scaled = applyDeploy(twoTypes(), deploy({ formation: { worker: { autoscaling: AUTOSCALING } } }));
    expect(scaled.processes.worker?.autoscaling).toEqual(AUTOSCALING);
    expect(appSpec.parse(scaled)).toEqual(scaled);
    const procfileOnly = applyDeploy(
      scaled,
      deploy({ processes: { web: { command: 'a' }, worker: { command: 'b2' } } }),
    );
    expect(procfileOnly.processes.worker?.autoscaling).toEqual(AUTOSCALING);
    const removed = applyDeploy(procfileOnly, deploy({ formation: { worker: { replicas: 2 } } }));
    expect(removed.processes.worker).not.toHaveProperty('autoscaling');
    expect(removed.processes.worker?.replicas).toBe(2);
  });

  it('refuses ps:scale of an autoscaled type, naming its autoscaler, and scales the others', () => {
    const scaled = applyDeploy(twoTypes(), deploy({ formation: { worker: { autoscaling: AUTOSCALING } } }));
    expect(() => applyScale(scaled, { app: 'shop', processes: { worker: 2 } })).toThrow(
      /processes\.worker: worker is autoscaled by its autoscaler shop-worker/,
    );
    expect(applyScale(scaled, { app: 'shop', processes: { web: 2 } }).processes.web?.replicas).toBe(2);
  });

  it('makes the autoscaled Deployment leave replicas out', () => {
    const scaled = applyDeploy(twoTypes(), deploy({ formation: { worker: { autoscaling: AUTOSCALING } } }));
    const values = appChartValues({ ...scaled, image: 'nginx:1.27' }, { keda: true });
    expect(values.keda).toBe(true);
    expect(values.processes.worker?.autoscaling).toEqual(AUTOSCALING);
  });
});

describe('formation and healthchecks', () => {
  const twoTypes = () => deployed({ processes: { web: { command: 'a' }, worker: { command: 'b' } } });

  it('refuses a formation naming a type the app does not have, with the types it has', () => {
    const spec = twoTypes();
    expect(() => applyDeploy(spec, deploy({ formation: { nope: { replicas: 1 } } }))).toThrow(
      'invalid deploy of shop: formation: names process type "nope"; the app has: web, worker (a deploy whose Procfile declares a type adds it)',
    );
    // Even without a quantity, and for healthchecks too.
    expect(() => applyDeploy(spec, deploy({ formation: { nope: {} } }))).toThrow(InvalidInputError);
    expect(() => applyDeploy(spec, deploy({ healthchecks: { nope: {} } }))).toThrow(
      /healthchecks: names process type "nope"; the app has: web, worker/,
    );
    // An app deployed without a Procfile has web only.
    expect(() => applyDeploy(emptySpec('shop'), deploy({ formation: { worker: { replicas: 1 } } }))).toThrow(
      /formation: names process type "worker"; the app has: web/,
    );
    // With a Procfile, the Procfile's types are the ones that count.
    expect(() =>
      applyDeploy(
        spec,
        deploy({ processes: { web: { command: 'a' } }, formation: { worker: { replicas: 1 } } }),
      ),
    ).toThrow(/formation: names process type "worker"; the deploy's Procfile declares: web/);
  });

  it('sets replicas and probes of the types the app has, keeping the process set', () => {
    const spec = twoTypes();
    const probe = { type: 'http' as const, path: '/healthz' };
    const next = applyDeploy(
      spec,
      deploy({ formation: { worker: { replicas: 3 }, web: {} }, healthchecks: { web: { startup: probe } } }),
    );
    expect(next.processes).toEqual({
      web: { command: 'a', replicas: 1, healthchecks: { startup: probe } },
      worker: { command: 'b', replicas: 3 },
    });
    // A deploy without app.json keeps the probes; one whose app.json names none removes them.
    expect(applyDeploy(next, deploy({})).processes.web?.healthchecks).toEqual({ startup: probe });
    expect(
      applyDeploy(next, deploy({ processes: { web: { command: 'a' }, worker: { command: 'b' } } })).processes
        .web?.healthchecks,
    ).toEqual({ startup: probe });
    expect(applyDeploy(next, deploy({ healthchecks: {} })).processes.web?.healthchecks).toBeUndefined();
  });

  it('removes a process type only when a Procfile leaves it out', () => {
    const spec = twoTypes();
    expect(removedProcessTypes(spec, applyDeploy(spec, deploy({})))).toEqual([]);
    expect(
      removedProcessTypes(spec, applyDeploy(spec, deploy({ formation: { web: { replicas: 0 } } }))),
    ).toEqual([]);
    expect(removedProcessTypes(spec, applyScale(spec, { app: 'shop', processes: { worker: 0 } }))).toEqual(
      [],
    );
    expect(
      removedProcessTypes(spec, applyDeploy(spec, deploy({ processes: { web: { command: 'a' } } }))),
    ).toEqual(['worker']);
  });
});

describe('applyScale', () => {
  it('names the unknown process type and the ones the app has', () => {
    const spec = deployed({ processes: { web: {}, worker: {} } });
    expect(() => applyScale(spec, { app: 'shop', processes: { bogus: 1 } })).toThrow(
      /processes\.bogus: unknown process type "bogus" \(app shop has: web, worker\)/,
    );
    expect(() => applyScale(emptySpec('shop'), { app: 'shop', processes: { web: 1 } })).toThrow(
      InvalidInputError,
    );
    expect(() => applyScale(emptySpec('shop'), { app: 'shop', processes: { web: 1 } })).toThrow(
      /deploy it first/,
    );
  });
});

describe('list changes', () => {
  it('adds, removes, sets and clears domains and ports, sorted and without duplicates', () => {
    let spec = applyDomains(emptySpec('shop'), {
      app: 'shop',
      action: 'add',
      domains: ['b.example.com', 'a.example.com'],
    });
    spec = applyDomains(spec, { app: 'shop', action: 'add', domains: ['a.example.com'] });
    expect(spec.domains).toEqual(['a.example.com', 'b.example.com']);
    spec = applyDomains(spec, {
      app: 'shop',
      action: 'remove',
      domains: ['a.example.com', 'absent.example.com'],
    });
    expect(spec.domains).toEqual(['b.example.com']);
    spec = applyDomains(spec, { app: 'shop', action: 'clear', domains: [] });
    expect(spec.domains).toEqual([]);
    spec = applyPorts(spec, {
      app: 'shop',
      action: 'set',
      ports: ['https:443:5000', 'http:80:5000', 'http:80:5000'],
    });
    expect(spec.ports).toEqual(['http:80:5000', 'https:443:5000']);
  });
});

describe('applyProperties', () => {
  it('sets properties and removes them with null', () => {
    let spec = applyProperties(emptySpec('shop'), {
      app: 'shop',
      set: { deployTimeoutSeconds: 60, namespace: 'shop' },
    });
    expect(spec.properties).toEqual({ deployTimeoutSeconds: 60, namespace: 'shop' });
    spec = applyProperties(spec, { app: 'shop', set: { namespace: null } });
    expect(spec.properties).toEqual({ deployTimeoutSeconds: 60 });
  });
});

describe('cron suffixes', () => {
  const a = { command: 'a', schedule: '@daily' };
  const b = { command: 'b', schedule: '@hourly' };
  const c = { command: 'c', schedule: '0 * * * *' };

  it('keeps a suffix once assigned, whatever other tasks come and go', () => {
    const first = assignCronSuffixes('shop', [a, b], {});
    const second = assignCronSuffixes('shop', [c, b], first);
    expect(second[cronTaskId(b)]).toBe(first[cronTaskId(b)]);
    expect(Object.keys(second)).toHaveLength(2);
    const third = assignCronSuffixes('shop', [a, c], second);
    expect(third[cronTaskId(c)]).toBe(second[cronTaskId(c)]);
    for (const s of Object.values(third)) expect(s).toMatch(/^[a-z2-7]{8}$/);
  });

  it('never gives two tasks the same suffix, even when a stored one collides', () => {
    const forced = { [cronTaskId(a)]: 'aaaaaaaa', [cronTaskId(b)]: 'aaaaaaaa' };
    const out = assignCronSuffixes('shop', [a, b], forced);
    expect(new Set(Object.values(out)).size).toBe(2);
    expect(out[cronTaskId(a)]).toBe('aaaaaaaa');
  });

  it('is deterministic: a retried job assigns the same suffixes', () => {
    expect(assignCronSuffixes('shop', [a, b, c], {})).toEqual(assignCronSuffixes('shop', [a, b, c], {}));
  });
});

describe('chart values', () => {
  it('defaults web to http:80:5000 and adds https:443 when TLS is on', () => {
    const spec = deployed();
    expect(portsOf(spec)).toEqual(['http:80:5000']);
    const tls = applyProperties(spec, { app: 'shop', set: { tlsIssuer: 'letsencrypt' } });
    expect(portsOf(tls)).toEqual(['http:80:5000', 'https:443:5000']);
    expect(appChartValues({ ...tls, image: 'nginx:1.27' }).tls).toEqual({
      issuer: 'letsencrypt',
      issuerKind: 'ClusterIssuer',
    });
  });

  it('lists the override pull secret, else the app’s own when it has credentials, else none', () => {
    const spec = deployed();
    expect(imagePullSecretsOf(spec)).toEqual([]);
    const withCreds = { ...spec, registry: { server: 'r', username: 'u' } };
    expect(imagePullSecretsOf(withCreds)).toEqual(['pull-secret-shop']);
    expect(
      imagePullSecretsOf(
        applyProperties(withCreds, { app: 'shop', set: { imagePullSecrets: 'shared-creds' } }),
      ),
    ).toEqual(['shared-creds']);
  });

  it('digests the environment independently of key order', () => {
    expect(envDigest({ A: '1', B: '2' })).toBe(envDigest({ B: '2', A: '1' }));
    expect(envDigest({ A: '1' })).not.toBe(envDigest({ A: '2' }));
  });
});

describe('applyMounts', () => {
  const mount = (entry: string, mountPath: string, extra: { subPath?: string; readOnly?: boolean } = {}) => ({
    app: 'shop',
    action: 'mount' as const,
    mount: { entry, mountPath, readOnly: false, ...extra },
  });

  it('adds mounts sorted by path, and mounting the same entry at the same path again only updates it', () => {
    let spec = applyMounts(deployed(), mount('data', '/var/data'));
    spec = applyMounts(spec, mount('geoip', '/geo', { subPath: 'v2', readOnly: true }));
    expect(spec.mounts).toEqual([
      { entry: 'geoip', mountPath: '/geo', subPath: 'v2', readOnly: true },
      { entry: 'data', mountPath: '/var/data', readOnly: false },
    ]);
    expect(applyMounts(spec, mount('data', '/var/data'))).toEqual(spec);
    expect(applyMounts(spec, mount('geoip', '/geo')).mounts[0]).toEqual({
      entry: 'geoip',
      mountPath: '/geo',
      readOnly: false,
    });
    expect(appSpec.parse(spec)).toEqual(spec);
  });

  it('refuses a path another entry is mounted at, naming it', () => {
    const spec = applyMounts(deployed(), mount('data', '/data'));
    expect(() => applyMounts(spec, mount('logs', '/data'))).toThrow(
      /mount\.mountPath: \/data is already the mount path of entry data/,
    );
    expect(() => applyMounts(spec, mount('logs', '/data'))).toThrow(InvalidInputError);
  });

  it("scopes a mount to one process: its path may repeat in another process's container, not in a shared one", () => {
    const spec = deployed({ processes: { web: { command: 'a' }, worker: { command: 'b' } } });
    let next = applyMounts(spec, {
      ...mount('cache', '/tmp/x'),
      mount: { ...mount('cache', '/tmp/x').mount, process: 'web' },
    });
    next = applyMounts(next, {
      ...mount('scratch', '/tmp/x'),
      mount: { ...mount('scratch', '/tmp/x').mount, process: 'worker' },
    });
    expect(next.mounts.map((m) => `${m.process}:${m.entry}`)).toEqual(['web:cache', 'worker:scratch']);
    expect(appSpec.parse(next)).toEqual(next);
    expect(() => applyMounts(next, mount('shared', '/tmp/x'))).toThrow(
      /already the mount path of entry cache/,
    );
    expect(() =>
      applyMounts(spec, {
        ...mount('cache', '/c'),
        mount: { ...mount('cache', '/c').mount, process: 'clock' },
      }),
    ).toThrow(/mount\.process: app shop has no process type "clock" \(it has web, worker\)/);
  });

  it('unmounts only the entry at that path; unmounting what is not mounted changes nothing', () => {
    let spec = applyMounts(deployed(), mount('data', '/a'));
    spec = applyMounts(spec, mount('data', '/b'));
    const unmounted = applyMounts(spec, { ...mount('data', '/a'), action: 'unmount' });
    expect(unmounted.mounts).toEqual([{ entry: 'data', mountPath: '/b', readOnly: false }]);
    expect(applyMounts(unmounted, { ...mount('data', '/a'), action: 'unmount' })).toEqual(unmounted);
  });
});

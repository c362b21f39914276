/** ps:restart, ps:stop, ps:start and resource:limit/reserve as spec changes. */
import { describe, expect, it } from 'vitest';
import { applyDeploy } from '../../../src/apps/mutations.ts';
import { applyResources, applyRestart, applyStart, applyStop } from '../../../src/apps/process-mutations.ts';
import { type AppSpec, appSpec, emptySpec } from '../../../src/apps/spec.ts';
import { InvalidInputError } from '../../../src/core/errors.ts';
import type { ResourcesPayload } from '../../../src/jobs/schemas/resources.ts';

const AT = '2026-01-02T03:04:05.000Z';

function twoProcesses(): AppSpec {
  return applyDeploy(emptySpec('shop'), {
    app: 'shop',
    image: 'nginx:1',
    processes: { web: { command: 'puma', replicas: 2 }, worker: { command: 'sidekiq', replicas: 1 } },
  });
}

function issuesOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    return (err as InvalidInputError).issues;
  }
  throw new Error('expected a refusal');
}

describe('applyRestart', () => {
  it('stamps every process type, or only the one named', () => {
    const all = applyRestart(twoProcesses(), { app: 'shop', action: 'restart', at: AT });
    expect(all.processes.web!.restartedAt).toBe(AT);
    expect(all.processes.worker!.restartedAt).toBe(AT);
    const one = applyRestart(twoProcesses(), { app: 'shop', action: 'restart', process: 'worker', at: AT });
    expect(one.processes.web!.restartedAt).toBeUndefined();
    expect(one.processes.worker!.restartedAt).toBe(AT);
    expect(appSpec.parse(one)).toEqual(one);
  });

  it('is kept by a later deploy with a Procfile, so that deploy restarts nothing again', () => {
    const restarted = applyRestart(twoProcesses(), { app: 'shop', action: 'restart', at: AT });
    const redeployed = applyDeploy(restarted, {
      app: 'shop',
      image: 'nginx:2',
      processes: { web: { command: 'puma' }, worker: { command: 'sidekiq' } },
    });
    expect(redeployed.processes.web!.restartedAt).toBe(AT);
    expect(applyDeploy(restarted, { app: 'shop', image: 'nginx:2' }).processes.worker!.restartedAt).toBe(AT);
  });

  it('refuses an unknown type, and an app never deployed', () => {
    expect(
      issuesOf(() =>
        applyRestart(twoProcesses(), { app: 'shop', action: 'restart', process: 'clock', at: AT }),
      ),
    ).toEqual([{ path: 'process', message: 'unknown process type "clock" (app shop has: web, worker)' }]);
    expect(
      issuesOf(() => applyRestart(emptySpec('shop'), { app: 'shop', action: 'restart', at: AT }))[0]!.message,
    ).toBe('app shop has not been deployed: nothing to restart');
  });
});

describe('applyStop and applyStart', () => {
  it('stops every type, keeping the formation, and starts it again', () => {
    const stopped = applyStop(twoProcesses());
    expect(stopped.processes.web!.replicas).toBe(0);
    expect(stopped.processes.worker!.replicas).toBe(0);
    expect(stopped.stoppedFormation).toEqual({ web: 2, worker: 1 });
    expect(appSpec.parse(stopped)).toEqual(stopped);
    const started = applyStart(stopped);
    expect(started).toEqual(twoProcesses());
  });

  it('keeps the formation of the first stop when stopped twice', () => {
    expect(applyStart(applyStop(applyStop(twoProcesses())))).toEqual(twoProcesses());
  });

  it('leaves a running app as it is, and a type removed since out', () => {
    expect(applyStart(twoProcesses())).toEqual(twoProcesses());
    const stopped = applyStop(twoProcesses());
    const webOnly = applyDeploy(stopped, {
      app: 'shop',
      image: 'nginx:2',
      processes: { web: { command: 'puma' } },
    });
    expect(applyStart(webOnly).processes).toEqual({ web: { command: 'puma', replicas: 2 } });
  });
});

describe('applyResources', () => {
  const change = (p: Partial<ResourcesPayload>): ResourcesPayload => ({
    app: 'shop',
    kind: 'limit',
    clear: false,
    ...p,
  });

  it('sets limits of one type only, and requests of every type', () => {
    const limited = applyResources(twoProcesses(), change({ process: 'web', memory: '512Mi' }));
    expect(limited.processes.web!.resources).toEqual({ memoryLimit: '512Mi' });
    expect(limited.processes.worker!.resources).toBeUndefined();
    const reserved = applyResources(limited, change({ kind: 'reserve', cpu: '250m' }));
    expect(reserved.processes.web!.resources).toEqual({ memoryLimit: '512Mi', cpu: '250m' });
    expect(reserved.processes.worker!.resources).toEqual({ cpu: '250m' });
  });

  it('clears one kind, keeping the other', () => {
    const both = applyResources(
      applyResources(twoProcesses(), change({ cpu: '1', memory: '1Gi' })),
      change({ kind: 'reserve', memory: '256Mi' }),
    );
    const cleared = applyResources(both, change({ clear: true }));
    expect(cleared.processes.web!.resources).toEqual({ memory: '256Mi' });
    expect(
      applyResources(cleared, change({ kind: 'reserve', clear: true })).processes.web!.resources,
    ).toBeUndefined();
  });

  it('refuses a request above its limit, either way round', () => {
    const limited = applyResources(twoProcesses(), change({ process: 'web', memory: '512Mi' }));
    expect(
      issuesOf(() => applyResources(limited, change({ kind: 'reserve', process: 'web', memory: '1Gi' }))),
    ).toEqual([
      {
        path: 'processes.web.resources.memory',
        message: 'the memory request 1Gi of web would be above its limit 512Mi',
      },
    ]);
    const reserved = applyResources(twoProcesses(), change({ kind: 'reserve', cpu: '2' }));
    expect(issuesOf(() => applyResources(reserved, change({ cpu: '500m' }))).map((i) => i.path)).toEqual([
      'processes.web.resources.cpu',
      'processes.worker.resources.cpu',
    ]);
    // Equal is allowed.
    expect(applyResources(reserved, change({ cpu: '2000m' })).processes.web!.resources).toEqual({
      cpu: '2',
      cpuLimit: '2000m',
    });
  });

  it('refuses an unknown process type', () => {
    expect(
      issuesOf(() => applyResources(twoProcesses(), change({ process: 'clock', cpu: '1' })))[0]!.path,
    ).toBe('process');
  });
});

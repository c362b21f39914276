import { describe, expect, it } from 'vitest';
import {
  type AppChartValues,
  appChart,
  ChartValuesError,
  configChart,
  pullSecretChart,
} from '../../../charts/index.ts';
import { config, fullApp, minimalApp, pullSecret } from './cases.ts';

/** The ChartValuesError that rendering `values` throws. */
function errorOf(render: () => unknown): ChartValuesError {
  try {
    render();
  } catch (err) {
    expect(err).toBeInstanceOf(ChartValuesError);
    return err as ChartValuesError;
  }
  throw new Error('expected a ChartValuesError');
}

const appError = (values: unknown) => errorOf(() => appChart.render(values as AppChartValues));

describe('bad values', () => {
  it('names an unbalanced quote in a process command', () => {
    const err = appError({
      ...minimalApp,
      processes: { web: { replicas: 1, command: 'node server.js --name "my app' } },
    });
    expect(err.name).toBe('ChartValuesError');
    expect(err.chart).toBe('app');
    expect(err.issues).toEqual([
      { path: 'processes.web.command', message: 'unbalanced double quote (opened at character 23)' },
    ]);
    expect(err.message).toBe(
      'invalid values for chart app:\n  processes.web.command: unbalanced double quote (opened at character 23)',
    );
  });

  it('names an unbalanced quote in a cron command', () => {
    const err = appError({ ...fullApp, cron: [{ ...fullApp.cron[0]!, command: "rake 'x" }] });
    expect(err.message).toMatch(/cron\.0\.command: unbalanced single quote/);
  });

  it('refuses two cron tasks with the same suffix', () => {
    const err = appError({
      ...fullApp,
      cron: [fullApp.cron[0]!, { ...fullApp.cron[1]!, suffix: fullApp.cron[0]!.suffix }],
    });
    expect(err.issues).toEqual([
      { path: 'cron.1.suffix', message: '"a1b2c3d4e5" is already the suffix of cron task 0' },
    ]);
  });

  it('refuses env over 1 MiB, naming the Secret', () => {
    const err = errorOf(
      () => configChart.render({ ...config, env: { BIG: 'x'.repeat(1_099_997) } }), // 3 + 1,099,997 bytes
    );
    expect(err.chart).toBe('config');
    expect(err.issues).toEqual([
      {
        path: 'env',
        message: 'env is 1,100,000 bytes in all; the config-shop Secret holds at most 1,048,576 bytes',
      },
    ]);
  });

  it('accepts env of exactly 1 MiB, counting UTF-8 bytes', () => {
    expect(() => configChart.render({ ...config, env: { K: 'x'.repeat(1_048_575) } })).not.toThrow();
    expect(() => configChart.render({ ...config, env: { K: 'ü'.repeat(524_288) } })).toThrow(
      /1,048,577 bytes/,
    );
  });

  it('refuses bad env keys', () => {
    const err = errorOf(() => configChart.render({ ...config, env: { '1BAD': 'x', 'OK-NOT': 'y' } }));
    expect(err.issues.map((i) => i.path)).toEqual(['env.1BAD', 'env.OK-NOT']);
  });

  it('lists every problem at once', () => {
    const err = appError({
      ...minimalApp,
      app: 'Shop',
      ports: ['http:80:5000', 'https:80:5001', 'ftp:21:21'],
      domains: ['Shop.Example.com', '10.0.0.1'],
      processes: { Web: { replicas: -1 } },
      extra: true,
    });
    const paths = err.issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'app',
        'ports.2',
        'domains.0',
        'domains.1',
        'processes.Web',
        'processes.Web.replicas',
      ]),
    );
    expect(err.message).toMatch(/: Unrecognized key: "extra"/);
  });

  it('refuses two port maps on one Service port and protocol', () => {
    const err = appError({ ...minimalApp, ports: ['http:80:5000', 'https:80:5001'] });
    expect(err.issues).toEqual([
      { path: 'ports', message: 'http:80:5000 and https:80:5001 both use TCP port 80 of the Service' },
    ]);
    // tcp and udp on one port are two Service ports.
    expect(() => appChart.render({ ...minimalApp, ports: ['tcp:53:53', 'udp:53:53'] })).not.toThrow();
  });

  it('refuses requests above limits and malformed quantities', () => {
    const err = appError({
      ...minimalApp,
      processes: { web: { replicas: 1, resources: { cpu: '2', cpuLimit: '500m', memory: 'lots' } } },
    });
    expect(err.issues.map((i) => `${i.path}: ${i.message}`).sort()).toEqual([
      'processes.web.resources.cpu: 2 is above cpuLimit 500m',
      'processes.web.resources.memory: must be a Kubernetes quantity such as 250m, 1.5, 512Mi or 1Gi',
    ]);
  });

  it('refuses probes that miss what their type needs', () => {
    const err = appError({
      ...minimalApp,
      processes: {
        web: {
          replicas: 1,
          healthchecks: { liveness: { type: 'exec' }, readiness: { type: 'tcp', path: '/x' } },
        },
      },
    });
    expect(err.issues.map((i) => i.path).sort()).toEqual([
      'processes.web.healthchecks.liveness.command',
      'processes.web.healthchecks.readiness.path',
    ]);
  });

  it('refuses mounts the API server would refuse', () => {
    const err = appError({
      ...fullApp,
      mounts: [
        { entry: 'data', claimName: 'data', mountPath: '/data', readOnly: false },
        { entry: 'data', claimName: 'other', mountPath: '/data', readOnly: true },
        { entry: 'logs', claimName: 'logs', mountPath: 'relative', subPath: '../up', readOnly: false },
      ],
    });
    expect(err.issues.map((i) => i.path).sort()).toEqual([
      'mounts.1.claimName',
      'mounts.1.mountPath',
      'mounts.2.mountPath',
      'mounts.2.subPath',
    ]);
  });

  it('refuses bad cron schedules and suffixes', () => {
    const err = appError({
      ...fullApp,
      cron: [
        { ...fullApp.cron[0]!, schedule: '* * * *' },
        { ...fullApp.cron[1]!, schedule: 'TZ=Europe/Paris 0 3 * * *', suffix: 'ABC' },
      ],
    });
    expect(err.issues.map((i) => i.path)).toEqual(['cron.0.schedule', 'cron.1.suffix', 'cron.1.schedule']);
    expect(err.message).toMatch(/must have 5 fields/);
    expect(err.message).toMatch(/time zone/);
  });

  it('refuses bad user labels', () => {
    const err = appError({ ...minimalApp, labels: { 'bad key!': 'x', ok: 'not a value' } });
    expect(err.issues.map((i) => i.path)).toEqual(['labels.bad key!', 'labels.ok']);
  });

  it('refuses an incomplete pull secret', () => {
    const err = errorOf(() => pullSecretChart.render({ ...pullSecret, password: '' }));
    expect(err.issues).toEqual([{ path: 'password', message: 'is required' }]);
  });
});

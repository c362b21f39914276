/**
 * The run Job builder (charts/app/run-job.ts): the process's pod as a one-off Job, golden output,
 * upstream schemas, labels that prune selects on and no process selector matches, the env Secret
 * referenced (never its values), names at the length limits.
 */
import { describe, expect, it } from 'vitest';
import {
  processSelector,
  RUN_CONTAINER,
  type RunJobOptions,
  runEnvSecret,
  runEnvSecretName,
  runJob,
  runJobName,
  shortHash,
} from '../../../charts/index.ts';
import { fullApp, minimalApp } from './cases.ts';
import { expectGolden } from './golden.ts';
import { validateObject } from './kubernetes-schema.ts';
import { LONG_APP, LONG_PROCESS, longNamesApp } from './long-names.ts';

const JOB_ID = 'run.shop.x0123456789ab';
const NAME = runJobName('shop', shortHash(JOB_ID));

const run = (overrides: Partial<RunJobOptions> = {}): RunJobOptions => ({
  name: NAME,
  process: 'worker',
  command: ['bundle', 'exec', 'rake', 'db:migrate'],
  jobId: JOB_ID,
  activeDeadlineSeconds: 86_400,
  ttlSecondsAfterFinished: 3600,
  withEnv: true,
  tty: false,
  ...overrides,
});

type Container = {
  name: string;
  image: string;
  args: string[];
  command?: string[];
  envFrom: unknown[];
  resources: unknown;
  volumeMounts?: { name: string; mountPath: string }[];
  stdin?: boolean;
  tty?: boolean;
};
type JobSpec = {
  backoffLimit: number;
  suspend?: boolean;
  template: {
    metadata: { labels: Record<string, string> };
    spec: { restartPolicy: string; containers: Container[]; imagePullSecrets?: unknown; volumes?: unknown };
  };
};
const specOf = (o: ReturnType<typeof runJob>) => o.spec as JobSpec;

describe('runJob', () => {
  it('golden: the worker process of the full app, with its own env Secret', () => {
    const job = runJob(fullApp, run());
    const secret = runEnvSecret(
      fullApp,
      { name: NAME, uid: '00000000-0000-4000-8000-000000000001' },
      {
        EXTRA: 'extra value',
        A_FIRST: '1',
      },
    );
    expectGolden('run-job', [job, secret]);
    validateObject(job);
    validateObject(secret);
  });

  it("is the process's pod: image, pull secrets, mounts and resources; the command as args", () => {
    const spec = specOf(runJob(fullApp, run()));
    const pod = spec.template.spec;
    const [container] = pod.containers;
    expect(pod.restartPolicy).toBe('Never');
    expect(spec.backoffLimit).toBe(0);
    expect(pod.imagePullSecrets).toEqual([{ name: 'pull-secret-shop' }]);
    expect(container).toMatchObject({
      name: RUN_CONTAINER,
      image: fullApp.image,
      args: ['bundle', 'exec', 'rake', 'db:migrate'],
      resources: { requests: { cpu: '100m', memory: '768Mi' } },
    });
    expect(container?.command).toBeUndefined();
    // Mounts for every process apply; a mount of another process only would not.
    expect(container?.volumeMounts?.map((m) => m.mountPath)).toEqual([
      '/app/public/uploads',
      '/usr/share/geoip',
    ]);
    const web = specOf(runJob(fullApp, run({ process: 'web' }))).template.spec.containers[0];
    expect(web?.resources).toEqual({
      requests: { cpu: '250m', memory: '512Mi' },
      limits: { cpu: '1', memory: '1Gi' },
    });
    const only = runJob(
      {
        ...fullApp,
        mounts: [
          {
            entry: 'cache',
            claimName: 'storage-cache',
            mountPath: '/cache',
            readOnly: false,
            process: 'web',
          },
        ],
      },
      run(),
    );
    expect(specOf(only).template.spec.containers[0]?.volumeMounts).toBeUndefined();
    expect(specOf(only).template.spec.volumes).toBeUndefined();
  });

  it('labels tie it to the app and mark it a run; no process selector matches its pod', () => {
    const job = runJob(fullApp, run());
    const labels = {
      'app.kubernetes.io/managed-by': 'longshore',
      'app.kubernetes.io/part-of': 'shop',
      'longshore.dev/app': 'shop',
      'longshore.dev/job': 'run',
      team: 'storefront',
    };
    expect(job.metadata.labels).toEqual(labels);
    const podLabels = specOf(job).template.metadata.labels;
    expect(podLabels).toEqual(labels);
    for (const process of Object.keys(fullApp.processes)) {
      const selector = processSelector('shop', process);
      expect(Object.entries(selector).every(([k, v]) => podLabels[k] === v)).toBe(false);
    }
    expect(job.metadata.annotations).toMatchObject({
      'longshore.dev/job-id': JOB_ID,
      'longshore.dev/process': 'worker',
    });
  });

  it('references the env Secret after config-{app} (it wins) and starts suspended; no value in the Job', () => {
    const job = runJob(fullApp, run());
    expect(specOf(job).suspend).toBe(true);
    expect(specOf(job).template.spec.containers[0]?.envFrom).toEqual([
      { secretRef: { name: 'config-shop', optional: true } },
      { secretRef: { name: `${NAME}-env` } },
    ]);
    const secret = runEnvSecret(fullApp, { name: NAME, uid: 'u-1' }, { EXTRA: 'plaintext-value' });
    expect(JSON.stringify(job)).not.toContain('plaintext-value');
    expect(JSON.stringify(secret)).not.toContain('plaintext-value');
    expect(secret).toMatchObject({
      metadata: {
        name: `${NAME}-env`,
        namespace: 'shop-prod',
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: NAME, uid: 'u-1', controller: true }],
      },
      type: 'Opaque',
      immutable: true,
      data: { EXTRA: Buffer.from('plaintext-value').toString('base64') },
    });

    const plain = runJob(minimalApp, run({ process: 'web', withEnv: false }));
    expect(specOf(plain).suspend).toBeUndefined();
    expect(specOf(plain).template.spec.containers[0]?.envFrom).toEqual([
      { secretRef: { name: 'config-hello', optional: true } },
    ]);
    validateObject(plain);
  });

  it('an interactive run gets stdin and a TTY', () => {
    const container = specOf(runJob(minimalApp, run({ process: 'web', tty: true }))).template.spec
      .containers[0];
    expect(container).toMatchObject({ stdin: true, stdinOnce: true, tty: true });
    expect(
      specOf(runJob(minimalApp, run({ process: 'web' }))).template.spec.containers[0]?.stdin,
    ).toBeUndefined();
  });

  it('refuses a process the app does not have, and an empty command', () => {
    expect(() => runJob(minimalApp, run())).toThrow(/hello has no process worker/);
    expect(() => runJob(minimalApp, run({ process: 'web', command: [] }))).toThrow(/empty/);
  });

  it('names: within a label value at the longest app name, never shortened there; apart per job id', () => {
    const suffix = shortHash('run.x.y');
    const long = runJobName(LONG_APP, suffix);
    expect(long).toBe(`${LONG_APP}-run-${suffix}`);
    expect(long.length).toBe(43);
    expect(runEnvSecretName(long).length).toBeLessThanOrEqual(253);
    const job = runJob(longNamesApp, run({ name: long, process: LONG_PROCESS }));
    validateObject(job);
    // Names over the limit (not possible with valid app names) are cut with a hash, as fitName does.
    const over = runJobName('a'.repeat(70), suffix);
    expect(over.length).toBeLessThanOrEqual(63);
    expect(runJobName('shop', shortHash('run.shop.xa'))).not.toBe(
      runJobName('shop', shortHash('run.shop.xb')),
    );
  });

  it('is deterministic', () => {
    expect(JSON.stringify(runJob(fullApp, run()))).toBe(
      JSON.stringify(runJob(structuredClone(fullApp), run())),
    );
  });
});

/**
 * The release task's Job (charts/app/release-job.ts): the app's pod of the revision being
 * deployed as a one-off Job, checked against the upstream schemas; names at the length limit.
 */
import { describe, expect, it } from 'vitest';
import {
  RELEASE_CONTAINER,
  RELEASE_REVISION_ANNOTATION,
  type ReleaseJobOptions,
  RUN_JOB_ID_ANNOTATION,
  RUN_JOB_LABEL,
  releaseJob,
  releaseJobName,
} from '../../../charts/index.ts';
import { fullApp, minimalApp } from './cases.ts';
import { validateObject } from './kubernetes-schema.ts';
import { LONG_APP } from './long-names.ts';

const task = (overrides: Partial<ReleaseJobOptions> = {}): ReleaseJobOptions => ({
  revision: 3,
  command: `sh -c 'bin/rails db:migrate && echo "done"'`,
  jobId: 'app.shop.7',
  activeDeadlineSeconds: 3600,
  ttlSecondsAfterFinished: 86_400,
  serviceAccountName: 'shop',
  ...overrides,
});

type Pod = {
  restartPolicy: string;
  serviceAccountName: string;
  imagePullSecrets?: unknown;
  volumes?: { name: string }[];
  containers: { name: string; image: string; args: string[]; envFrom: unknown; volumeMounts?: unknown[] }[];
};

describe('releaseJob', () => {
  it("is the app's pod of the new revision: image, config, pull secrets, shared mounts; the command split as a Procfile's", () => {
    const job = releaseJob(fullApp, task());
    validateObject(job);
    expect(job.metadata.name).toBe('shop-release-3');
    expect(job.metadata.labels?.[RUN_JOB_LABEL]).toBe('release');
    expect(job.metadata.annotations?.[RUN_JOB_ID_ANNOTATION]).toBe('app.shop.7');
    expect(job.metadata.annotations?.[RELEASE_REVISION_ANNOTATION]).toBe('3');
    const spec = job.spec as { activeDeadlineSeconds: number; backoffLimit: number; template: { spec: Pod } };
    expect(spec.activeDeadlineSeconds).toBe(3600);
    expect(spec.backoffLimit).toBe(0);
    const pod = spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.serviceAccountName).toBe('shop');
    expect(pod.imagePullSecrets).toEqual([{ name: 'pull-secret-shop' }]);
    const [container] = pod.containers;
    expect(container?.name).toBe(RELEASE_CONTAINER);
    expect(container?.image).toBe(fullApp.image);
    expect(container?.args).toEqual(['sh', '-c', 'bin/rails db:migrate && echo "done"']);
    expect(container?.envFrom).toEqual([{ secretRef: { name: 'config-shop', optional: true } }]);
    // Only the mounts every process shares: a process's own mount is not the task's.
    const shared = fullApp.mounts.filter((m) => m.process === undefined).map((m) => m.entry);
    expect((pod.volumes ?? []).map((v) => v.name).sort()).toEqual([...new Set(shared)].sort());
  });

  it('runs as `default` before the app release created its ServiceAccount', () => {
    const job = releaseJob(minimalApp, task({ serviceAccountName: 'default' }));
    validateObject(job);
    expect((job.spec as { template: { spec: Pod } }).template.spec.serviceAccountName).toBe('default');
  });

  it('names fit a DNS label; an empty command is refused', () => {
    expect(releaseJobName(LONG_APP, 123_456).length).toBeLessThanOrEqual(63);
    expect(releaseJobName(LONG_APP, 1)).not.toBe(releaseJobName(LONG_APP, 2));
    expect(() => releaseJob(minimalApp, task({ command: '  ' }))).toThrow(RangeError);
  });

  it('renders the postdeploy task the same way, under its own name, label and container', () => {
    const job = releaseJob(fullApp, task({ kind: 'postdeploy' }));
    validateObject(job);
    expect(job.metadata.name).toBe('shop-postdeploy-3');
    expect(job.metadata.labels?.[RUN_JOB_LABEL]).toBe('postdeploy');
    const pod = (job.spec as { template: { spec: Pod } }).template.spec;
    expect(pod.containers[0]?.name).toBe('postdeploy');
    expect(pod.containers[0]?.image).toBe(fullApp.image);
    expect(pod.imagePullSecrets).toEqual([{ name: 'pull-secret-shop' }]);
    // Same pod as the release task's otherwise (only the kind differs).
    const release = releaseJob(fullApp, task());
    const releasePod = (release.spec as { template: { spec: Pod } }).template.spec;
    expect({ ...pod, containers: pod.containers.map((c) => ({ ...c, name: 'x' })) }).toEqual({
      ...releasePod,
      containers: releasePod.containers.map((c) => ({ ...c, name: 'x' })),
    });
    expect(releaseJobName('shop', 4, 'postdeploy')).toBe('shop-postdeploy-4');
    expect(releaseJobName(LONG_APP, 4, 'postdeploy').length).toBeLessThanOrEqual(63);
  });
});

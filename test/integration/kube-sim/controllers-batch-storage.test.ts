/**
 * The simulated PersistentVolume binder, Job, TTL-after-finished and CronJob controllers and the
 * pod log endpoint, through the real @kubernetes/client-node and the real kubectl 1.33. Pods run
 * and finish through the simulated kubelet (pod lifecycle controller), as on a cluster.
 */
import { PassThrough } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';
import { stays, until, within } from '../../helpers/wait.ts';

const MERGE = k8s.setHeaderOptions('Content-Type', 'application/merge-patch+json');
const POD_NAME = /^[a-z0-9-]+-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

function jobBody(name: string, spec: Partial<k8s.V1JobSpec> = {}, image = 'busybox:1.36'): k8s.V1Job {
  return {
    metadata: { name },
    spec: {
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image }] } },
      ...spec,
    },
  };
}

const conditionTypes = (job: k8s.V1Job) => (job.status?.conditions ?? []).map((c) => c.type);
const hasCondition = (job: k8s.V1Job, type: string) =>
  (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

async function eventsFor(c: SimClients, namespace: string, name: string): Promise<k8s.CoreV1Event[]> {
  const list = await c.core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
  return list.items;
}

describe('kube-sim PersistentVolume binder', () => {
  let c: SimClients;
  const ns = 'storage';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { pvcBindDelayMs: 20 } });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  const claim = (name: string, spec: Partial<k8s.V1PersistentVolumeClaimSpec> = {}) =>
    c.core.createNamespacedPersistentVolumeClaim({
      namespace: ns,
      body: {
        metadata: { name },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
      },
    });
  const bound = (name: string) =>
    until(async () => {
      const pvc = await c.core.readNamespacedPersistentVolumeClaim({ namespace: ns, name });
      return pvc.status?.phase === 'Bound' && pvc;
    }, `claim ${name} Bound`);

  it('provisions and binds a claim that names no class through the default StorageClass', async () => {
    const created = await claim('data');
    const pvc = await bound('data');
    const uid = created.metadata!.uid!;
    expect(pvc.spec?.storageClassName).toBe('standard');
    expect(pvc.spec?.volumeName).toBe(`pvc-${uid}`);
    expect(pvc.metadata?.annotations).toMatchObject({
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
      'volume.kubernetes.io/storage-provisioner': 'kube-sim.io/hostpath',
    });
    expect(pvc.status).toMatchObject({
      phase: 'Bound',
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: '1Gi' },
    });

    const pv = await c.core.readPersistentVolume({ name: `pvc-${uid}` });
    expect(pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by']).toBe('kube-sim.io/hostpath');
    expect(pv.spec).toMatchObject({
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'standard',
      hostPath: { path: `/var/lib/kube-sim/pvc-${uid}` },
      claimRef: { kind: 'PersistentVolumeClaim', namespace: ns, name: 'data', uid, apiVersion: 'v1' },
    });
    expect(pv.spec?.claimRef?.resourceVersion).toMatch(/^\d+$/);
    expect(pv.status?.phase).toBe('Bound');
    const events = await eventsFor(c, ns, 'data');
    expect(events.map((e) => e.reason)).toContain('ProvisioningSucceeded');

    // Reclaim policy Delete: the volume goes with its claim.
    await c.core.deleteNamespacedPersistentVolumeClaim({ namespace: ns, name: 'data' });
    await until(
      async () => (await statusOf(c.core.readPersistentVolume({ name: `pvc-${uid}` }))).code === 404,
      'the provisioned volume deleted',
    );
  });

  it('binds a claim to the Available volume its volumeName names, and releases it on Retain', async () => {
    await c.core.createPersistentVolume({
      body: {
        metadata: { name: 'static-pv' },
        spec: {
          capacity: { storage: '5Gi' },
          accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
          hostPath: { path: '/data/static' },
        },
      },
    });
    await until(
      async () => (await c.core.readPersistentVolume({ name: 'static-pv' })).status?.phase === 'Available',
      'static-pv Available',
    );
    // storageClassName "" opts out of the default class, as it must on a real cluster.
    await claim('static', { storageClassName: '', volumeName: 'static-pv' });
    const pvc = await bound('static');
    expect(pvc.metadata?.annotations?.['pv.kubernetes.io/bind-completed']).toBe('yes');
    // The user chose the volume: the claim is not marked bound-by-controller, the volume is.
    expect(pvc.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller']).toBeUndefined();
    expect(pvc.status?.capacity).toEqual({ storage: '5Gi' });
    expect(pvc.status?.accessModes).toEqual(['ReadWriteOnce', 'ReadOnlyMany']);
    const pv = await c.core.readPersistentVolume({ name: 'static-pv' });
    expect(pv.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller']).toBe('yes');
    expect(pv.spec?.claimRef).toMatchObject({ namespace: ns, name: 'static', uid: pvc.metadata?.uid });
    expect(pv.status?.phase).toBe('Bound');

    await c.core.deleteNamespacedPersistentVolumeClaim({ namespace: ns, name: 'static' });
    const released = await until(async () => {
      const v = await c.core.readPersistentVolume({ name: 'static-pv' });
      return v.status?.phase === 'Released' && v;
    }, 'static-pv Released');
    expect(released.spec?.persistentVolumeReclaimPolicy).toBe('Retain');
    expect(released.spec?.claimRef?.name).toBe('static');
  });

  it('keeps a claim to a volume that does not fit Pending, with a VolumeMismatch event', async () => {
    await c.core.createPersistentVolume({
      body: {
        metadata: { name: 'tiny-pv' },
        spec: {
          capacity: { storage: '100Mi' },
          accessModes: ['ReadWriteOnce'],
          hostPath: { path: '/data/tiny' },
        },
      },
    });
    await claim('too-big', { storageClassName: '', volumeName: 'tiny-pv' });
    const event = await until(
      async () => (await eventsFor(c, ns, 'too-big')).find((e) => e.reason === 'VolumeMismatch'),
      'VolumeMismatch event',
    );
    expect(event.message).toBe('Cannot bind to requested volume "tiny-pv": requested PV is too small');
    expect(event.type).toBe('Warning');
    const pvc = await c.core.readNamespacedPersistentVolumeClaim({ namespace: ns, name: 'too-big' });
    expect(pvc.status?.phase).toBe('Pending');
  });

  it('keeps a claim whose StorageClass does not exist Pending, and binds it once the class appears', async () => {
    await claim('orphan', { storageClassName: 'missing' });
    const event = await until(
      async () => (await eventsFor(c, ns, 'orphan')).find((e) => e.reason === 'ProvisioningFailed'),
      'ProvisioningFailed event',
    );
    expect(event).toMatchObject({
      type: 'Warning',
      message: 'storageclass.storage.k8s.io "missing" not found',
      source: { component: 'persistentvolume-controller' },
      involvedObject: { kind: 'PersistentVolumeClaim', name: 'orphan', namespace: ns },
    });
    await stays(
      async () =>
        (await c.core.readNamespacedPersistentVolumeClaim({ namespace: ns, name: 'orphan' })).status
          ?.phase === 'Pending',
      60,
      'the claim Pending while its class is missing',
    );
    await c.storage.createStorageClass({
      body: { metadata: { name: 'missing' }, provisioner: 'example.com/disk', reclaimPolicy: 'Retain' },
    });
    const pvc = await bound('orphan');
    const pv = await c.core.readPersistentVolume({ name: pvc.spec!.volumeName! });
    expect(pv.spec?.persistentVolumeReclaimPolicy).toBe('Retain');
    expect(pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by']).toBe('example.com/disk');

    // A provisioned volume whose class retains it is Released, not deleted, with its claim.
    await c.core.deleteNamespacedPersistentVolumeClaim({ namespace: ns, name: 'orphan' });
    const released = await until(async () => {
      const v = await c.core.readPersistentVolume({ name: pv.metadata!.name! });
      return v.status?.phase === 'Released' && v;
    }, 'retained volume Released');
    expect(released.spec?.claimRef?.name).toBe('orphan');
  });

  it('binds a WaitForFirstConsumer claim only once a Pod uses it', async () => {
    await c.storage.createStorageClass({
      body: {
        metadata: { name: 'late' },
        provisioner: 'kube-sim.io/hostpath',
        volumeBindingMode: 'WaitForFirstConsumer',
      },
    });
    await claim('lazy', { storageClassName: 'late' });
    const waiting = await until(
      async () => (await eventsFor(c, ns, 'lazy')).find((e) => e.reason === 'WaitForFirstConsumer'),
      'WaitForFirstConsumer event',
    );
    expect(waiting.message).toBe('waiting for first consumer to be created before binding');
    expect(
      (await c.core.readNamespacedPersistentVolumeClaim({ namespace: ns, name: 'lazy' })).status?.phase,
    ).toBe('Pending');
    await c.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'consumer' },
        spec: {
          containers: [{ name: 'c', image: 'busybox:1.36', volumeMounts: [{ name: 'd', mountPath: '/d' }] }],
          volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'lazy' } }],
        },
      },
    });
    expect((await bound('lazy')).spec?.volumeName).toMatch(/^pvc-/);
  });
});

describe('kube-sim Job controller', () => {
  let c: SimClients;
  const ns = 'jobs';

  beforeAll(async () => {
    c = await startSimWithClients({
      settings: { jobRunMs: 100, podReadyDelayMs: 10, failingJobImages: ['registry.example/fails:*'] },
    });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  const finished = (name: string, type: 'Complete' | 'Failed') =>
    until(async () => {
      const job = await c.batch.readNamespacedJob({ namespace: ns, name });
      return hasCondition(job, type) && job;
    }, `job ${name} ${type}`);
  const podsOf = async (job: string) =>
    (await c.core.listNamespacedPod({ namespace: ns, labelSelector: `job-name=${job}` })).items;

  it('runs a Job to completion: pods from the template, SuccessCriteriaMet then Complete', async () => {
    const created = await c.batch.createNamespacedJob({
      namespace: ns,
      body: jobBody('once', { completions: 3, parallelism: 2 }),
    });
    const job = await finished('once', 'Complete');
    expect(conditionTypes(job)).toEqual(['SuccessCriteriaMet', 'Complete']);
    for (const condition of job.status!.conditions!) {
      expect(condition).toMatchObject({
        status: 'True',
        reason: 'CompletionsReached',
        message: 'Reached expected number of succeeded pods',
      });
    }
    expect(job.status).toMatchObject({ succeeded: 3, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
    expect(job.status?.active).toBeUndefined();
    expect(job.status?.failed).toBeUndefined();
    expect(job.status?.startTime).toBeInstanceOf(Date);
    expect(job.status?.completionTime).toBeInstanceOf(Date);

    const pods = await podsOf('once');
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.metadata?.name).toMatch(POD_NAME);
      expect(pod.metadata?.name?.startsWith('once-')).toBe(true);
      expect(pod.status?.phase).toBe('Succeeded');
      expect(pod.metadata?.labels).toMatchObject({
        'job-name': 'once',
        'batch.kubernetes.io/job-name': 'once',
        'controller-uid': created.metadata?.uid,
        'batch.kubernetes.io/controller-uid': created.metadata?.uid,
      });
      expect(pod.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          name: 'once',
          uid: created.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      // Counted pods are released from the job-tracking finalizer.
      expect(pod.metadata?.finalizers ?? []).not.toContain('batch.kubernetes.io/job-tracking');
    }
    const reasons = (await eventsFor(c, ns, 'once')).map((e) => e.reason);
    expect(reasons).toContain('SuccessfulCreate');
    expect(reasons).toContain('Completed');
  });

  it('fails a Job once its pods failed more than backoffLimit times', async () => {
    await c.batch.createNamespacedJob({
      namespace: ns,
      body: jobBody('crashy', { backoffLimit: 2 }, 'registry.example/fails:1'),
    });
    const job = await finished('crashy', 'Failed');
    expect(conditionTypes(job)).toEqual(['FailureTarget', 'Failed']);
    const failedCondition = job.status!.conditions!.find((x) => x.type === 'Failed')!;
    expect(failedCondition).toMatchObject({
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    });
    expect(job.status?.failed).toBe(3);
    expect(job.status?.succeeded).toBeUndefined();
    expect(job.status?.completionTime).toBeUndefined();
    const pods = await podsOf('crashy');
    expect(pods.map((p) => p.status?.phase)).toEqual(['Failed', 'Failed', 'Failed']);
    const event = (await eventsFor(c, ns, 'crashy')).find((e) => e.reason === 'BackoffLimitExceeded');
    expect(event?.type).toBe('Warning');
  });

  it('deletes a finished Job after ttlSecondsAfterFinished, and the garbage collector its pods', async () => {
    await c.batch.createNamespacedJob({
      namespace: ns,
      body: jobBody('short-lived', { ttlSecondsAfterFinished: 0 }),
    });
    await until(
      async () =>
        (await statusOf(c.batch.readNamespacedJob({ namespace: ns, name: 'short-lived' }))).code === 404,
      'the Job deleted by its TTL',
    );
    await until(async () => (await podsOf('short-lived')).length === 0, 'its pods garbage-collected');
  });

  it('waits with the pods of a Job created suspended, and runs them once resumed', async () => {
    await c.batch.createNamespacedJob({ namespace: ns, body: jobBody('held', { suspend: true }) });
    const suspended = await until(async () => {
      const job = await c.batch.readNamespacedJob({ namespace: ns, name: 'held' });
      return hasCondition(job, 'Suspended') && job;
    }, 'Suspended condition');
    expect(suspended.status?.conditions?.[0]).toMatchObject({
      reason: 'JobSuspended',
      message: 'Job suspended',
    });
    expect(suspended.status?.startTime).toBeUndefined();
    expect(await podsOf('held')).toEqual([]);

    await c.batch.patchNamespacedJob(
      { namespace: ns, name: 'held', body: { spec: { suspend: false } } },
      MERGE,
    );
    const job = await finished('held', 'Complete');
    expect(job.status?.conditions?.find((x) => x.type === 'Suspended')).toMatchObject({
      status: 'False',
      reason: 'JobResumed',
      message: 'Job resumed',
    });
    expect(job.status?.startTime).toBeInstanceOf(Date);
    expect(job.status?.succeeded).toBe(1);
  });
});

describe('kube-sim Jobs that run long: activeDeadlineSeconds and suspension', () => {
  let c: SimClients;
  const ns = 'long';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { jobRunMs: 120_000, podReadyDelayMs: 10 } });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  const podsOf = async (job: string) =>
    (await c.core.listNamespacedPod({ namespace: ns, labelSelector: `job-name=${job}` })).items;

  it('fails a Job active longer than activeDeadlineSeconds and deletes its pods', async () => {
    await c.batch.createNamespacedJob({ namespace: ns, body: jobBody('slow', { activeDeadlineSeconds: 1 }) });
    // No wait for the pod itself: startTime is whole seconds, so the deadline may pass (and the
    // pod go) before a poll under load sees it; `failed: 1` below counts the pod it deleted.
    const job = await until(
      async () => {
        const j = await c.batch.readNamespacedJob({ namespace: ns, name: 'slow' });
        return hasCondition(j, 'Failed') && j;
      },
      'DeadlineExceeded',
      { timeoutMs: 10_000 },
    );
    expect(conditionTypes(job)).toEqual(['FailureTarget', 'Failed']);
    expect(job.status?.conditions?.[1]).toMatchObject({
      reason: 'DeadlineExceeded',
      message: 'Job was active longer than specified deadline',
    });
    expect(job.status?.failed).toBe(1);
    expect(job.status?.active).toBeUndefined();
    await until(async () => (await podsOf('slow')).length === 0, 'its active pod deleted');
  });

  it('deletes the active pods of a Job being suspended, without counting them as failed', async () => {
    await c.batch.createNamespacedJob({
      namespace: ns,
      body: jobBody('pausable', { parallelism: 2, completions: 2 }),
    });
    await until(
      async () => (await c.batch.readNamespacedJob({ namespace: ns, name: 'pausable' })).status?.active === 2,
      '2 active',
    );
    await c.batch.patchNamespacedJob(
      { namespace: ns, name: 'pausable', body: { spec: { suspend: true } } },
      MERGE,
    );
    const job = await until(async () => {
      const j = await c.batch.readNamespacedJob({ namespace: ns, name: 'pausable' });
      return hasCondition(j, 'Suspended') && j.status?.active === undefined && j;
    }, 'suspended, no active pods');
    expect(job.status?.failed).toBeUndefined();
    await until(async () => (await podsOf('pausable')).length === 0, 'pods deleted');
  });

  it('releases the job-tracking finalizer of a running Job’s pods when their namespace goes', async () => {
    await c.core.createNamespace({ body: { metadata: { name: 'doomed-jobs' } } });
    await c.batch.createNamespacedJob({ namespace: 'doomed-jobs', body: jobBody('busy') });
    const pod = await until(async () => {
      const pods = (await c.core.listNamespacedPod({ namespace: 'doomed-jobs' })).items;
      return pods[0]?.status?.phase === 'Running' && pods[0];
    }, 'the pod running');
    expect(pod.metadata?.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);
    await c.core.deleteNamespace({ name: 'doomed-jobs' });
    await until(
      async () => (await statusOf(c.core.readNamespace({ name: 'doomed-jobs' }))).code === 404,
      'the namespace gone',
    );
  });
});

describe('kube-sim CronJob controller', () => {
  let c: SimClients;
  const ns = 'cron';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { jobRunMs: 50, podReadyDelayMs: 10 } });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  const cronJob = (name: string, spec: Partial<k8s.V1CronJobSpec> = {}) =>
    c.batch.createNamespacedCronJob({
      namespace: ns,
      body: {
        metadata: { name },
        spec: {
          // Once a year: the schedule itself does not fire while the test triggers runs.
          schedule: '0 0 1 1 *',
          jobTemplate: {
            metadata: { labels: { app: name }, annotations: { team: 'ops' } },
            spec: {
              template: {
                spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox:1.36' }] },
              },
            },
          },
          ...spec,
        },
      },
    });

  it('creates the Job a scheduled run would, and records it in the CronJob status', async () => {
    const cj = await cronJob('nightly', { timeZone: 'Etc/UTC' });
    const before = Date.now();
    const created = c.sim.triggerCronJob(ns, 'nightly');
    const minutes = Math.floor(before / 60_000);
    expect(created.metadata.name).toMatch(/^nightly-\d+$/);
    expect(Number(created.metadata.name!.slice('nightly-'.length))).toBeGreaterThanOrEqual(minutes);

    const job = await c.batch.readNamespacedJob({ namespace: ns, name: created.metadata.name! });
    expect(job.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        name: 'nightly',
        uid: cj.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(job.metadata?.labels?.app).toBe('nightly');
    expect(job.metadata?.annotations?.team).toBe('ops');
    const scheduled = job.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'];
    expect(scheduled).toBe(
      new Date(Number(created.metadata.name!.slice(8)) * 60_000).toISOString().replace('.000Z', 'Z'),
    );

    const status = (await c.batch.readNamespacedCronJob({ namespace: ns, name: 'nightly' })).status;
    expect(status?.lastScheduleTime?.toISOString()).toBe(new Date(Date.parse(scheduled!)).toISOString());
    expect(status?.active).toEqual([
      expect.objectContaining({
        kind: 'Job',
        namespace: ns,
        name: job.metadata?.name,
        uid: job.metadata?.uid,
        apiVersion: 'batch/v1',
      }),
    ]);

    // Once the Job completes it leaves status.active, and lastSuccessfulTime follows it.
    const done = await until(async () => {
      const s = (await c.batch.readNamespacedCronJob({ namespace: ns, name: 'nightly' })).status;
      return s?.active === undefined && s?.lastSuccessfulTime && s;
    }, 'the run recorded as successful');
    const completed = await c.batch.readNamespacedJob({ namespace: ns, name: created.metadata.name! });
    expect(done.lastSuccessfulTime?.toISOString()).toBe(completed.status?.completionTime?.toISOString());
    const reasons = (await eventsFor(c, ns, 'nightly')).map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['SuccessfulCreate', 'SawCompletedJob']));
  });

  it('writes the scheduled time in the CronJob’s time zone', async () => {
    await cronJob('india', { timeZone: 'Asia/Kolkata' });
    const job = c.sim.triggerCronJob(ns, 'india');
    const scheduled = job.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'];
    expect(scheduled).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\+05:30$/);
    expect(Date.parse(scheduled!)).toBe(Number(job.metadata.name!.slice('india-'.length)) * 60_000);
  });

  it('refuses to run a suspended CronJob', async () => {
    await cronJob('paused', { suspend: true });
    expect(() => c.sim.triggerCronJob(ns, 'paused')).toThrow(/suspended/);
    expect((await c.batch.listNamespacedJob({ namespace: ns, labelSelector: 'app=paused' })).items).toEqual(
      [],
    );
  });

  it('keeps successfulJobsHistoryLimit finished Jobs', async () => {
    await cronJob('trimmed', { successfulJobsHistoryLimit: 1 });
    const first = c.sim.triggerCronJob(ns, 'trimmed');
    await until(
      async () =>
        hasCondition(
          await c.batch.readNamespacedJob({ namespace: ns, name: first.metadata.name! }),
          'Complete',
        ),
      'first run complete',
    );
    const second = c.sim.triggerCronJob(ns, 'trimmed');
    expect(second.metadata.name).not.toBe(first.metadata.name);
    await until(async () => {
      const jobs = (await c.batch.listNamespacedJob({ namespace: ns, labelSelector: 'app=trimmed' })).items;
      return (
        jobs.length === 1 &&
        jobs[0]!.metadata?.name === second.metadata.name &&
        hasCondition(jobs[0]!, 'Complete')
      );
    }, 'only the newest finished Job kept');
  });
});

describe('kube-sim CronJob concurrency policies', () => {
  let c: SimClients;
  const ns = 'concurrency';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { jobRunMs: 120_000, podReadyDelayMs: 10 } });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  const cronJob = (name: string, concurrencyPolicy: string) =>
    c.batch.createNamespacedCronJob({
      namespace: ns,
      body: {
        metadata: { name },
        spec: {
          // Once a year: the schedule itself does not fire while the test triggers runs.
          schedule: '0 0 1 1 *',
          concurrencyPolicy,
          jobTemplate: {
            spec: {
              template: {
                spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36' }] },
              },
            },
          },
        },
      },
    });

  it('Forbid skips a run while the previous one is active', async () => {
    await cronJob('single', 'Forbid');
    const first = c.sim.triggerCronJob(ns, 'single');
    expect(() => c.sim.triggerCronJob(ns, 'single')).toThrow(/Forbid/);
    const jobs = (await c.batch.listNamespacedJob({ namespace: ns })).items.filter((j) =>
      j.metadata?.name?.startsWith('single-'),
    );
    expect(jobs.map((j) => j.metadata?.name)).toEqual([first.metadata.name]);
    const event = await until(
      async () => (await eventsFor(c, ns, 'single')).find((e) => e.reason === 'JobAlreadyActive'),
      'JobAlreadyActive event',
    );
    expect(event.message).toBe(
      'Not starting job because prior execution is running and concurrency policy is Forbid',
    );
  });

  it('Replace deletes the active run before starting the next', async () => {
    await cronJob('latest', 'Replace');
    const first = c.sim.triggerCronJob(ns, 'latest');
    const second = c.sim.triggerCronJob(ns, 'latest');
    expect(
      (await statusOf(c.batch.readNamespacedJob({ namespace: ns, name: first.metadata.name! }))).code,
    ).toBe(404);
    const status = (await c.batch.readNamespacedCronJob({ namespace: ns, name: 'latest' })).status;
    expect(status?.active?.map((r) => r.name)).toEqual([second.metadata.name]);
  });
});

describe('kube-sim pod logs', () => {
  let c: SimClients;
  let cli: KubeCli;
  const ns = 'logs';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { jobRunMs: 100, podReadyDelayMs: 10 } });
    cli = await kubeCli(c.sim);
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
    c.sim.settings.podLogs.set(`${ns}/web`, ['starting', 'listening on :8080', 'ready']);
    c.sim.settings.podLogs.set(`${ns}/job:migrate`, ['migrating', 'done']);
  });
  afterAll(() => c.sim.stop());

  const running = (name: string) =>
    until(async () => {
      const pod = await c.core.readNamespacedPod({ namespace: ns, name });
      return pod.status?.phase === 'Running' && pod;
    }, `pod ${name} Running`);

  it('serves a Pod’s lines, with tailLines and timestamps', async () => {
    await c.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } },
    });
    await running('web');
    expect(await c.core.readNamespacedPodLog({ namespace: ns, name: 'web' })).toBe(
      'starting\nlistening on :8080\nready\n',
    );
    expect(
      await c.core.readNamespacedPodLog({ namespace: ns, name: 'web', container: 'app', tailLines: 1 }),
    ).toBe('ready\n');
    const stamped = await c.core.readNamespacedPodLog({ namespace: ns, name: 'web', timestamps: true });
    expect(stamped.split('\n').filter(Boolean)).toHaveLength(3);
    for (const line of stamped.split('\n').filter(Boolean))
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z (starting|listening on :8080|ready)$/);

    const logs = await cli.kubectl(['logs', 'web', '-n', ns]);
    expect(logs.stderr).toBe('');
    expect(logs.stdout).toBe('starting\nlistening on :8080\nready\n');
  });

  it('serves a Job’s lines for each of its Pods, and kubectl waits for the Job to complete', async () => {
    const applied = await cli.kubectl(
      ['apply', '-f', '-'],
      `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: ${ns}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: busybox:1.36
`,
    );
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toBe('job.batch/migrate created');
    const waited = await cli.kubectl([
      'wait',
      '--for=condition=complete',
      'job/migrate',
      '-n',
      ns,
      '--timeout=20s',
    ]);
    expect(waited.stderr).toBe('');
    expect(waited.code).toBe(0);
    expect(waited.stdout.trim()).toBe('job.batch/migrate condition met');
    const logs = await cli.kubectl(['logs', 'job/migrate', '-n', ns]);
    expect(logs.stdout).toBe('migrating\ndone\n');
  });

  it('refuses an ambiguous or unknown container, and a container still waiting to start', async () => {
    await c.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'pair' },
        spec: {
          initContainers: [{ name: 'setup', image: 'busybox:1.36' }],
          containers: [
            { name: 'a', image: 'busybox:1.36' },
            { name: 'b', image: 'busybox:1.36' },
          ],
        },
      },
    });
    expect(await statusOf(c.core.readNamespacedPodLog({ namespace: ns, name: 'pair' }))).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'a container name must be specified for pod pair, choose one of: [a b] or one of the init containers: [setup]',
    });
    expect(
      await statusOf(c.core.readNamespacedPodLog({ namespace: ns, name: 'pair', container: 'c' })),
    ).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'container c is not valid for pod pair',
    });
    expect(
      await statusOf(
        c.core.readNamespacedPodLog({ namespace: ns, name: 'pair', container: 'a', tailLines: -1 }),
      ),
    ).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'PodLogOptions "pair" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
    });

    c.sim.settings.podReadyDelayMs = 60_000;
    try {
      await c.core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name: 'slow-start' },
          spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] },
        },
      });
      const refused = await until(async () => {
        const status = await statusOf(c.core.readNamespacedPodLog({ namespace: ns, name: 'slow-start' }));
        return status.code === 400 && status;
      }, 'the kubelet refusing a container not started');
      expect(refused.message).toMatch(/^container "c" in pod "slow-start" is waiting to start: \w+/);
    } finally {
      c.sim.settings.podReadyDelayMs = 10;
    }
  });

  it('follows a Pod’s log until the Pod finishes (k8s.Log, follow=true)', async () => {
    const key = `${ns}/job:tail`;
    c.sim.settings.podLogs.set(key, ['first']);
    c.sim.settings.jobRunMs = 1_500;
    try {
      await c.batch.createNamespacedJob({ namespace: ns, body: jobBody('tail') });
      const pod = await until(async () => {
        const pods = (await c.core.listNamespacedPod({ namespace: ns, labelSelector: 'job-name=tail' }))
          .items;
        return pods[0]?.status?.phase === 'Running' && pods[0];
      }, 'the Job’s pod Running');
      const out = new PassThrough();
      let text = '';
      out.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      const ended = new Promise<void>((resolve) => out.on('end', () => resolve()));
      await new k8s.Log(c.kc).log(ns, pod.metadata!.name!, 'main', out, { follow: true });
      await until(() => text === 'first\n', 'the first line');
      c.sim.settings.podLogs.get(key)!.push('second', 'third');
      await until(() => text === 'first\nsecond\nthird\n', 'lines appended while following');
      await within(ended, 10_000, 'the follow to end with the Pod');
      expect(text).toBe('first\nsecond\nthird\n');
      const finished = await c.core.readNamespacedPod({ namespace: ns, name: pod.metadata!.name! });
      expect(finished.status?.phase).toBe('Succeeded');
    } finally {
      c.sim.settings.jobRunMs = 100;
    }
  });
});

/**
 * A Job's podFailurePolicy and the back-off between pod retries in kube-sim's Job controller
 * (upstream pkg/controller/job pod_failure_policy.go, backoff_utils.go; pkg/apis/batch/validation),
 * through the real @kubernetes/client-node. Containers exit with the code their command gives
 * (`sh -c 'exit 42'`), as the simulated kubelet runs them.
 */
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultControllerSettings } from '../../../infra/kube-sim/controllers/settings.ts';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

type Rule = k8s.V1PodFailurePolicyRule;

function jobBody(name: string, exitCode: number, spec: Partial<k8s.V1JobSpec> = {}): k8s.V1Job {
  return {
    metadata: { name },
    spec: {
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', `exit ${exitCode}`] }],
        },
      },
      ...spec,
    },
  };
}

const policy = (...rules: Rule[]): Partial<k8s.V1JobSpec> => ({ podFailurePolicy: { rules } });
const exitCodes = (action: string, operator: string, values: number[], containerName?: string): Rule => ({
  action,
  onExitCodes: { operator, values, ...(containerName ? { containerName } : {}) },
});
const conditionTypes = (job: k8s.V1Job) => (job.status?.conditions ?? []).map((c) => c.type);
const hasCondition = (job: k8s.V1Job, type: string) =>
  (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

describe('kube-sim Job podFailurePolicy', () => {
  let c: SimClients;
  const ns = 'failure-policy';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { podReadyDelayMs: 10 } });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  const finished = (name: string, type: string) =>
    until(async () => {
      const job = await c.batch.readNamespacedJob({ namespace: ns, name });
      return hasCondition(job, type) && job;
    }, `job ${name} ${type}`);
  const podsOf = async (job: string) =>
    (await c.core.listNamespacedPod({ namespace: ns, labelSelector: `job-name=${job}` })).items;

  it('fails the Job at once when a pod matches a FailJob rule, with upstream reason and message', async () => {
    await c.batch.createNamespacedJob({
      namespace: ns,
      body: jobBody(
        'fatal',
        42,
        policy(exitCodes('Ignore', 'In', [3]), exitCodes('FailJob', 'In', [40, 42], 'main')),
      ),
    });
    const job = await finished('fatal', 'Failed');
    const pods = await podsOf('fatal');
    // backoffLimit defaults to 6: only the policy ends the Job after one pod.
    expect(job.spec?.backoffLimit).toBe(6);
    expect(job.spec?.podReplacementPolicy).toBe('Failed');
    expect(pods).toHaveLength(1);
    const pod = pods[0]!;
    expect(conditionTypes(job)).toEqual(['FailureTarget', 'Failed']);
    const message = `Container main for pod ${ns}/${pod.metadata?.name} failed with exit code 42 matching FailJob rule at index 1`;
    for (const condition of job.status!.conditions!)
      expect(condition).toMatchObject({ status: 'True', reason: 'PodFailurePolicy', message });
    expect(job.status?.failed).toBe(1);
  });

  it('does not count failures an Ignore rule matches against backoffLimit, and replaces the pods', async () => {
    await c.batch.createNamespacedJob({
      namespace: ns,
      body: jobBody('ignored', 3, { backoffLimit: 0, ...policy(exitCodes('Ignore', 'In', [3])) }),
    });
    // With backoffLimit 0 a counted failure would end the Job after the first pod.
    await until(
      async () => (await podsOf('ignored')).filter((p) => p.status?.phase === 'Failed').length >= 3,
      'three ignored pod failures',
    );
    const job = await c.batch.readNamespacedJob({ namespace: ns, name: 'ignored' });
    expect(job.status?.failed).toBeUndefined();
    expect(conditionTypes(job)).not.toContain('FailureTarget');
    expect(conditionTypes(job)).not.toContain('Failed');
    await c.batch.deleteNamespacedJob({ namespace: ns, name: 'ignored', propagationPolicy: 'Foreground' });
  });

  it('counts failures a Count rule (or no rule) matches, up to backoffLimit', async () => {
    await c.batch.createNamespacedJob({
      namespace: ns,
      body: jobBody('counted', 5, {
        backoffLimit: 1,
        // NotIn [5] does not match exit code 5, so the Count rule decides.
        ...policy(exitCodes('FailJob', 'NotIn', [5]), exitCodes('Count', 'In', [5])),
      }),
    });
    const job = await finished('counted', 'Failed');
    expect(job.status?.failed).toBe(2);
    expect(job.status!.conditions!.find((x) => x.type === 'Failed')).toMatchObject({
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    });
    expect(await podsOf('counted')).toHaveLength(2);
  });

  it('rejects an invalid policy with 422 and upstream messages', async () => {
    const body = jobBody('bad', 1, {
      podFailurePolicy: {
        rules: [
          exitCodes('Bogus', 'In', [0, 5, 5, 3]),
          { action: 'FailIndex' },
          // An omitted status defaults to True (SetDefaults_Job), so only a wrong one is an error.
          { action: 'Ignore', onPodConditions: [{ type: 'Disruption Target', status: 'Maybe' }] },
          exitCodes('Count', 'Maybe', [1], 'nope'),
          {
            ...exitCodes('Count', 'In', [1]),
            onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }],
          },
        ],
      },
    });
    body.spec!.template.spec!.restartPolicy = 'OnFailure';
    const status = await statusOf(c.batch.createNamespacedJob({ namespace: ns, body }));
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    const causes = (status.details?.causes ?? []) as { field: string; message: string }[];
    const r = 'spec.podFailurePolicy.rules';
    expect(causes).toEqual(
      expect.arrayContaining([
        {
          reason: 'FieldValueNotSupported',
          field: `${r}[0].action`,
          message: 'Unsupported value: "Bogus": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${r}[0].onExitCodes.values[0]`,
          message: 'Invalid value: 0: must not be 0 for the In operator',
        },
        {
          reason: 'FieldValueDuplicate',
          field: `${r}[0].onExitCodes.values[2]`,
          message: 'Duplicate value: 5',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${r}[0].onExitCodes.values`,
          message: 'Invalid value: [0,5,5,3]: must be ordered',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${r}[1].action`,
          message: 'Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${r}[1]`,
          message: 'Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${r}[2].onPodConditions[0].type`,
          message:
            "Invalid value: \"Disruption Target\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        },
        {
          reason: 'FieldValueNotSupported',
          field: `${r}[2].onPodConditions[0].status`,
          message: 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
        },
        {
          reason: 'FieldValueNotSupported',
          field: `${r}[3].onExitCodes.operator`,
          message: 'Unsupported value: "Maybe": supported values: "In", "NotIn"',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${r}[3].onExitCodes.containerName`,
          message:
            'Invalid value: "nope": must be one of the container or initContainer names in the pod template',
        },
        {
          reason: 'FieldValueInvalid',
          field: `${r}[4]`,
          message: 'Invalid value: specifying both OnExitCodes and OnPodConditions is not supported',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.template.spec.restartPolicy',
          message: 'Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified',
        },
      ]),
    );
  });

  it('rejects more than 20 rules', async () => {
    const rules = Array.from({ length: 21 }, () => exitCodes('Count', 'In', [1]));
    const status = await statusOf(
      c.batch.createNamespacedJob({ namespace: ns, body: jobBody('many', 1, policy(...rules)) }),
    );
    expect(status.code).toBe(422);
    expect(status.details?.causes).toEqual([
      {
        reason: 'FieldValueTooMany',
        field: 'spec.podFailurePolicy.rules',
        message: 'Too many: 21: must have at most 20 items',
      },
    ]);
  });
});

describe('kube-sim Job pod retry back-off', () => {
  let c: SimClients;
  const ns = 'job-backoff';

  // A one-second base: object timestamps have whole seconds, so a delay measured from the
  // recorded finishedAt shows in the next pod's creationTimestamp exactly.
  beforeAll(async () => {
    c = await startSimWithClients({
      settings: { podReadyDelayMs: 10, jobBackOffBaseMs: 1_000, jobBackOffMaxMs: 600_000 },
    });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  it('waits base * 2^(failures-1) after the last failure before creating the next pod', async () => {
    await c.batch.createNamespacedJob({ namespace: ns, body: jobBody('retry', 1, { backoffLimit: 2 }) });
    await until(async () => {
      const job = await c.batch.readNamespacedJob({ namespace: ns, name: 'retry' });
      return hasCondition(job, 'Failed') && job;
    }, 'the Job Failed after three pods');
    const pods = (await c.core.listNamespacedPod({ namespace: ns, labelSelector: 'job-name=retry' })).items;
    expect(pods).toHaveLength(3);
    pods.sort((a, b) => a.metadata!.creationTimestamp!.getTime() - b.metadata!.creationTimestamp!.getTime());
    const finishedAt = (pod: k8s.V1Pod) =>
      new Date(pod.status!.containerStatuses![0]!.state!.terminated!.finishedAt!).getTime();
    const createdAt = (pod: k8s.V1Pod) => pod.metadata!.creationTimestamp!.getTime();
    // After one failure the next pod waits the base; after two, twice the base.
    expect(createdAt(pods[1]!) - finishedAt(pods[0]!)).toBeGreaterThanOrEqual(1_000);
    expect(createdAt(pods[2]!) - finishedAt(pods[1]!)).toBeGreaterThanOrEqual(2_000);
  });

  it('is upstream’s 10 s base and 10 min cap by default, settable through the admin API', async () => {
    expect(defaultControllerSettings()).toMatchObject({ jobBackOffBaseMs: 10_000, jobBackOffMaxMs: 600_000 });
    const set = await fetch(`${c.sim.url}/__sim/settings`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jobBackOffMaxMs: 300_000 }),
    });
    expect(set.status).toBe(200);
    const now = await (await fetch(`${c.sim.url}/__sim/settings`)).json();
    expect(now).toMatchObject({ jobBackOffBaseMs: 1_000, jobBackOffMaxMs: 300_000 });
  });
});

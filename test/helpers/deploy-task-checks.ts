/**
 * What the deploy-task tests (release phase, postdeploy) read from kube-sim: the task's Job
 * `{app}-{phase}-{revision}`, when it finished, the app's ReplicaSets (unchanged means nothing of a
 * new version rolled out) and how many Jobs were created (a task that ran again creates one more).
 */
import type * as k8s from '@kubernetes/client-node';
import type { DeployFleet } from './deploy-fleet.ts';
import { until } from './wait.ts';

export type DeployTaskPhase = 'release' | 'postdeploy';

/** `fleet` is read when a check runs: the tests start their fleet in beforeAll. */
export function deployTaskChecks(fleet: () => DeployFleet, phase: DeployTaskPhase) {
  async function job(app: string, revision: number): Promise<k8s.V1Job | undefined> {
    return fleet()
      .batch.readNamespacedJob({ name: `${app}-${phase}-${revision}`, namespace: 'default' })
      .catch(() => undefined);
  }

  /** `Complete` or `Failed`, once the Job has that condition. */
  async function finished(app: string, revision: number): Promise<string> {
    return until(
      async () =>
        (await job(app, revision))?.status?.conditions?.find(
          (c) => c.status === 'True' && ['Complete', 'Failed'].includes(c.type),
        )?.type,
      `Job ${app}-${phase}-${revision} to finish`,
    );
  }

  async function replicaSetsOf(app: string): Promise<string[]> {
    const list = await fleet().apps.listNamespacedReplicaSet({
      namespace: 'default',
      labelSelector: `app.kubernetes.io/part-of=${app}`,
    });
    return list.items.map((rs) => rs.metadata!.name!).sort();
  }

  /** Job creates the simulator served (a create's path names no object: all of them, counted). */
  function jobCreates(): number {
    return fleet()
      .sim.requests.entries()
      .filter((r) => r.verb === 'create' && r.resource === 'batch/jobs').length;
  }

  return { job, finished, replicaSetsOf, jobCreates };
}

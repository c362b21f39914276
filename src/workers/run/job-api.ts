/**
 * The cluster side of a run: its Job and env Secret created (or found again by a retried
 * attempt), the Job started, its state read, and the Job deleted when its pod cannot start. Every
 * call goes through the in-attempt Kubernetes retry; the order makes a crash at any step safe:
 *
 *   create the Job (suspended when it has env) → record its uid (run-record.ts) →
 *   create the env Secret owned by it → unsuspend.
 *
 * A retried attempt finds the Job by its name (derived from the job id) and recognises it by the
 * `longshore.dev/job-id` annotation; it creates the Secret only if missing and unsuspends only if
 * still suspended. A pod never starts before its Secret exists (the Job is suspended until then),
 * and a Secret never exists without its owner (it is created after the Job, with its uid).
 */
import {
  type BatchV1Api,
  type CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1Job,
  type V1Pod,
  type V1Secret,
} from '@kubernetes/client-node';
import { type RenderedObject, RUN_JOB_ID_ANNOTATION } from '../../../charts/index.ts';
import { PermanentError } from '../../core/errors.ts';
import { isAlreadyExists, isNotFound } from '../../kube/errors.ts';
import { withKubeRetry } from '../../kube/retry.ts';

export interface RunJobRef {
  namespace: string;
  name: string;
  /** The longshore job that owns the run. */
  jobId: string;
}

export class RunJobApi {
  constructor(
    private readonly batch: BatchV1Api,
    private readonly core: CoreV1Api,
    private readonly ref: RunJobRef,
    private readonly signal: AbortSignal,
  ) {}

  private get where(): string {
    return `${this.ref.namespace}/${this.ref.name}`;
  }

  private retry<T>(what: string, call: () => Promise<T>): Promise<T> {
    return withKubeRetry(`${what} ${this.where}`, call, { signal: this.signal });
  }

  /** The Job, or undefined when there is none; refuses one that another job created. */
  async read(): Promise<V1Job | undefined> {
    const job = await this.readAny();
    if (job) this.checkOurs(job);
    return job;
  }

  /** The Job of this name, whoever created it (`isOurs` tells). */
  async readAny(): Promise<V1Job | undefined> {
    return this.retry('read batch/v1 Job', async () => {
      try {
        return await this.batch.readNamespacedJob({ namespace: this.ref.namespace, name: this.ref.name });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    });
  }

  /** Whether this job created it (by the `longshore.dev/job-id` annotation). */
  isOurs(job: V1Job): boolean {
    return job.metadata?.annotations?.[RUN_JOB_ID_ANNOTATION] === this.ref.jobId;
  }

  private checkOurs(job: V1Job): void {
    const owner = job.metadata?.annotations?.[RUN_JOB_ID_ANNOTATION];
    if (owner !== this.ref.jobId)
      throw new PermanentError(
        `Job ${this.where} exists but was not created by job ${this.ref.jobId} (${owner ? `it belongs to ${owner}` : 'longshore did not create it'})`,
      );
  }

  /** Creates the Job; one that a lost answer already created is returned as it is. */
  async create(body: RenderedObject): Promise<V1Job> {
    const created = await this.retry('create batch/v1 Job', async () => {
      try {
        return await this.batch.createNamespacedJob({ namespace: this.ref.namespace, body: body as V1Job });
      } catch (err) {
        if (isAlreadyExists(err)) return undefined;
        throw err;
      }
    });
    if (created) return created;
    const found = await this.read();
    if (!found) throw new PermanentError(`Job ${this.where} was deleted as it was being created`);
    return found;
  }

  /** Creates the env Secret; one already there must belong to this Job (by uid). */
  async ensureSecret(body: RenderedObject, uid: string): Promise<void> {
    const namespace = this.ref.namespace;
    const name = body.metadata.name;
    const existing = await this.retry('create v1 Secret', async () => {
      try {
        await this.core.createNamespacedSecret({ namespace, body: body as V1Secret });
        return undefined;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        return this.core.readNamespacedSecret({ namespace, name });
      }
    });
    if (existing && !(existing.metadata?.ownerReferences ?? []).some((o) => o.uid === uid))
      throw new PermanentError(
        `Secret ${namespace}/${name} exists but does not belong to Job ${this.where}: delete it, or run again`,
      );
  }

  async unsuspend(): Promise<void> {
    await this.retry('start (unsuspend) batch/v1 Job', () =>
      this.batch.patchNamespacedJob(
        { namespace: this.ref.namespace, name: this.ref.name, body: { spec: { suspend: false } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
  }

  /** The Job's pods, by the controller-uid label the API server gives them. */
  async pods(uid: string): Promise<V1Pod[]> {
    const list = await this.retry('list v1 Pods of Job', () =>
      this.core.listNamespacedPod({
        namespace: this.ref.namespace,
        labelSelector: `batch.kubernetes.io/controller-uid=${uid}`,
      }),
    );
    return list.items;
  }

  /** Deletes the Job; the garbage collector removes its pod and env Secret. */
  async delete(): Promise<void> {
    await this.retry('delete batch/v1 Job', async () => {
      try {
        await this.batch.deleteNamespacedJob({
          namespace: this.ref.namespace,
          name: this.ref.name,
          propagationPolicy: 'Background',
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
  }
}

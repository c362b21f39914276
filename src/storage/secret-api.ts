/**
 * The Secret verbs release storage uses, on one namespace, each retried on transient API errors
 * (withKubeRetry) and surfacing permanent ones with the server's message. The outcomes callers
 * branch on (AlreadyExists, NotFound, a failed delete precondition) come back as values, never as
 * errors to pattern-match.
 */
import { type CoreV1Api, PatchStrategy, setHeaderOptions, type V1Secret } from '@kubernetes/client-node';
import { isAlreadyExists, isConflict, isNotFound, kubeStatusOf } from '../kube/errors.ts';
import { type RetryOptions, withKubeRetry } from '../kube/retry.ts';

export type CreateOutcome = { created: V1Secret } | { exists: true };
export type DeleteOutcome = 'deleted' | 'gone' | 'changed';

export class SecretApi {
  private namespaceChecked = false;

  constructor(
    private readonly core: CoreV1Api,
    readonly namespace: string,
    private readonly retry: RetryOptions = {},
  ) {}

  private what(verb: string, name?: string): string {
    return `${verb} Secret ${this.namespace}/${name ?? ''}`;
  }

  /** Creates; AlreadyExists is an outcome. Creates the namespace when it is missing. */
  async create(secret: V1Secret): Promise<CreateOutcome> {
    const name = secret.metadata?.name ?? '';
    const attempt = () =>
      withKubeRetry(
        this.what('create', name),
        async (): Promise<CreateOutcome> => {
          try {
            return {
              created: await this.core.createNamespacedSecret({ namespace: this.namespace, body: secret }),
            };
          } catch (err) {
            if (isAlreadyExists(err)) return { exists: true };
            throw err;
          }
        },
        this.retry,
      );
    try {
      return await attempt();
    } catch (err) {
      // The first write into a fresh cluster: create the namespace, once, then write again.
      if (this.namespaceChecked || !isNamespaceMissing(err)) throw err;
      await this.ensureNamespace();
      return attempt();
    }
  }

  async ensureNamespace(): Promise<void> {
    await withKubeRetry(
      `create Namespace ${this.namespace}`,
      async () => {
        try {
          await this.core.createNamespace({ body: { metadata: { name: this.namespace } } });
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
      },
      this.retry,
    );
    this.namespaceChecked = true;
  }

  async get(name: string): Promise<V1Secret | undefined> {
    return withKubeRetry(
      this.what('get', name),
      async () => {
        try {
          return await this.core.readNamespacedSecret({ namespace: this.namespace, name });
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      },
      this.retry,
    );
  }

  /** Strategic merge patch (ownerReferences merge by uid); undefined when the Secret is gone. */
  patchStrategic(name: string, body: object): Promise<V1Secret | undefined> {
    return this.patch(name, body, PatchStrategy.StrategicMergePatch);
  }

  /** JSON merge patch (labels and annotations); undefined when the Secret is gone. */
  patchMerge(name: string, body: object): Promise<V1Secret | undefined> {
    return this.patch(name, body, PatchStrategy.MergePatch);
  }

  private patch(name: string, body: object, strategy: PatchStrategy): Promise<V1Secret | undefined> {
    return withKubeRetry(
      this.what('patch', name),
      async () => {
        try {
          return await this.core.patchNamespacedSecret(
            { namespace: this.namespace, name, body },
            setHeaderOptions('Content-Type', strategy),
          );
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      },
      this.retry,
    );
  }

  /** Replaces (with the resourceVersion in `secret`: a Conflict is retried by the caller's re-read). */
  replace(secret: V1Secret): Promise<V1Secret> {
    const name = secret.metadata?.name ?? '';
    return withKubeRetry(
      this.what('replace', name),
      () => this.core.replaceNamespacedSecret({ namespace: this.namespace, name, body: secret }),
      { ...this.retry, attempts: 1 },
    );
  }

  /**
   * Deletes; 'gone' when it was already absent, 'changed' when a precondition (uid or
   * resourceVersion) no longer holds — someone wrote it since it was looked at.
   */
  async delete(
    name: string,
    preconditions?: { uid?: string; resourceVersion?: string },
    propagationPolicy?: 'Background' | 'Foreground' | 'Orphan',
  ): Promise<DeleteOutcome> {
    return (await this.deleteWithRv(name, preconditions, propagationPolicy)).outcome;
  }

  /**
   * `delete` of a Secret an informer cache selects: the cache records the deletion, with the
   * deletion's resourceVersion when the answer carries it, so a cache fence covers it
   * (src/kube/cache-fence.ts).
   */
  async deleteCached(
    name: string,
    cache: { deleted(namespace: string, name: string, rv?: number, pending?: boolean): void },
    preconditions?: { uid?: string; resourceVersion?: string },
    propagationPolicy?: 'Background' | 'Foreground' | 'Orphan',
  ): Promise<DeleteOutcome> {
    const { outcome, rv } = await this.deleteWithRv(name, preconditions, propagationPolicy);
    cache.deleted(this.namespace, name, rv, outcome === 'deleted');
    return outcome;
  }

  private deleteWithRv(
    name: string,
    preconditions?: { uid?: string; resourceVersion?: string },
    propagationPolicy?: 'Background' | 'Foreground' | 'Orphan',
  ): Promise<{ outcome: DeleteOutcome; rv?: number }> {
    return withKubeRetry(
      this.what('delete', name),
      async (): Promise<{ outcome: DeleteOutcome; rv?: number }> => {
        try {
          // kube-apiserver answers a Secret's DELETE with a Status (the generic registry's
          // ReturnDeletedObject is off for Secrets), which has no resourceVersion; a kind that
          // returns the deleted object carries the deletion's. The cache takes the DELETED event's
          // otherwise (informer-cache.ts).
          const answer = await this.core.deleteNamespacedSecret({
            namespace: this.namespace,
            name,
            ...(preconditions || propagationPolicy
              ? {
                  body: {
                    ...(preconditions ? { preconditions } : {}),
                    ...(propagationPolicy ? { propagationPolicy } : {}),
                  },
                }
              : {}),
          });
          const rv = Number(answer?.metadata?.resourceVersion);
          return Number.isFinite(rv) && rv > 0 ? { outcome: 'deleted', rv } : { outcome: 'deleted' };
        } catch (err) {
          if (isNotFound(err)) return { outcome: 'gone' };
          if (preconditions && (isConflict(err) || kubeStatusOf(err)?.code === 409))
            return { outcome: 'changed' };
          throw err;
        }
      },
      this.retry,
    );
  }

  /** One page of a label-selected list (pages keep memory bounded: chunks are up to 1 MiB each). */
  async listPage(
    labelSelector: string,
    limit: number,
    cont?: string,
  ): Promise<{ items: V1Secret[]; cont?: string }> {
    const list = await withKubeRetry(
      `list Secrets ${this.namespace} ${labelSelector}`,
      () =>
        this.core.listNamespacedSecret({
          namespace: this.namespace,
          labelSelector,
          limit,
          ...(cont ? { _continue: cont } : {}),
        }),
      this.retry,
    );
    const next = list.metadata?._continue;
    return { items: list.items, ...(next ? { cont: next } : {}) };
  }

  /**
   * Every page of a label-selected list, in order, each handed to `visit`. A continue token the
   * API server no longer honours (410: it outlived the server's compaction, "The provided continue
   * parameter is too old") means listing again from the start, which is what the Kubernetes API
   * asks of a client (ListOptions.continue, k8s.io/apimachinery/pkg/apis/meta/v1/types.go); a
   * visitor may therefore see an item twice, and `onRestart` lets it drop what it gathered.
   * Bounded: the third expiry in one list is an error.
   */
  async forEachPage(
    labelSelector: string,
    limit: number,
    visit: (items: V1Secret[]) => Promise<void> | void,
    onRestart: () => void = () => undefined,
  ): Promise<void> {
    let cont: string | undefined;
    let restarts = 0;
    for (;;) {
      let page: { items: V1Secret[]; cont?: string };
      try {
        page = await this.listPage(labelSelector, limit, cont);
      } catch (err) {
        if (cont === undefined || !isExpiredContinue(err) || restarts >= MAX_LIST_RESTARTS) throw err;
        restarts++;
        cont = undefined;
        onRestart();
        continue;
      }
      await visit(page.items);
      if (!page.cont) return;
      cont = page.cont;
    }
  }
}

/** Lists started again after an expired continue token before giving up (forEachPage). */
const MAX_LIST_RESTARTS = 2;

/** 410 Gone on a page after the first: the continue token expired (wrapped by withKubeRetry or not). */
function isExpiredContinue(err: unknown): boolean {
  const cause = (err as { cause?: unknown })?.cause ?? err;
  return kubeStatusOf(cause)?.code === 410;
}

/** A create refused because the namespace does not exist (404 NotFound naming a namespace). */
function isNamespaceMissing(err: unknown): boolean {
  const cause = (err as { cause?: unknown })?.cause ?? err;
  const info = kubeStatusOf(cause);
  const details = info?.status?.details as { kind?: string } | undefined;
  return (
    info?.code === 404 &&
    (details?.kind === 'namespaces' || /namespaces? "[^"]+" not found/.test(info.status?.message ?? ''))
  );
}

/**
 * Namespaces this process has seen to exist (read or created by ensureNamespace), one set per
 * cluster connection, so an app's namespace is read once per worker and not on every deploy and
 * reconcile: a no-drift sync then reads nothing beyond the informers' watches.
 *
 * Bounded: past `capacity` names the least recently used one is forgotten (its next deploy reads
 * it again), so a fleet of any size costs a fixed amount of memory.
 *
 * The invalidation rule: the memo is only a belief. A namespace deleted by hand is noticed by the
 * next write into it, which the API server refuses with NotFound for the namespace itself
 * (the NamespaceLifecycle admission plugin: kubernetes plugin/pkg/admission/namespace/lifecycle/
 * admission.go, "refuse to operate on non-existent namespaces"), or with Forbidden
 * NamespaceTerminating while it is being deleted. Either drops the entry (forgetIfGone); the
 * NotFound becomes a NamespaceGoneError, transient, so the job's retry reads the namespace again
 * and creates it.
 */
import { TransientError } from '../../core/errors.ts';
import { kubeStatusOf } from '../../kube/errors.ts';

/** Names kept before the least recently used is forgotten: far more than one worker's apps. */
export const KNOWN_NAMESPACES_CAPACITY = 10_000;

export class KnownNamespaces {
  /** Insertion order is use order: the first name is the least recently used. */
  private readonly names = new Set<string>();

  constructor(private readonly capacity = KNOWN_NAMESPACES_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`KnownNamespaces capacity must be a positive integer, not ${capacity}`);
  }

  /** Whether `name` is known to exist; a hit makes it the most recently used. */
  has(name: string): boolean {
    if (!this.names.delete(name)) return false;
    this.names.add(name);
    return true;
  }

  /** `name` was read or created. */
  add(name: string): void {
    this.names.delete(name);
    this.names.add(name);
    if (this.names.size > this.capacity) {
      const oldest = this.names.values().next().value as string;
      this.names.delete(oldest);
    }
  }

  /** `name` may not exist any more: the next ensureNamespace reads it again. */
  forget(name: string): void {
    this.names.delete(name);
  }

  get size(): number {
    return this.names.size;
  }
}

/**
 * A write into `namespace` was refused because the namespace is gone (deleted since this process
 * read or created it). Transient: the retry creates it again.
 */
export class NamespaceGoneError extends TransientError {
  constructor(
    readonly namespace: string,
    options?: ErrorOptions,
  ) {
    super(
      `namespace ${namespace} no longer exists (deleted since longshore read or created it); ` +
        'the retry creates it again',
      undefined,
      options,
    );
  }
}

/**
 * How `err` (or an error it wraps, through `cause`) says `namespace` is not there to write into:
 * 'missing' (404 NotFound naming the namespace), 'terminating' (403 NamespaceTerminating), or
 * undefined for every other error, a 404 of an object in it included.
 */
export function namespaceGone(err: unknown, namespace: string): 'missing' | 'terminating' | undefined {
  // Bounded: a cause chain is short, and a cycle must not loop forever.
  let e: unknown = err;
  for (let depth = 0; depth < 10 && e; depth++) {
    const info = kubeStatusOf(e);
    const details = info?.status?.details as { kind?: string; name?: string } | undefined;
    if (info?.code === 404 && details?.kind === 'namespaces' && details.name === namespace) return 'missing';
    if (
      info?.code === 403 &&
      (info.status?.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating')
    )
      return 'terminating';
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Runs `writes` (into `namespace`, after ensureNamespace); when they fail because the namespace is
 * gone, forgets it, and turns a missing one into a NamespaceGoneError so the job is retried.
 * A terminating namespace fails as it did (the API server's own message): it is forgotten, so the
 * job after its deletion creates it.
 */
export async function forgetIfGone<T>(
  known: KnownNamespaces,
  namespace: string,
  writes: () => Promise<T>,
): Promise<T> {
  try {
    return await writes();
  } catch (err) {
    // Already said by a nested call (a fleet pull secret written inside the pipeline).
    if (err instanceof NamespaceGoneError) throw err;
    const gone = namespaceGone(err, namespace);
    if (gone) known.forget(namespace);
    if (gone === 'missing') throw new NamespaceGoneError(namespace, { cause: err });
    throw err;
  }
}

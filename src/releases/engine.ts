/**
 * The release engine: upgrade (install when absent), rollback, uninstall, history and status of
 * releases, on top of a ReleaseHistory (storage/release-history.ts) and a ReleaseCluster
 * (release-cluster.ts: live objects from informer caches, server-side apply). Both are interfaces,
 * so the decisions below are tested in memory (test/unit/releases/engine-decisions.test.ts).
 *
 * Semantics (docs in each helper):
 * - Same content as the deployed revision and no drift → nothing is written, no revision.
 * - Same content but drifted live objects (or objects an interrupted revision touched) → only
 *   those objects are re-applied (or deleted), and no revision is created: history records
 *   content, and the content did not change. Helm would not notice the drift at all.
 * - Otherwise a new `pending-*` revision, apply, delete, wait, then `deployed`.
 * - A `pending-*` last revision is never a lock: the same job (holder) continues it, any other
 *   marks it failed ("interrupted") and proceeds.
 * - An upgrade `onlyOver` a given revision (a writer outside the release's lane) is a
 *   compare-and-swap instead: it never interrupts another holder, checks the live objects on the
 *   API server, and writes each conditionally (ReleaseChangedError otherwise; checkOnlyOver).
 * - History never stores a Secret's values in clear: digests take their place (secret-values.ts),
 *   with the values sealed beside them when the engine has a seal key (sealed-values.ts). What is
 *   applied and compared with live objects is the rendered object; what is stored, and what the
 *   no-op check and the per-object plan compare, is its redacted form. A rollback opens the sealed
 *   values of its target; a value history keeps no sealed copy of comes from the live Secret, and
 *   the rollback refuses when it is not there any more.
 */
import type * as k8s from '@kubernetes/client-node';
import { InvalidInputError, NotFoundError, PermanentError, TransientError } from '../core/errors.ts';
import type { ReleaseHistory } from '../storage/release-history.ts';
import {
  type ObjectRef,
  PENDING_STATUSES,
  type ReleaseContent,
  type ReleaseObject,
  type ReleaseStatus,
  RevisionExistsError,
  type RevisionInfo,
} from '../storage/types.ts';
import { sortForApply, sortForDelete } from './apply-order.ts';
import { contentDigest, objectDigest } from './canonical.ts';
import { waitUntilDeleted } from './deletion-wait.ts';
import { findDrift } from './drift.ts';
import {
  BeforeApplyFailedError,
  BeforeApplyFailure,
  ReleaseChangedError,
  ReleaseFailedError,
  ReleaseInterruptedError,
  ReleaseNotFoundError,
  RevisionNotFoundError,
} from './errors.ts';
import { describeRef, keyOf, refOf, withReleaseLabels } from './objects.ts';
import { LiveObserver, type Observed } from './observe.ts';
import { decideRecovery, possiblyLive, rollbackDescription } from './plan.ts';
import { type Emit, progressEmitter } from './progress.ts';
import { hasPodTemplate } from './pull-secret-leaks.ts';
import { type RedactionReport, redactHistory } from './redact-history.ts';
import type { ReleaseCluster, WriteCondition } from './release-cluster.ts';
import { type PlanParts, planUninstall, planUpgrade, type ReleasePlan } from './release-plan.ts';
import {
  type Desired,
  type EngineParts,
  executeWork,
  finishRevision,
  otherRelease,
  planWork,
  type ResolvedWait,
  throwIfAborted,
} from './revision-runner.ts';
import { HistoryValueSealer } from './sealed-values.ts';
import {
  describeLost,
  isRedacted,
  isSecret,
  type LiveValues,
  redactContent,
  redactObject,
  sealedValuesOf,
  ValueDigester,
  valuesFromLive,
  withValues,
} from './secret-values.ts';
import type {
  InterruptDecision,
  PlanInput,
  RollbackInput,
  UninstallInput,
  UninstallResult,
  UpgradeInput,
  UpgradeResult,
  WaitOptions,
} from './types.ts';

/**
 * What the engine decides on. It knows the cluster only as a ReleaseCluster, so this module loads
 * no Kubernetes client: workers build an engine over a real API server with createReleaseEngine
 * (kube-engine.ts); engine decision tests pass an in-memory cluster.
 */
export interface ReleaseEngineOptions {
  /** The cluster's objects as the engine sees them (release-cluster.ts). */
  cluster: ReleaseCluster;
  /** Where revisions are kept (the Secret driver; the in-memory one in tests). */
  history: ReleaseHistory;
  /**
   * Key of the HMAC digests history keeps in place of Secret values (32 bytes or more; workers
   * pass Sealer.valueDigestKey(), derived from LONGSHORE_SECRET). Every engine sharing a storage
   * must use the same key, or equal values would digest differently and every Secret look changed.
   */
  secretDigestKey: Uint8Array;
  /**
   * Key that seals Secret values in history so a rollback restores them (32 bytes or more;
   * workers pass Sealer.historySealKey()). Without it history keeps digests only, and a rollback
   * can restore a value only while the live Secret still holds it. Engines sharing a storage
   * must agree on it, as on the digest key: the sealed values are part of the stored form.
   */
  secretSealKey?: Uint8Array;
  /** Revisions kept per release (default 10; the deployed one is never pruned). */
  historyMax?: number;
  /** Default wait deadline (default 300 s, as Helm's --timeout). */
  defaultTimeoutMs?: number;
  /** How often a wait re-reads the informer caches (memory only; default 100 ms). */
  pollMs?: number;
}

type PendingStatus = 'pending-install' | 'pending-upgrade' | 'pending-rollback';

interface DeployParams {
  app: string;
  release: string;
  content: ReleaseContent;
  desired: Desired[];
  digest: string;
  holder: string;
  /**
   * `upgrade`: same content as deployed → no-op or repair, no revision. `rollback`: always a new
   * revision (an operator's or rollback-on-failure's explicit act, as in Helm), unless this same
   * holder already deployed this content as the last revision (the job retried after finishing).
   */
  mode: 'upgrade' | 'rollback';
  /** On a permanent failure of the new revision, restore the deployed one (never for rollbacks). */
  rollbackOnFailure: boolean;
  /** Values keys that alone never make a new revision (UpgradeInput.recordOnlyKeys). */
  recordOnlyKeys?: readonly string[];
  /** Pending statuses that this kind of operation may continue. */
  continues: readonly ReleaseStatus[];
  pendingStatus: (deployed: RevisionInfo | undefined) => PendingStatus;
  pendingDescription: (deployed: RevisionInfo | undefined) => string;
  successDescription: (deployed: RevisionInfo | undefined) => string;
  wait: ResolvedWait | false;
  emit: Emit;
  signal?: AbortSignal;
  onInterrupt?: (err: unknown) => InterruptDecision;
  /** UpgradeInput.onlyOver. */
  onlyOver?: number | null;
  /** The conditions its check found for each write (set by deploy, from onlyOver). */
  conditions?: ReadonlyMap<string, WriteCondition>;
  /** UpgradeInput.beforeApply. */
  beforeApply?: (revision: number) => Promise<void>;
}

export class ReleaseEngine {
  private readonly store: ReleaseHistory;
  private readonly cluster: ReleaseCluster;
  private readonly parts: EngineParts;
  private readonly defaultTimeoutMs: number;
  private readonly observer: LiveObserver;
  /** The server-side apply field manager this engine writes as. */
  readonly fieldManager: string;
  private readonly digester: ValueDigester;
  private readonly sealer: HistoryValueSealer | undefined;

  constructor(options: ReleaseEngineOptions) {
    this.store = options.history;
    this.digester = new ValueDigester(options.secretDigestKey);
    this.sealer = options.secretSealKey ? new HistoryValueSealer(options.secretSealKey) : undefined;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 300_000;
    this.fieldManager = options.cluster.fieldManager;
    this.cluster = options.cluster;
    this.observer = new LiveObserver(this.store, this.cluster);
    this.parts = {
      history: this.store,
      live: this.cluster.live,
      writer: this.cluster.writer,
      historyMax: options.historyMax ?? 10,
      pollMs: options.pollMs ?? 100,
      diagnose: (refs) => this.cluster.diagnose(refs),
    };
  }

  /** Installs or upgrades a release; see the file comment for no-op, repair and recovery. */
  async upgrade(input: UpgradeInput): Promise<UpgradeResult> {
    const emit = progressEmitter(input.release, input.onProgress);
    const objects = await this.prepare(input.objects, input.release);
    const stored = objects.map((o) => redactObject(o, this.digester, this.sealer));
    const content: ReleaseContent = { chart: input.chart, values: input.values, objects: stored };
    const wait = this.resolveWait(input.wait);
    const params: DeployParams = {
      app: input.app,
      release: input.release,
      content,
      desired: desiredOf(objects, stored),
      digest: contentDigest(content),
      holder: input.holder,
      mode: 'upgrade',
      rollbackOnFailure: input.rollbackOnFailure ?? false,
      ...(input.recordOnlyKeys?.length ? { recordOnlyKeys: input.recordOnlyKeys } : {}),
      continues: ['pending-install', 'pending-upgrade'],
      pendingStatus: (deployed) => (deployed ? 'pending-upgrade' : 'pending-install'),
      pendingDescription: (deployed) => (deployed ? 'Preparing upgrade' : 'Initial install underway'),
      successDescription: (deployed) =>
        input.description ?? (deployed ? 'Upgrade complete' : 'Install complete'),
      wait,
      emit,
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.onInterrupt ? { onInterrupt: input.onInterrupt } : {}),
      ...(input.onlyOver !== undefined ? { onlyOver: input.onlyOver } : {}),
      ...(input.beforeApply ? { beforeApply: input.beforeApply } : {}),
    };
    return this.deploy(params);
  }

  /** Restores an earlier revision's content as a new revision (default: the previously deployed one). */
  async rollback(input: RollbackInput): Promise<UpgradeResult> {
    const history = this.store.history(input.release);
    if (history.length === 0) throw new ReleaseNotFoundError(input.release);
    const target =
      input.revision !== undefined
        ? history.find((r) => r.revision === input.revision)
        : previousDeployed(history);
    if (!target) throw new RevisionNotFoundError(input.release, input.revision ?? 0);
    const content = await this.store.read(input.release, target.revision);
    return this.deploy({
      app: target.app,
      release: input.release,
      holder: input.holder,
      ...rollbackTo(target, await this.restorable(input.release, target, content, input.signal)),
      wait: this.resolveWait(input.wait),
      emit: progressEmitter(input.release, input.onProgress),
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.onInterrupt ? { onInterrupt: input.onInterrupt } : {}),
    });
  }

  /**
   * Marks the last revision `uninstalling`, deletes every object that may be live (in reverse
   * dependency order; workloads in the foreground with `foregroundWorkloads`), then the release's
   * history. Running it again after a crash finishes the job;
   * on a release without history it does nothing (a retried destroy).
   */
  async uninstall(input: UninstallInput): Promise<UninstallResult> {
    const emit = progressEmitter(input.release, input.onProgress);
    const history = this.store.history(input.release);
    const last = history.at(-1);
    if (!last) return { release: input.release, existed: false, deleted: [] };
    const refs = new Map<string, ObjectRef>();
    for (const revision of possiblyLive(history))
      for (const o of revision.objects) refs.set(keyOf(o), refOf(o));
    if (last.status !== 'uninstalling') {
      await this.store.setStatus(input.release, last.revision, 'uninstalling', 'Deletion in progress');
    }
    const ordered = sortForDelete([...refs.values()]);
    const deleted: ObjectRef[] = [];
    const inForeground: ObjectRef[] = [];
    for (const [i, ref] of ordered.entries()) {
      throwIfAborted(input.signal);
      const owner = await otherRelease(this.cluster.live, ref, input.release, input.signal);
      if (owner) {
        emit('uninstall', `keeping ${describeRef(ref)}: it is live as an object of release ${owner}`, {
          revision: last.revision,
          object: ref,
        });
        continue;
      }
      emit('uninstall', `deleting ${describeRef(ref)}`, {
        percent: Math.round((90 * i) / ordered.length),
        revision: last.revision,
        object: ref,
        index: i + 1,
        total: ordered.length,
      });
      const foreground = input.foregroundWorkloads === true && hasPodTemplate(ref.kind);
      if (await this.parts.writer.delete(ref, input.signal, foreground ? 'Foreground' : 'Background')) {
        deleted.push(ref);
        if (foreground) inForeground.push(ref);
      }
    }
    // The history goes only once they are gone: a retry after a crash still knows what to wait for.
    await waitUntilDeleted(this.cluster, inForeground, {
      timeoutMs: input.timeoutMs ?? this.defaultTimeoutMs,
      pollMs: this.parts.pollMs,
      ...(input.signal ? { signal: input.signal } : {}),
      onWaiting: (refs) =>
        emit('uninstall', `waiting for ${refs.map(describeRef).join(', ')} to be deleted (pods first)`, {
          percent: 90,
          revision: last.revision,
        }),
    });
    emit('uninstall', `deleting the history of ${input.release}`, { percent: 95, revision: last.revision });
    await this.store.deleteRelease(input.release);
    return { release: input.release, existed: true, deleted };
  }

  /**
   * A dry run of `upgrade`: what it would do to each object (release-plan.ts), and whether it would
   * make a new revision, decided as `upgrade` decides (same content digest, recordOnlyKeys). Reads
   * the caches an upgrade reads and writes nothing: no revision, no apply, no delete.
   */
  async plan(input: PlanInput): Promise<ReleasePlan> {
    const objects = await this.prepare(input.objects, input.release);
    const stored = objects.map((o) => redactObject(o, this.digester, this.sealer));
    const content: ReleaseContent = { chart: input.chart, values: input.values, objects: stored };
    const same = await this.sameAsDeployed(
      {
        release: input.release,
        content,
        digest: contentDigest(content),
        ...(input.recordOnlyKeys ? { recordOnlyKeys: input.recordOnlyKeys } : {}),
      },
      this.store.deployed(input.release),
    );
    return planUpgrade(this.planParts(), input.release, desiredOf(objects, stored), !same, input.signal);
  }

  /** A dry run of `uninstall`: every live object of the release, as a delete. Writes nothing. */
  planUninstall(release: string, signal?: AbortSignal): Promise<ReleasePlan> {
    return planUninstall(this.planParts(), release, signal);
  }

  private planParts(): PlanParts {
    return {
      history: this.store,
      live: this.cluster.live,
      digester: this.digester,
      observe: (release, objects, signal) => this.observer.observe(release, objects, signal),
    };
  }

  /**
   * The live copies of objects a release is about to apply, for checks before any write (see
   * observe.ts: cached for objects the release may have applied, read from the API otherwise).
   */
  observe(release: string, objects: readonly ReleaseObject[], signal?: AbortSignal): Promise<Observed[]> {
    return this.observer.observe(release, objects, signal);
  }

  /** Every object longshore manages of a namespaced kind, in all namespaces, from a cluster-wide cache. */
  managedEverywhere(apiVersion: string, kind: string, signal?: AbortSignal): Promise<k8s.KubernetesObject[]> {
    return this.observer.managedEverywhere(apiVersion, kind, signal);
  }

  /** Revisions, oldest first, from the store's cache (no API request). */
  history(release: string): RevisionInfo[] {
    return this.store.history(release);
  }

  /** The last revision (as `helm status`), from the store's cache. */
  status(release: string): RevisionInfo | undefined {
    return this.store.last(release);
  }

  /**
   * The values of the deployed revision's Secrets, read from the live Secrets and checked against
   * the digests history keeps: what a job builds on (the app's env, its registry credentials).
   * Undefined when the release has no deployed revision. Reads the informer cache, not the API.
   */
  async deployedSecretValues(
    release: string,
    signal?: AbortSignal,
  ): Promise<{ revision: number; content: ReleaseContent; secrets: LiveValues[] } | undefined> {
    const deployed = this.store.deployed(release);
    if (!deployed) return undefined;
    const content = await this.store.read(release, deployed.revision);
    const later = await this.laterSecrets(release, deployed.revision);
    const secrets: LiveValues[] = [];
    for (const object of content.objects) {
      if (object.kind !== 'Secret') continue;
      const same = later.filter((o) => o.metadata.name === object.metadata.name);
      secrets.push(await this.liveValuesOf(object, signal, same));
    }
    return { revision: deployed.revision, content, secrets };
  }

  /**
   * The Secrets of revisions after the deployed one that may have reached the cluster (failed or
   * interrupted): a value one of them wrote is what the live Secret holds now, not a loss. A
   * revision that cannot be read says nothing (its values then count as changed, as before).
   */
  private async laterSecrets(release: string, deployedRevision: number): Promise<ReleaseObject[]> {
    const later = possiblyLive(this.store.history(release)).filter((r) => r.revision > deployedRevision);
    const secrets: ReleaseObject[] = [];
    for (const revision of later) {
      const content = await this.store.read(release, revision.revision).catch(() => undefined);
      for (const object of content?.objects ?? []) if (isSecret(object)) secrets.push(object);
    }
    return secrets;
  }

  /**
   * The live values of a stored Secret, from the informer cache; when some look lost, confirmed by
   * a GET — the cache of this worker may not have seen another worker's write yet, and a value
   * reported lost makes jobs refuse or skip work. The common path reads no Secret from the API.
   */
  private async liveValuesOf(
    stored: ReleaseObject,
    signal?: AbortSignal,
    later: readonly ReleaseObject[] = [],
  ): Promise<LiveValues> {
    const live = await this.cluster.live.get(refOf(stored), signal);
    const cached = valuesFromLive(stored, live, this.digester, later);
    if (cached.lost.length === 0) return cached;
    const fresh = await this.cluster.fromServer(refOf(stored), signal);
    return valuesFromLive(stored, fresh, this.digester, later);
  }

  /**
   * A stored revision made ready to apply again: each redacted Secret gets the values it keeps
   * sealed; a value it keeps no sealed copy of comes from the live Secret, where it still matches
   * the digest; otherwise the rollback is refused before any write, naming the values that are
   * gone. (History written before redaction still holds its values in clear: they are applied as
   * they are.) The new revision stores what is applied, redacted and sealed again.
   */
  private async restorable(
    release: string,
    target: RevisionInfo,
    content: ReleaseContent,
    signal?: AbortSignal,
  ): Promise<{ content: ReleaseContent; applied: ReleaseObject[] }> {
    const applied: ReleaseObject[] = [];
    const lost: string[] = [];
    for (const object of content.objects) {
      if (!isRedacted(object)) {
        applied.push(object);
        continue;
      }
      const sealed = sealedValuesOf(object, this.sealer);
      if (sealed.missing.length === 0) {
        applied.push(withValues(object, sealed.data));
        continue;
      }
      const values = await this.liveValuesOf(object, signal);
      const gone = values.lost.filter((l) => sealed.data[l.key] === undefined);
      if (gone.length > 0) lost.push(describeLost({ ref: values.ref, lost: gone }));
      applied.push(withValues(object, { ...values.data, ...sealed.data }));
    }
    if (lost.length > 0) {
      throw new PermanentError(
        `revision ${target.revision} of ${release} cannot be restored: that revision's history keeps a ` +
          `digest of the value, not the value, and the live Secret no longer holds the value it had ` +
          `for ${lost.join(', ')}; set ${lost.length > 1 ? 'them' : 'it'} again instead (config:set)`,
      );
    }
    const stored = applied.map((o) => redactObject(o, this.digester, this.sealer));
    return { content: { ...content, objects: stored }, applied };
  }

  /**
   * Rewrites history written before Secret values were redacted (redact-history.ts): all
   * releases, or the ones named. Cheap when there is nothing to do (no chunk is read).
   */
  redactHistory(releases?: readonly string[]): Promise<RedactionReport> {
    return redactHistory(
      this.store,
      (content) => redactContent(content, this.digester, this.sealer),
      releases,
    );
  }

  /** Stops the informers. */
  async stop(): Promise<void> {
    await this.cluster.stop();
  }

  private async deploy(params: DeployParams): Promise<UpgradeResult> {
    throwIfAborted(params.signal);
    params.emit('plan', `planning ${params.release}`, { percent: 5 });
    // Checked first: an upgrade that writes only over a given revision never interrupts another's.
    const p =
      params.onlyOver !== undefined
        ? { ...params, conditions: await this.checkOnlyOver(params, params.onlyOver) }
        : params;
    const { continued, recovered } = await this.recover(p);
    const deployed = this.store.deployed(p.release);
    const last = this.store.last(p.release);
    if (continued) return this.runRevision(p, continued, deployed, recovered);
    if (p.mode === 'upgrade' && deployed && (await this.sameAsDeployed(p, deployed)))
      return this.repair(p, deployed, recovered);
    if (
      p.mode === 'rollback' &&
      last?.status === 'deployed' &&
      last.holder === p.holder &&
      last.digest === p.digest
    ) {
      // This job already restored this content and was retried after finishing.
      p.emit('noop', `revision ${last.revision} already restored this content`, { percent: 100 });
      return { ...resultBase(last, recovered), outcome: 'noop', changed: false, applied: [], deleted: [] };
    }
    const revision = (last?.revision ?? 0) + 1;
    const info = await this.createRevision(p, revision, deployed);
    p.emit('revision', `revision ${revision} ${info.status}`, { percent: 10, revision });
    return this.runRevision(p, info, deployed, recovered);
  }

  /**
   * Before anything is written, the check of an upgrade that writes only over revision `over`
   * (`null`: over no history), UpgradeInput.onlyOver: the revisions after `over` are at most this
   * holder's own pending one with this content (its retry continues it), and each object to write,
   * read from the API server, holds what `over` (or that pending revision) applied — Secret values
   * by digest, other fields as drift sees them — or is absent where neither had it. Returns each
   * write's condition: the resourceVersion it was checked at, or `absent`.
   */
  private async checkOnlyOver(p: DeployParams, over: number | null): Promise<Map<string, WriteCondition>> {
    const changed = (reason: string) => new ReleaseChangedError(p.release, reason);
    const history = this.store.history(p.release);
    const last = history.at(-1);
    const deployed = this.store.deployed(p.release);
    const since = over === null ? 'there was no history' : `revision ${over} was deployed`;
    if (over !== null && deployed?.revision !== over)
      throw changed(`revision ${deployed?.revision ?? '(none)'} is deployed now, not ${over}`);
    const continuing =
      last !== undefined &&
      last.revision !== over &&
      PENDING_STATUSES.includes(last.status) &&
      last.holder === p.holder &&
      last.digest === p.digest;
    const other = history.find((r) => (over === null || r.revision > over) && !(continuing && r === last));
    if (other)
      throw changed(
        `revision ${other.revision} (${other.status}${other.holder !== p.holder ? ', another job' : ''}) came after ${since}`,
      );
    const readObjects = async (revision: number | null | undefined) =>
      revision === null || revision === undefined ? [] : (await this.store.read(p.release, revision)).objects;
    const wrote = [await readObjects(over), await readObjects(continuing ? last.revision : undefined)];
    const dropped = wrote[0]!.filter((o) => !p.desired.some((d) => d.key === keyOf(refOf(o))));
    if (dropped.length > 0) {
      throw new InvalidInputError(
        [
          {
            path: 'objects',
            message: `an upgrade only over revision ${over} writes that revision's objects; it would drop ${dropped.map((o) => describeRef(refOf(o))).join(', ')}`,
          },
        ],
        'release objects',
      );
    }
    const conditions = new Map<string, WriteCondition>();
    for (const d of p.desired) {
      const live = await this.cluster.fromServer(d.ref, p.signal);
      const before = wrote.map((objects) => objects.find((o) => keyOf(refOf(o)) === d.key));
      if (!live) {
        if (before[0]) throw changed(`${describeRef(d.ref)} was deleted after ${since}`);
        conditions.set(d.key, 'absent');
        continue;
      }
      const version = live.metadata?.resourceVersion;
      if (!version || !before.some((stored) => stored !== undefined && this.holds(stored, live)))
        throw changed(`${describeRef(d.ref)} was written by someone else after ${since}`);
      conditions.set(d.key, { resourceVersion: version });
    }
    return conditions;
  }

  /** Whether a live object holds what a stored one applied (a Secret's values compared by digest). */
  private holds(stored: ReleaseObject, live: k8s.KubernetesObject): boolean {
    if (!isRedacted(stored)) return findDrift(stored, live) === undefined;
    const values = valuesFromLive(stored, live, this.digester);
    return values.lost.length === 0 && findDrift(withValues(stored, values.data), live) === undefined;
  }

  /**
   * Whether an upgrade of this content makes no new revision: the deployed revision has its digest,
   * or differs only in `recordOnlyKeys` (how `upgrade` decides, and so its dry run, `plan`).
   */
  private async sameAsDeployed(
    p: Pick<DeployParams, 'release' | 'content' | 'recordOnlyKeys' | 'digest'>,
    deployed: RevisionInfo | undefined,
  ): Promise<boolean> {
    return (
      deployed !== undefined && (deployed.digest === p.digest || (await this.equalButRecord(p, deployed)))
    );
  }

  /**
   * Whether the content differs from the deployed revision's only in `recordOnlyKeys` of its
   * values (one read of the deployed content, only when such keys are given and digests differ).
   */
  private async equalButRecord(
    p: Pick<DeployParams, 'release' | 'content' | 'recordOnlyKeys'>,
    deployed: RevisionInfo,
  ): Promise<boolean> {
    const keys = p.recordOnlyKeys;
    if (!keys || keys.length === 0) return false;
    const stored = await this.store.read(p.release, deployed.revision).catch(() => undefined);
    if (!stored) return false;
    const without = (c: ReleaseContent): ReleaseContent => ({
      ...c,
      values: Object.fromEntries(Object.entries(c.values).filter(([k]) => !keys.includes(k))),
    });
    return contentDigest(without(stored)) === contentDigest(without(p.content));
  }

  /** Handles a pending last revision: continue it (same job) or mark it failed (see decideRecovery). */
  private async recover(p: DeployParams): Promise<{ continued?: RevisionInfo; recovered?: Recovered }> {
    const recovery = decideRecovery(this.store.last(p.release), p.holder, p.digest, p.continues);
    if (recovery.action === 'none') return {};
    const { revision, status } = recovery.revision;
    if (recovery.action === 'continue') {
      p.emit('recover', `continuing revision ${revision} (${status}) left by an earlier attempt`, {
        revision,
      });
      return { continued: recovery.revision, recovered: { revision, action: 'continued' } };
    }
    p.emit('recover', `revision ${revision} was ${status}: ${recovery.reason}`, { revision });
    await this.store.setStatus(p.release, revision, 'failed', recovery.reason);
    return { recovered: { revision, action: 'marked-failed' } };
  }

  /**
   * Same content as the deployed revision: re-apply what drifted (or what a failed or interrupted
   * revision after it touched), delete what such a revision added; no new revision, since history
   * records content and the content did not change. Failures leave history as it is.
   */
  private async repair(
    p: DeployParams,
    deployed: RevisionInfo,
    recovered?: Recovered,
  ): Promise<UpgradeResult> {
    const work = await planWork(this.parts, p.desired, this.store.history(p.release), undefined, p.signal);
    if (work.apply.length === 0 && work.drop.length === 0) {
      p.emit('noop', `revision ${deployed.revision} is deployed with this content and nothing drifted`, {
        percent: 100,
      });
      return {
        ...resultBase(deployed, recovered),
        outcome: 'noop',
        changed: false,
        applied: [],
        deleted: [],
      };
    }
    await executeWork(this.parts, work, runOptions(p, deployed.revision));
    return {
      ...resultBase(deployed, recovered),
      outcome: 'repaired',
      changed: true,
      applied: work.apply.map((o) => o.ref),
      deleted: work.drop,
    };
  }

  /**
   * Applies, deletes and waits for a pending revision, then marks it deployed. A permanent
   * failure marks it failed (and rolls back when asked); anything else (transient after the
   * in-call retries, an abort) leaves it pending under this holder: the job's retry continues it,
   * another job would mark it interrupted.
   */
  private async runRevision(
    p: DeployParams,
    info: RevisionInfo,
    deployed: RevisionInfo | undefined,
    recovered?: Recovered,
  ): Promise<UpgradeResult> {
    // A revision made by this call that stops before its first write left nothing to restore (one
    // continued from an earlier attempt may have applied objects before that attempt stopped).
    let writing = false;
    const nothingWritten = () => !writing && recovered?.action !== 'continued';
    try {
      if (p.beforeApply) await this.beforeApply(p, info.revision);
      writing = true;
      const work = await planWork(
        this.parts,
        p.desired,
        this.store.history(p.release),
        info.revision,
        p.signal,
      );
      await executeWork(this.parts, work, runOptions(p, info.revision));
      const done = await finishRevision(
        this.parts,
        p.release,
        info.revision,
        p.successDescription(deployed),
        p.emit,
      );
      return {
        ...resultBase(done, recovered),
        outcome: 'deployed',
        changed: true,
        applied: work.apply.map((o) => o.ref),
        deleted: work.drop,
      };
    } catch (err) {
      if (err instanceof ReleaseChangedError) {
        // A conditional write found its object changed: nothing of this revision landed. Another
        // job's uninstall may have deleted the history meanwhile: then there is nothing to mark.
        p.emit('failed', `revision ${info.revision} failed: ${err.reason}`, { revision: info.revision });
        await this.store.setStatus(p.release, info.revision, 'failed', err.message).catch((e: unknown) => {
          if (!(e instanceof NotFoundError)) throw e;
        });
        throw err;
      }
      if (err instanceof ReleaseFailedError) {
        p.emit('failed', `revision ${info.revision} failed: ${err.reason}`, { revision: info.revision });
        await this.store.setStatus(p.release, info.revision, 'failed', err.reason);
        // Nothing was applied before the first write: the deployed revision is live as it was.
        if (p.rollbackOnFailure && !(err instanceof BeforeApplyFailedError && nothingWritten()))
          await this.rollbackAfterFailure(err, p);
        throw err;
      }
      const decision = p.onInterrupt?.(err) ?? 'retry';
      if (decision === 'retry') throw err;
      throw await this.abandonRevision(p, info, err, decision, nothingWritten());
    }
  }

  /** The caller's step before the first write; its own failure becomes the revision's. */
  private async beforeApply(p: DeployParams, revision: number): Promise<void> {
    try {
      await p.beforeApply?.(revision);
    } catch (err) {
      if (err instanceof BeforeApplyFailure)
        throw new BeforeApplyFailedError(p.release, revision, err.message, { cause: err });
      throw err;
    }
  }

  /**
   * The job stops here for good (its last attempt, or a cancel): the interrupted revision is marked
   * `failed` rather than left pending for a retry that will not come, and the deployed revision is
   * restored on a cancel (always) or with rollbackOnFailure. The restore runs without the job's
   * signal — a cancel has aborted it, and the cancel asked for exactly this restore.
   */
  private async abandonRevision(
    p: DeployParams,
    info: RevisionInfo,
    err: unknown,
    decision: 'give-up' | 'cancel',
    nothingWritten = false,
  ): Promise<ReleaseInterruptedError> {
    const why = err instanceof Error ? err.message : String(err);
    const reason =
      decision === 'cancel'
        ? `cancelled during the operation (${why})`
        : `interrupted, and its job will not retry: ${why}`;
    p.emit('failed', `revision ${info.revision} failed: ${reason}`, { revision: info.revision });
    await this.store.setStatus(p.release, info.revision, 'failed', reason);
    const failure = new ReleaseInterruptedError(p.release, info.revision, reason, decision === 'cancel', {
      cause: err,
    });
    // Stopped before its first write (in beforeApply): the deployed revision is live as it was.
    if (!nothingWritten && (decision === 'cancel' || p.rollbackOnFailure)) {
      const { signal: _aborted, ...rest } = p;
      await this.rollbackAfterFailure(failure, rest);
    }
    return failure;
  }

  /**
   * Stores the pending revision. RevisionExistsError can mean our own create succeeded but its
   * answer was lost and the store's retry met AlreadyExists: when the index the store then sees
   * is ours (same holder and content), go on with it. Otherwise it is transient: jobs of an app
   * never overlap, so it can only be this worker's cache lagging behind another worker's write.
   */
  private async createRevision(
    p: DeployParams,
    revision: number,
    deployed: RevisionInfo | undefined,
  ): Promise<RevisionInfo> {
    try {
      return await this.store.create({
        app: p.app,
        release: p.release,
        revision,
        status: p.pendingStatus(deployed),
        content: p.content,
        description: p.pendingDescription(deployed),
        holder: p.holder,
        redacted: true,
      });
    } catch (err) {
      if (!(err instanceof RevisionExistsError)) throw err;
      const deadline = Date.now() + 2_000;
      for (;;) {
        const found = this.store.history(p.release).find((r) => r.revision === revision);
        if (found?.holder === p.holder && found.digest === p.digest) return found;
        // Another job made that revision after the check of an upgrade only over an earlier one.
        if (found && p.onlyOver !== undefined)
          throw new ReleaseChangedError(
            p.release,
            `revision ${revision} was made by another job after the check`,
            { cause: err },
          );
        // Another worker wrote it and this worker's history cache is behind: once the cache has
        // caught up, the job's retry plans from the right revision.
        if (found || Date.now() > deadline) {
          throw new TransientError(`${err.message} (this worker's history was behind; retrying)`, undefined, {
            cause: err,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** Re-applies the previous deployed revision's content as a `pending-rollback` revision. */
  private async rollbackAfterFailure(failure: ReleaseFailedError, p: DeployParams): Promise<void> {
    const target = this.store.deployed(p.release);
    if (!target) {
      failure.withRollback({ state: 'nothing-to-roll-back-to' });
      return;
    }
    p.emit('rollback', `rolling back to revision ${target.revision}`, { revision: target.revision });
    try {
      const content = await this.store.read(p.release, target.revision);
      const restorable = await this.restorable(p.release, target, content, p.signal);
      // No retry follows a failure: a restore that is itself interrupted is marked failed, not
      // left pending (rollbackTo never rolls back again).
      // A restore runs no beforeApply: that step (a release task) belongs to the failed change.
      const { beforeApply: _change, ...restore } = p;
      const result = await this.deploy({
        ...restore,
        ...rollbackTo(target, restorable),
        onInterrupt: () => 'give-up',
      });
      failure.withRollback({ state: 'rolled-back', revision: result.revision, toRevision: target.revision });
    } catch (err) {
      failure.withRollback({ state: 'failed', reason: err instanceof Error ? err.message : String(err) });
    }
  }

  /**
   * Labels, scope and order: the engine's labels added, the namespace set on namespaced kinds that
   * lack one (and removed from cluster-scoped ones, which the server would ignore), objects sorted
   * in apply order. Unknown kinds and duplicate objects fail here, before anything is written.
   */
  private async prepare(objects: readonly ReleaseObject[], release: string): Promise<ReleaseObject[]> {
    const seen = new Set<string>();
    const prepared: ReleaseObject[] = [];
    for (const [i, object] of objects.entries()) {
      if (!object?.apiVersion || !object.kind || !object.metadata?.name) {
        throw new InvalidInputError(
          [{ path: `objects[${i}]`, message: 'needs apiVersion, kind and metadata.name' }],
          'release objects',
        );
      }
      const labeled = withReleaseLabels(object, release);
      const { namespaced } = await this.cluster.live.resource(object.apiVersion, object.kind);
      if (namespaced) labeled.metadata.namespace ??= this.cluster.defaultNamespace;
      else delete labeled.metadata.namespace;
      const key = keyOf(refOf(labeled));
      if (seen.has(key)) {
        throw new InvalidInputError(
          [{ path: `objects[${i}]`, message: `${describeRef(refOf(labeled))} appears twice` }],
          'release objects',
        );
      }
      seen.add(key);
      prepared.push(labeled);
    }
    return sortForApply(prepared);
  }

  private resolveWait(wait: WaitOptions | false | undefined): ResolvedWait | false {
    if (wait === false) return false;
    return {
      timeoutMs: wait?.timeoutMs ?? this.defaultTimeoutMs,
      rollouts: wait?.rollouts ?? true,
      pvcs: wait?.pvcs ?? false,
    };
  }
}

type Recovered = NonNullable<UpgradeResult['recovered']>;

function resultBase(info: RevisionInfo, recovered: Recovered | undefined) {
  return {
    release: info.release,
    revision: info.revision,
    status: info.status,
    ...(recovered ? { recovered } : {}),
  };
}

function runOptions(p: DeployParams, revision: number) {
  return {
    release: p.release,
    revision,
    desired: p.desired,
    wait: p.wait,
    emit: p.emit,
    ...(p.signal ? { signal: p.signal } : {}),
    ...(p.conditions ? { conditions: p.conditions } : {}),
  };
}

/**
 * The deploy parameters that make a rollback (an operator's or rollback-on-failure's): the target's
 * content as a `pending-rollback` revision, never itself rolled back on failure.
 */
function rollbackTo(
  target: RevisionInfo,
  { content, applied }: { content: ReleaseContent; applied: ReleaseObject[] },
): Pick<
  DeployParams,
  | 'content'
  | 'desired'
  | 'digest'
  | 'mode'
  | 'rollbackOnFailure'
  | 'continues'
  | 'pendingStatus'
  | 'pendingDescription'
  | 'successDescription'
> {
  const description = () => rollbackDescription(target.revision);
  return {
    content,
    desired: desiredOf(applied, content.objects),
    // Of the stored (redacted) form: for history written before redaction it differs from target.digest.
    digest: contentDigest(content),
    mode: 'rollback',
    rollbackOnFailure: false,
    continues: ['pending-rollback'],
    pendingStatus: () => 'pending-rollback',
    pendingDescription: description,
    successDescription: description,
  };
}

/** What to apply (`objects`, values included), with the digests of their stored forms (`stored`). */
function desiredOf(objects: readonly ReleaseObject[], stored: readonly ReleaseObject[]): Desired[] {
  return objects.map((object, i) => {
    const ref = refOf(object);
    return { ref, key: keyOf(ref), digest: objectDigest(stored[i]!), object };
  });
}

/** Helm's default rollback target: the deployed revision before the current one. */
function previousDeployed(history: readonly RevisionInfo[]): RevisionInfo | undefined {
  const current = [...history].reverse().find((r) => r.status === 'deployed');
  return [...history]
    .reverse()
    .find((r) => r.revision < (current?.revision ?? Number.POSITIVE_INFINITY) && r.status === 'superseded');
}

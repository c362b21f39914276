/**
 * `storage-create`: install (or change) release `storage-{entry}`, the entry's PVC and, with a
 * hostPath, its pre-bound PV (charts/storage), then wait for the claim to be Bound.
 *
 * Checked before the first write: the StorageClass exists (or a default one does); on an entry
 * that exists, only the size may change (the claim's other fields are immutable), it may only
 * grow, and only where the claim's class allows volume expansion.
 *
 * The release is owned by an app record of its own name (`storage-{entry}`): entries are
 * fleet-wide, not any app's, and a record is what owns a release's history (docs/apps.md,
 * "Storage"). The engine makes a retry after a crash continue its pending revision, so the
 * handler holds no state of its own.
 */
import { storageChart, storageObjectName } from '../../../charts/index.ts';
import { parseQuantity } from '../../../rules/quantities.ts';
import { releaseNames } from '../../apps/releases.ts';
import { type FieldIssue, InvalidInputError } from '../../core/errors.ts';
import type { StorageCreatePayload, StorageEntry } from '../../jobs/schemas/storage.ts';
import type { Cluster } from '../cluster.ts';
import { progressForwarder } from '../deploy/progress.ts';
import { interruptDecision } from '../deploy/release-outcome.ts';
import { renderChart } from '../deploy/render.ts';
import type { Handler } from '../handler.ts';
import {
  claimState,
  deployedEntry,
  readClaim,
  type StorageClassInfo,
  storageClasses,
} from './storage-entry.ts';

/** How long the claim may take to bind. */
const BIND_TIMEOUT_MS = 120_000;

export const storageCreateHandler: Handler<StorageCreatePayload> = async (ctx) => {
  const { entry } = ctx.payload;
  const cluster = await ctx.services.cluster();
  const release = releaseNames.storage(entry.name);
  const subject = `storage entry ${entry.name}`;

  await ctx.step(`Releasing ${release} (${subject})`);
  const rendered = renderChart(
    storageChart,
    {
      entry: entry.name,
      namespace: entry.namespace,
      size: entry.size,
      accessMode: entry.accessMode,
      ...(entry.storageClass !== undefined ? { storageClassName: entry.storageClass } : {}),
      ...(entry.hostPath !== undefined ? { hostPath: entry.hostPath } : {}),
      reclaimPolicy: entry.reclaimPolicy,
    },
    subject,
  );
  const classes = await storageClasses(cluster);
  const wanted = entry.hostPath === undefined ? classOf(entry, classes, subject) : undefined;
  await refuseImpossibleChange(cluster, entry, classes, subject);

  const forward = progressForwarder(ctx, release);
  // A WaitForFirstConsumer class binds only once a pod uses the claim: nothing to wait for yet.
  const waitForBinding = wanted?.volumeBindingMode !== 'WaitForFirstConsumer';
  let result: Awaited<ReturnType<typeof cluster.engine.upgrade>>;
  try {
    result = await cluster.engine.upgrade({
      app: release,
      release,
      chart: rendered.chart,
      values: rendered.values,
      objects: rendered.objects,
      holder: ctx.idempotencyKey,
      wait: { rollouts: false, pvcs: waitForBinding, timeoutMs: BIND_TIMEOUT_MS },
      description: `storage ${entry.name} ${entry.size} ${entry.accessMode}`,
      onProgress: forward.listener,
      signal: ctx.signal,
      onInterrupt: interruptDecision(ctx),
    });
  } finally {
    await forward.flush();
  }
  const state = claimState(await readClaim(cluster, entry.namespace, entry.name));
  const where = `${entry.namespace}/${storageObjectName(entry.name)}`;
  await ctx.log(`${release}: revision ${result.revision} ${result.outcome}`);
  return {
    summary: `storage entry ${entry.name}: ${where} ${state.phase}${state.capacity ? `, ${state.capacity}` : ''}`,
    revision: result.revision,
    entry: entry.name,
    namespace: entry.namespace,
    ...state,
  };
};

/** The class the claim provisions from: the named one, or the cluster's default. */
function classOf(entry: StorageEntry, classes: StorageClassInfo[], subject: string): StorageClassInfo {
  const available = classes.map((c) => c.name).join(', ') || '(none)';
  if (entry.storageClass !== undefined) {
    const found = classes.find((c) => c.name === entry.storageClass);
    if (found) return found;
    throw new InvalidInputError(
      [
        {
          path: 'entry.storageClass',
          message: `storage class "${entry.storageClass}" does not exist; available: ${available}`,
        },
      ],
      subject,
    );
  }
  const fallback = classes.find((c) => c.isDefault);
  if (fallback) return fallback;
  throw new InvalidInputError(
    [
      {
        path: 'entry.storageClass',
        message: `the cluster has no default storage class; name one of: ${available}`,
      },
    ],
    subject,
  );
}

/**
 * An entry that exists may only grow. Its namespace, access mode, class and host path are the
 * claim's immutable fields (the API server would refuse the apply half-way); the size may not
 * shrink (no volume does) and may grow only where the class allows expansion.
 */
async function refuseImpossibleChange(
  cluster: Cluster,
  entry: StorageEntry,
  classes: StorageClassInfo[],
  subject: string,
): Promise<void> {
  const before = await deployedEntry(cluster, entry.name);
  if (!before) return;
  const issues: FieldIssue[] = [];
  const fixed: [string, unknown, unknown][] = [
    ['namespace', before.namespace, entry.namespace],
    ['accessMode', before.accessMode, entry.accessMode],
    ['storageClass', before.storageClassName, entry.storageClass],
    ['hostPath', before.hostPath, entry.hostPath],
  ];
  for (const [field, was, now] of fixed) {
    if (was !== now)
      issues.push({
        path: `entry.${field}`,
        message: `is ${was ?? '(not set)'} for the existing entry and cannot change (destroy and recreate the entry)`,
      });
  }
  const was = parseQuantity(before.size) ?? 0;
  const now = parseQuantity(entry.size) ?? 0;
  if (now < was) {
    issues.push({
      path: 'entry.size',
      message: `storage entry ${entry.name} is ${before.size}; shrinking it to ${entry.size} is refused (volumes only grow)`,
    });
  } else if (now > was && issues.length === 0) {
    const claim = await readClaim(cluster, entry.namespace, entry.name);
    const className = claim?.spec?.storageClassName ?? '';
    const cls = classes.find((c) => c.name === className);
    if (!cls?.allowVolumeExpansion) {
      issues.push({
        path: 'entry.size',
        message:
          className === ''
            ? `storage entry ${entry.name} has no storage class (a hostPath volume), so it cannot grow`
            : `storage class "${className}" does not allow volume expansion, so ${entry.name} cannot grow to ${entry.size}`,
      });
    }
  }
  if (issues.length > 0) throw new InvalidInputError(issues, subject);
}

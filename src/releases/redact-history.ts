/**
 * The migration of history written before the engine stored digests in place of Secret values
 * (secret-values.ts): every revision that holds a Secret and is not marked redacted is read and
 * rewritten in redacted form, through the store's crash-safe `rewrite` (new chunks, one index
 * update, then the chunks that held the values are deleted). Revision numbers, statuses,
 * descriptions and holders stay as they are, so the deployed revision stays deployed and reads.
 *
 * Idempotent and cheap to repeat: marked revisions, and revisions without a Secret (known from the
 * index manifest), are skipped without reading a chunk. Run by each worker when it connects to
 * the cluster, and for an app's releases before a job reads them (a worker of an older build may
 * have written some since).
 */
import type { ReleaseHistory } from '../storage/release-history.ts';
import { type ReleaseContent, UnreadableRevisionError } from '../storage/types.ts';

export interface RedactionReport {
  /** Revisions rewritten. */
  revisions: number;
  /** Revisions left as they are because they cannot be read (`release vN: why`). */
  unreadable: string[];
}

export async function redactHistory(
  store: ReleaseHistory,
  /** The stored form of a content (secret-values.ts redactContent, with the engine's keys). */
  redact: (content: ReleaseContent) => ReleaseContent,
  releases: readonly string[] = store.releases(),
): Promise<RedactionReport> {
  const report: RedactionReport = { revisions: 0, unreadable: [] };
  for (const release of releases) {
    for (const info of store.history(release)) {
      if (info.redacted) continue;
      if (info.unreadable) {
        report.unreadable.push(`${release} v${info.revision}: ${info.unreadable}`);
        continue;
      }
      if (!info.objects.some((o) => o.kind === 'Secret')) continue;
      let content: ReleaseContent;
      try {
        content = await store.read(release, info.revision);
      } catch (err) {
        if (!(err instanceof UnreadableRevisionError)) throw err;
        report.unreadable.push(`${release} v${info.revision}: ${err.message}`);
        continue;
      }
      await store.rewrite({
        release,
        revision: info.revision,
        content: redact(content),
        redacted: true,
      });
      report.revisions++;
    }
  }
  return report;
}

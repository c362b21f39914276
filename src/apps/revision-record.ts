/**
 * What an app release revision records besides its chart values, so a rollback can restore more
 * than objects: the AppSpec that produced the revision (the chart values alone lose the source,
 * registry, properties without objects such as the deploy timeout) and the `config-{app}`
 * revision deployed with it. Stored under `recorded` in the revision's values; revisions written
 * before this existed lack it, and a rollback to them is refused (docs/apps.md, "rollback").
 *
 * Nothing here is secret: the spec holds no environment or password (spec.ts).
 */
import { type AppSpec, appSpec } from './spec.ts';

export const RECORDED_KEY = 'recorded';

export interface RevisionRecord {
  spec: AppSpec;
  /** The `config-{app}` revision deployed when this app revision was made; absent when none was. */
  configRevision?: number;
}

/** The values to store with an app revision: the chart's, plus the record. */
export function withRecord(
  chartValues: Record<string, unknown>,
  record: RevisionRecord,
): Record<string, unknown> {
  return {
    ...chartValues,
    [RECORDED_KEY]: {
      spec: record.spec,
      ...(record.configRevision !== undefined ? { configRevision: record.configRevision } : {}),
    },
  };
}

/** The record kept in a revision's values, or undefined when it has none (or an unreadable one). */
export function recordOf(values: Record<string, unknown>): RevisionRecord | undefined {
  const raw = values[RECORDED_KEY] as { spec?: unknown; configRevision?: unknown } | undefined;
  if (!raw || typeof raw !== 'object') return undefined;
  const spec = appSpec.safeParse(raw.spec);
  if (!spec.success) return undefined;
  const configRevision = raw.configRevision;
  return {
    spec: spec.data,
    ...(typeof configRevision === 'number' ? { configRevision } : {}),
  };
}

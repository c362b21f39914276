/**
 * AppRecords: one record per app, created with its first release, holding the app's identity and
 * the spec its last successful job saved (docs/apps.md, "Which spec a job builds on"). In the
 * Secret driver the record owns every release Secret of the app, so deleting it removes the app's
 * whole history.
 *
 * The spec is typed, but storage may not import src/apps (layers: workers → releases → storage):
 * the type is a parameter, and the record store decodes the stored JSON with a SpecCodec the
 * worker layer supplies (src/workers/app-state.ts `appSpecCodec`, the AppSpec schema). Storage
 * itself only keeps JSON. A stored spec the codec refuses does not hide the record: `spec` is then
 * absent and `unreadableSpec` says why, so the caller decides (a job refuses to build on it).
 *
 * Stored format (docs/storage-format.md, "App records"): the spec is the `spec` key of the
 * record's `settings` JSON, as records written before this interface have it, so both read alike.
 */

/** Decodes a stored spec (parsed JSON) into its type; throws an Error saying what is wrong. */
export interface SpecCodec<Spec> {
  decode(stored: unknown): Spec;
}

/** A codec that keeps the JSON as it is: for code that does not know the spec's type. */
export const RAW_SPEC: SpecCodec<unknown> = { decode: (stored) => stored };

export interface AppRecord<Spec = unknown> {
  app: string;
  uid: string;
  createdAt: string;
  /** The saved spec; absent until a job saved one (or when it cannot be decoded). */
  spec?: Spec;
  /** Why the stored spec cannot be decoded (the codec's message), when it cannot. */
  unreadableSpec?: string;
}

export interface AppRecords<Spec = unknown> {
  /** The app's record, from memory (no request). */
  get(app: string): AppRecord<Spec> | undefined;
  /** Every record, from memory (no request), sorted by app (prune looks for records of apps that are gone). */
  list(): AppRecord<Spec>[];
  /**
   * Every record, read from the API server (one paged LIST), sorted by app: for a decision that a
   * record another worker saved a moment ago must not escape (this process's cache may not have
   * seen it yet) — storage:destroy checking that no app mounts the entry.
   */
  listFresh(): Promise<AppRecord<Spec>[]>;
  /** The app's record, created (without a spec) when missing. InvalidInputError for a bad app name. */
  ensure(app: string): Promise<AppRecord<Spec>>;
  /**
   * Saves the app's spec (creating the record when missing). Writes nothing when the stored spec is
   * already equal (canonical JSON), so an unchanged redeploy stays write-free.
   */
  saveSpec(app: string, spec: Spec): Promise<AppRecord<Spec>>;
  /** Deletes the record and with it every revision of the app's releases. */
  delete(app: string): Promise<void>;
}

/**
 * The record with its stored spec decoded, or with `unreadableSpec` when the codec refuses it
 * (both drivers read specs through this).
 */
export function withDecodedSpec<Spec>(
  record: AppRecord<Spec>,
  stored: unknown,
  codec: SpecCodec<Spec>,
): AppRecord<Spec> {
  if (stored === undefined) return record;
  try {
    return { ...record, spec: codec.decode(stored) };
  } catch (err) {
    return { ...record, unreadableSpec: err instanceof Error ? err.message : String(err) };
  }
}

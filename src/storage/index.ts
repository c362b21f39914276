/**
 * Release storage: its data (types.ts), the interfaces code is written against (ReleaseHistory,
 * AppRecords, StoreMaintenance), the Secret-backed driver and the in-memory one.
 * Format: docs/storage-format.md.
 */

export {
  type AppRecord,
  type AppRecords,
  RAW_SPEC,
  type SpecCodec,
} from './app-records.ts';
export type { StoreHooks, WriteStep } from './context.ts';
export { contentDigest } from './entries.ts';
export {
  DEFAULT_CHUNK_BYTES,
  DEFAULT_MAX_RELEASE_BYTES,
  REQUEST_BODY_LIMIT,
  SECRET_DATA_LIMIT,
} from './limits.ts';
export type { StoreMaintenance, SweepOptions } from './maintenance.ts';
export { MemoryAppRecords, type MemoryAppRecordsOptions } from './memory-app-records.ts';
export { MemoryReleaseHistory, type MemoryReleaseHistoryOptions } from './memory-history.ts';
export { DEFAULT_NAMESPACE } from './names.ts';
export { revisionsOverCap } from './pruner.ts';
export type { ReleaseHistory, ReleaseHistoryReader } from './release-history.ts';
export { SecretReleaseStore, type SecretReleaseStoreOptions, STORE_DEFAULTS } from './secret-store.ts';
export * from './types.ts';

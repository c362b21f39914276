/** Release storage: the contract (types.ts) and its Secret-backed driver. Format: docs/storage-format.md. */

export type { StoreHooks, WriteStep } from './context.ts';
export { contentDigest } from './entries.ts';
export {
  DEFAULT_CHUNK_BYTES,
  DEFAULT_MAX_RELEASE_BYTES,
  REQUEST_BODY_LIMIT,
  SECRET_DATA_LIMIT,
} from './limits.ts';
export { DEFAULT_NAMESPACE } from './names.ts';
export { SecretReleaseStore, type SecretReleaseStoreOptions, STORE_DEFAULTS } from './secret-store.ts';
export * from './types.ts';

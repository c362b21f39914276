/**
 * The three kinds of storage Secret as API objects: the app record, the index of a revision and a
 * chunk of entry bytes. Data values go to the API as base64 of the raw bytes — the API's own
 * encoding is the only one (Helm stores base64 text inside it, a third more bytes for nothing).
 */
import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import { canonicalJson } from './canonical-json.ts';
import {
  ANNOTATION_CHART,
  ANNOTATION_CHART_VERSION,
  ANNOTATION_CREATED_AT,
  ANNOTATION_DESCRIPTION,
  ANNOTATION_DIGEST,
  ANNOTATION_HOLDER,
  ANNOTATION_MODIFIED_AT,
  ANNOTATION_SECRET_VALUES,
  ANNOTATION_SIZE,
  appRecordName,
  clampDescription,
  indexName,
  LABEL_APP,
  LABEL_RELEASE,
  LABEL_REVISION,
  LABEL_STATUS,
  labelsFor,
  MANIFEST_KEY,
  SECRET_VALUES_REDACTED,
  SETTINGS_KEY,
  TYPE_APP,
  TYPE_CHUNK,
  TYPE_INDEX,
} from './names.ts';
import type { PackedChunk } from './packing.ts';
import type { ReleaseStatus } from './types.ts';

export function toBase64Data(data: ReadonlyMap<string, Uint8Array>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of data)
    out[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  return out;
}

/**
 * A Secret's data decoded, each value in memory of its own. `Buffer.from(value, 'base64')` carves
 * values under 4 KiB out of Node's shared 8 KiB pool; a chunk kept in the chunk cache then keeps
 * its whole pool slab alive, and so does every small entry, so the cache held up to ten times the
 * bytes it counted (a worker's chunk tail caches every chunk any worker writes).
 */
export function fromBase64Data(data: Record<string, string> | undefined): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const [key, value] of Object.entries(data ?? {})) out.set(key, ownedBase64(value));
  return out;
}

function ownedBase64(value: string): Uint8Array {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(value, 'base64'));
  const written = bytes.write(value, 'base64');
  // byteLength is exact for padded base64; for anything else, copy what was decoded.
  return written === bytes.length ? bytes : new Uint8Array(bytes.subarray(0, written));
}

/**
 * An ownerReference to a storage Secret. Neither `controller` nor `blockOwnerDeletion`: the
 * garbage collector needs neither to delete dependents whose owners are all gone, and
 * blockOwnerDeletion would need delete permission on the owner under the
 * OwnerReferencesPermissionEnforcement admission plugin.
 */
export function ownerRefTo(secret: V1Secret): V1OwnerReference {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    name: secret.metadata?.name ?? '',
    uid: secret.metadata?.uid ?? '',
  };
}

export function buildAppRecord(app: string, settings: Record<string, unknown>, now: Date): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: TYPE_APP,
    metadata: {
      name: appRecordName(app),
      labels: labelsFor('app', { [LABEL_APP]: app }),
      annotations: { [ANNOTATION_CREATED_AT]: now.toISOString() },
    },
    data: { [SETTINGS_KEY]: Buffer.from(canonicalJson(settings)).toString('base64') },
  };
}

/** A chunk, owned by the app record from the start so that it is never ownerless. */
export function buildChunk(chunk: PackedChunk, app: string, release: string, appRecord: V1Secret): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: TYPE_CHUNK,
    immutable: true,
    metadata: {
      name: chunk.name,
      labels: labelsFor('chunk', { [LABEL_APP]: app, [LABEL_RELEASE]: release }),
      ownerReferences: [ownerRefTo(appRecord)],
    },
    data: toBase64Data(chunk.data),
  };
}

export interface IndexFields {
  app: string;
  release: string;
  revision: number;
  status: ReleaseStatus;
  chart: { name: string; version: string };
  digest: string;
  description: string;
  holder?: string;
  redacted?: boolean;
  renderedBytes: number;
  storedBytes: number;
  manifest: Uint8Array;
}

export function buildIndex(fields: IndexFields, appRecord: V1Secret, now: Date): V1Secret {
  const at = now.toISOString();
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: TYPE_INDEX,
    metadata: {
      name: indexName(fields.release, fields.revision),
      labels: labelsFor('index', {
        [LABEL_APP]: fields.app,
        [LABEL_RELEASE]: fields.release,
        [LABEL_REVISION]: String(fields.revision),
        [LABEL_STATUS]: fields.status,
      }),
      annotations: {
        [ANNOTATION_CHART]: fields.chart.name,
        [ANNOTATION_CHART_VERSION]: fields.chart.version,
        [ANNOTATION_DIGEST]: fields.digest,
        [ANNOTATION_CREATED_AT]: at,
        [ANNOTATION_MODIFIED_AT]: at,
        [ANNOTATION_DESCRIPTION]: clampDescription(fields.description),
        [ANNOTATION_SIZE]: `${fields.renderedBytes}/${fields.storedBytes}`,
        ...(fields.holder !== undefined ? { [ANNOTATION_HOLDER]: fields.holder } : {}),
        ...(fields.redacted ? { [ANNOTATION_SECRET_VALUES]: SECRET_VALUES_REDACTED } : {}),
      },
      ownerReferences: [ownerRefTo(appRecord)],
    },
    data: { [MANIFEST_KEY]: Buffer.from(fields.manifest).toString('base64') },
  };
}

/**
 * The `pod-template-hash` label value (pkg/controller/controller_utils.go ComputeHash): FNV-32a over
 * the pod template, plus the Deployment's collisionCount as 8 little-endian bytes when set, the
 * decimal Sum32 then encoded with rand.SafeEncodeString.
 *
 * Upstream hashes the Go struct as printed by spew (hashutil.DeepHashObject); that text cannot be
 * reproduced from JSON, so the same values differ from a real cluster's. What matters holds: the
 * hash is deterministic, changes with the template and with collisionCount, and looks the same
 * (10 characters or fewer from the alphabet below, e.g. `7f8897b78c`).
 */
import { semanticEqual } from '../validation/equality.ts';
import type { PodTemplateSpec } from './workload-types.ts';

export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** k8s.io/apimachinery/pkg/util/rand: no vowels, no look-alike characters. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

function fnv32a(bytes: Uint8Array, seed = FNV32_OFFSET): number {
  let hash = seed;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, FNV32_PRIME) >>> 0;
  }
  return hash >>> 0;
}

/** JSON with object keys sorted, so equal templates hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** rand.SafeEncodeString: each character mapped into the alphabet by its code point. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const ch of s) out += ALPHANUMS[ch.codePointAt(0)! % ALPHANUMS.length];
  return out;
}

export function computeHash(template: PodTemplateSpec, collisionCount?: number): string {
  let hash = fnv32a(new TextEncoder().encode(canonicalJson(template)));
  if (collisionCount !== undefined) {
    // binary.LittleEndian.PutUint32 into an 8-byte slice: the upper four bytes stay zero.
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    hash = fnv32a(bytes, hash);
  }
  return safeEncodeString(String(hash));
}

/** The template without the label, sharing everything but the label map (it is only compared). */
function withoutHash(template: PodTemplateSpec): PodTemplateSpec {
  const labels = template.metadata?.labels;
  if (!labels || !(POD_TEMPLATE_HASH_LABEL in labels)) return template;
  const { [POD_TEMPLATE_HASH_LABEL]: _hash, ...rest } = labels;
  return { ...template, metadata: { ...template.metadata, labels: rest } };
}

/**
 * deployment/util EqualIgnoreHash: templates equal (apiequality.Semantic.DeepEqual) once the
 * pod-template-hash label is removed from both.
 */
export function equalIgnoreHash(a: PodTemplateSpec, b: PodTemplateSpec): boolean {
  return semanticEqual(withoutHash(a), withoutHash(b));
}

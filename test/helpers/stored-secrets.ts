/**
 * What an attacker who can read the fleet's system namespace sees: every Secret's data, decoded
 * the way the storage writes it (gzip of canonical JSON, raw bytes in `data`), with every base64
 * token inside expanded too (a Secret object in a chunk keeps its `data` base64-encoded, and a
 * docker config nests `auth` as base64 again).
 */
import type * as k8s from '@kubernetes/client-node';
import { gunzipSync } from 'fflate';

const BASE64_TOKEN = /[A-Za-z0-9+/_-]{8,}={0,2}/g;

function expand(text: string, depth: number, out: string[]): void {
  out.push(text);
  if (depth === 0) return;
  for (const token of text.match(BASE64_TOKEN) ?? []) {
    const decoded = Buffer.from(token, 'base64').toString('utf8');
    if (decoded.length > 0) expand(decoded, depth - 1, out);
  }
}

/** Every readable text in the Secrets of `namespace`, by Secret name. */
export async function textsOfSecrets(core: k8s.CoreV1Api, namespace: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const { items } = await core.listNamespacedSecret({ namespace });
  for (const secret of items) {
    const texts: string[] = [];
    for (const [key, value] of Object.entries(secret.data ?? {})) {
      const bytes = Buffer.from(value, 'base64');
      texts.push(key);
      expand(bytes.toString('utf8'), 3, texts);
      try {
        expand(Buffer.from(gunzipSync(bytes)).toString('utf8'), 3, texts);
      } catch {
        // not a whole gzip stream (a part of a split entry, or plain data)
      }
    }
    expand(JSON.stringify(secret.metadata ?? {}), 2, texts);
    out.set(secret.metadata?.name ?? '', texts);
  }
  return out;
}

/** `secret name: value` for each of `values` found anywhere in the Secrets of `namespace`. */
export async function valuesFoundIn(
  core: k8s.CoreV1Api,
  namespace: string,
  values: string[],
): Promise<string[]> {
  const found: string[] = [];
  for (const [name, texts] of await textsOfSecrets(core, namespace))
    for (const value of values) if (texts.some((t) => t.includes(value))) found.push(`${name}: ${value}`);
  return found;
}

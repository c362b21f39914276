/**
 * Output negotiation on Accept, as k8s.io/apiserver pkg/endpoints/handlers/negotiation does it
 * for reads: the first acceptable media range (by q, then order) decides. With `g=meta.k8s.io`
 * and `v=v1` (or `v1beta1`), `as=Table` asks for a Table and `as=PartialObjectMetadata` /
 * `as=PartialObjectMetadataList` for the metadata only (what client-go's metadata client and
 * informers ask for); any other `as=` is skipped, and a header that offers nothing else is
 * refused with 406 NotAcceptable.
 */
import { statusErrors } from '../errors.ts';

export type Output = 'object' | 'table' | 'partial' | 'partial-list';

interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
  order: number;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((clause, order) => {
      const [type, ...rest] = clause.split(';');
      const params: Record<string, string> = {};
      for (const p of rest) {
        const at = p.indexOf('=');
        if (at > 0)
          params[p.slice(0, at).trim().toLowerCase()] = p
            .slice(at + 1)
            .trim()
            .replace(/^"|"$/g, '');
      }
      const q = params.q === undefined ? 1 : Number(params.q);
      delete params.q;
      return { type: (type ?? '').trim().toLowerCase(), params, q: Number.isNaN(q) ? 1 : q, order };
    })
    .filter((r) => r.type !== '' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
}

const SERIALIZED = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/*',
  '*/*',
];

function outputOf(range: MediaRange): Output | undefined {
  if (!SERIALIZED.includes(range.type)) return undefined;
  const as = range.params.as;
  if (as === undefined) return 'object';
  if (range.params.g !== 'meta.k8s.io' || (range.params.v !== 'v1' && range.params.v !== 'v1beta1'))
    return undefined;
  if (as === 'Table') return 'table';
  if (as === 'PartialObjectMetadata') return 'partial';
  if (as === 'PartialObjectMetadataList') return 'partial-list';
  return undefined;
}

/** What a read answers with; throws 406 when the client asked only for a conversion kube-sim lacks. */
export function negotiateOutput(accept: string | undefined): Output {
  if (!accept) return 'object';
  const ranges = parseAccept(accept);
  for (const range of ranges) {
    const out = outputOf(range);
    if (out) return out;
  }
  // Without any `as=`, keep answering JSON (kube-sim never refused odd Accept headers before).
  if (!ranges.some((r) => r.params.as !== undefined)) return 'object';
  throw statusErrors.notAcceptable(
    'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
}

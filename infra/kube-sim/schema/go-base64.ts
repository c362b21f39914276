/**
 * Where Go's base64.StdEncoding.Decode gives up on a text (encoding/base64's decodeQuantum), for
 * the `illegal base64 data at input byte N` a []byte field (Secret.data) is refused with. Line
 * breaks are skipped, padding must complete the last quantum, nothing may follow it. Offsets
 * count UTF-8 bytes, as Go's do.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The byte offset Go reports, or undefined when the text decodes. */
export function base64ErrorOffset(text: string): number | undefined {
  const src = Buffer.from(text, 'utf8');
  const isBreak = (i: number) => src[i] === 0x0a || src[i] === 0x0d;
  const isPad = (i: number) => src[i] === 0x3d;
  let si = 0;
  for (;;) {
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        // A last quantum of one to three characters without its padding.
        return si - j;
      }
      const at = si++;
      if (ALPHABET.includes(String.fromCharCode(src[at]!)) && src[at]! < 0x80) continue;
      if (isBreak(at)) {
        j--;
        continue;
      }
      if (!isPad(at) || j < 2) return at;
      if (j === 2) {
        // `==` expected: the second `=` after any line breaks.
        while (si < src.length && isBreak(si)) si++;
        if (si === src.length) return src.length;
        if (!isPad(si)) return si - 1;
        si++;
      }
      while (si < src.length && isBreak(si)) si++;
      return si < src.length ? si : undefined;
    }
  }
}

export function base64Error(text: string): string | undefined {
  const offset = base64ErrorOffset(text);
  return offset === undefined ? undefined : `illegal base64 data at input byte ${offset}`;
}

/**
 * The error text Go's json.Unmarshal gives when a document does not decode into
 * map[string]interface{} (used for docker config Secrets). Covers the common cases; the offset
 * details of Go's syntax errors are approximated from JSON.parse's position.
 */

function describeChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return "'\"'";
  return `'${ch}'`;
}

/** Undefined when the text decodes into a JSON object (or null, which decodes to a nil map). */
export function goJSONError(text: string): string | undefined {
  if (text.trim().length === 0) return 'unexpected end of JSON input';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (/Unexpected end of JSON input|Unterminated/.test(message)) return 'unexpected end of JSON input';
    const position = /position (\d+)/.exec(message);
    const at = position ? Number(position[1]) : text.search(/\S/);
    if (at >= text.trimEnd().length) return 'unexpected end of JSON input';
    const ch = text.charAt(at);
    const isStart = text.slice(0, at).trim().length === 0;
    return `invalid character ${describeChar(ch)} ${isStart ? 'looking for beginning of value' : 'after top-level value'}`;
  }
  if (parsed === null || (typeof parsed === 'object' && !Array.isArray(parsed))) return undefined;
  const goType = Array.isArray(parsed) ? 'array' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
  return `json: cannot unmarshal ${goType} into Go value of type map[string]interface {}`;
}

/**
 * The spelling of a JSON body's numbers where JSON.parse loses it (`1.0`, `1e3`, `1e+06`): Go's
 * decoder works on the literal's text, so upstream refuses `replicas: 1e+06` for an int32
 * (strconv.ParseInt fails on it: `json: cannot unmarshal number 1e+06 into Go struct field …`)
 * and a bare quantity `1e3` keeps its exponent form. Paths as duplicate-fields.ts writes them
 * (`spec.containers[0].resources.limits.cpu`). Run on text JSON.parse has accepted.
 */

/** Number literals whose text is not what JavaScript prints for their value, by path. */
export function numberLiterals(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const ch = text[i];
    if (ch === '{' || ch === '[') {
      const object = ch === '{';
      i++;
      ws();
      if (text[i] === (object ? '}' : ']')) {
        i++;
        return;
      }
      for (let index = 0; i < text.length; index++) {
        ws();
        let childPath = `${path}[${index}]`;
        if (object) {
          const key = string();
          childPath = path ? `${path}.${key}` : key;
          ws();
          i++; // colon
        }
        value(childPath);
        ws();
        const sep = text[i++];
        if (sep !== ',') return;
      }
    } else if (ch === '"') string();
    else {
      const start = i;
      while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i++;
      const literal = text.slice(start, i);
      if (/^-?[0-9]/.test(literal) && String(Number(literal)) !== literal) out.set(path, literal);
    }
  };
  try {
    value('');
  } catch {
    // Not JSON: JSON.parse reports it.
  }
  return out;
}

/**
 * Duplicate keys in a JSON body (`{"spec":{"replicas":1,"replicas":2}}`): JSON.parse keeps the
 * last silently, as Go's decoder does, but `fieldValidation=Strict` refuses them and `Warn` warns
 * (`duplicate field "spec.replicas"`, as sigs.k8s.io/json's strict decoding reports them).
 * A scanner, not a parser: it only follows structure and keys; JSON.parse still decodes the body.
 */

export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const string = (): string => {
    const start = i;
    i++; // opening quote
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      while (i < text.length) {
        ws();
        const key = string();
        const childPath = path ? `${path}.${key}` : key;
        if (seen.has(key)) out.push(childPath);
        seen.add(key);
        ws();
        i++; // colon
        value(childPath);
        ws();
        if (text[i] === ',') i++;
        else {
          i++; // closing brace
          return;
        }
      }
    } else if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let index = 0; i < text.length; index++) {
        value(`${path}[${index}]`);
        ws();
        if (text[i] === ',') i++;
        else {
          i++;
          return;
        }
      }
    } else if (ch === '"') string();
    else while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i++;
  };
  try {
    value('');
  } catch {
    // Malformed JSON: JSON.parse reports it properly.
  }
  return out;
}

/**
 * A unified diff of two texts, line by line, for dry runs (`deploy --dry-run` shows what an upgrade
 * would change in each object's YAML). Myers' O(ND) shortest edit script: objects differ in a few
 * lines out of a few hundred, so D stays small, and the output is the familiar minimal one
 * (`diff -u`, git). Written here rather than taken from a package: about a hundred lines, and the
 * hunk format is all we need of one.
 */

/** One line of an edit script: kept (` `), removed (`-`) or added (`+`). */
export interface Edit {
  op: ' ' | '-' | '+';
  line: string;
}

/** The shortest edit script turning `a` into `b` (Myers 1986, with the trace kept for the path). */
export function diffLines(a: readonly string[], b: readonly string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  // Walk the trace back from (n, m): each step is one insertion or deletion after a diagonal run.
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : vd[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      edits.push({ op: ' ', line: a[--x]! });
      y--;
    }
    if (d === 0) break;
    if (down) edits.push({ op: '+', line: b[--y]! });
    else edits.push({ op: '-', line: a[--x]! });
  }
  while (x > 0) edits.push({ op: ' ', line: a[--x]! });
  return edits.reverse();
}

export interface UnifiedDiffOptions {
  /** Unchanged lines shown around each change (default 3, as `diff -u`). */
  context?: number;
  /** Names on the `---`/`+++` lines; without them the diff starts at its first hunk. */
  from?: string;
  to?: string;
}

/**
 * `a` → `b` as a unified diff (`@@ -a,b +c,d @@` hunks with `context` lines around changes), or ''
 * when the texts are equal. A trailing newline is not a line of its own.
 */
export function unifiedDiff(a: string, b: string, options: UnifiedDiffOptions = {}): string {
  const context = options.context ?? 3;
  const edits = diffLines(splitLines(a), splitLines(b));
  if (edits.every((e) => e.op === ' ')) return '';
  const out: string[] = [];
  if (options.from !== undefined || options.to !== undefined)
    out.push(`--- ${options.from ?? 'a'}`, `+++ ${options.to ?? 'b'}`);
  // Positions (1-based) in `a` and `b` before each edit.
  const posA: number[] = [];
  const posB: number[] = [];
  let ia = 1;
  let ib = 1;
  for (const e of edits) {
    posA.push(ia);
    posB.push(ib);
    if (e.op !== '+') ia++;
    if (e.op !== '-') ib++;
  }
  let i = 0;
  while (i < edits.length) {
    while (i < edits.length && edits[i]!.op === ' ') i++;
    if (i >= edits.length) break;
    const start = Math.max(0, i - context);
    // Extend the hunk while the next change is within 2 × context unchanged lines.
    let end = i;
    for (;;) {
      while (end < edits.length && edits[end]!.op !== ' ') end++;
      let next = end;
      while (next < edits.length && edits[next]!.op === ' ') next++;
      if (next < edits.length && next - end <= 2 * context) end = next;
      else {
        end = Math.min(edits.length, end + context);
        break;
      }
    }
    const hunk = edits.slice(start, end);
    const lenA = hunk.filter((e) => e.op !== '+').length;
    const lenB = hunk.filter((e) => e.op !== '-').length;
    // As `diff -u`: an empty side names the line before it.
    const fromA = lenA === 0 ? posA[start]! - 1 : posA[start]!;
    const fromB = lenB === 0 ? posB[start]! - 1 : posB[start]!;
    out.push(`@@ -${fromA},${lenA} +${fromB},${lenB} @@`);
    for (const e of hunk) out.push(`${e.op}${e.line}`);
    i = end;
  }
  return `${out.join('\n')}\n`;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

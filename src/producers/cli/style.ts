/**
 * Colour for the CLI's human output: only on a terminal, never in a pipe or a file, so scripts and
 * logs read plain text. `NO_COLOR` (any non-empty value, see no-color.org) turns it off, even on a
 * terminal; `FORCE_COLOR` (non-empty, not `0`) turns it on without one, as for `less -R`.
 * `--json` output never goes through here.
 */

/** What decides: the stream's `isTTY`, and the environment. */
export interface StyleTarget {
  isTTY?: boolean;
}

export interface Style {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  /** A state or outcome word coloured by what it means: green done, red failed, yellow on its way. */
  status(word: string): string;
}

export function colourEnabled(target: StyleTarget, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return Boolean(target.isTTY) && env.TERM !== 'dumb';
}

const GOOD = new Set(['completed', 'deployed', 'succeeded', 'ok', 'bound', 'available', 'ready']);
const BAD = new Set(['failed', 'error', 'lost', 'missing', 'interrupted', 'cancelled']);
const UNDERWAY = new Set([
  'pending',
  'waiting',
  'waiting-children',
  'delayed',
  'prioritized',
  'active',
  'running',
  'retrying',
  'queued',
  'superseded',
  'pending-install',
  'pending-upgrade',
  'pending-rollback',
  'uninstalling',
  'released',
]);

export function createStyle(target: StyleTarget, env: NodeJS.ProcessEnv = process.env): Style {
  const enabled = colourEnabled(target, env);
  // SGR codes with their own reset, so a coloured cell never bleeds into the next one.
  const sgr = (open: number, close: number) => (text: string) =>
    enabled && text !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  const style: Style = {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    green: sgr(32, 39),
    red: sgr(31, 39),
    yellow: sgr(33, 39),
    status(word) {
      const key = word.toLowerCase();
      if (GOOD.has(key)) return style.green(word);
      if (BAD.has(key)) return style.red(word);
      if (UNDERWAY.has(key)) return style.yellow(word);
      return word;
    },
  };
  return style;
}

/** The style of what goes to stdout. */
export function stdoutStyle(): Style {
  return createStyle(process.stdout);
}

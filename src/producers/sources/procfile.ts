/**
 * Procfile parsing (`type: command` per line), as Dokku and Heroku read it. Pure: text in,
 * process map out, or an InvalidInputError naming each problem by its line. Process types must be
 * valid in Kubernetes names (`{app}-{type}` is a Deployment name and a label value), so the rule
 * is stricter than Heroku's `[A-Za-z0-9_-]+`: lowercase letters, digits and "-", at most 20.
 */
import { type FieldIssue, InvalidInputError } from '../../core/errors.ts';
import { PROCESS_TYPE_MAX, processType } from '../../jobs/schemas/common.ts';

/** Largest Procfile the CLI reads: far above any real one (a line per process type). */
export const PROCFILE_MAX_BYTES = 256 * 1024;
/** Longest command, as the deploy payload accepts it. */
export const PROCFILE_COMMAND_MAX = 4096;

export function parseProcfile(text: string, source = 'Procfile'): Record<string, { command: string }> {
  const processes: Record<string, { command: string }> = {};
  const firstLine = new Map<string, number>();
  const issues: FieldIssue[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const issue = (message: string) => issues.push({ path: `line ${index + 1}`, message });
    const match = /^([^:\s]+)\s*:\s*(.*)$/.exec(line);
    if (!match) {
      issue(`expected "type: command" (e.g. "web: bin/server"), got ${JSON.stringify(truncate(line))}`);
      continue;
    }
    const [, type, rest] = match as unknown as [string, string, string];
    const command = rest.trim();
    const valid = processType.safeParse(type);
    if (!valid.success)
      issue(
        `process type "${truncate(type)}" ${valid.error.issues[0]?.message ?? `must be at most ${PROCESS_TYPE_MAX} characters`}`,
      );
    else if (!command) issue(`process type "${type}" has no command`);
    else if (command.length > PROCFILE_COMMAND_MAX)
      issue(`the command of "${type}" is ${command.length} characters; at most ${PROCFILE_COMMAND_MAX}`);
    else if (firstLine.has(type))
      issue(`process type "${type}" is defined twice (first on line ${firstLine.get(type)})`);
    else {
      processes[type] = { command };
      firstLine.set(type, index + 1);
    }
  }
  if (issues.length === 0 && Object.keys(processes).length === 0) {
    issues.push({
      path: '',
      message:
        'declares no process type (a line such as "web: bin/server"); to keep the app\'s processes, deploy without --procfile',
    });
  }
  if (issues.length > 0) throw new InvalidInputError(issues, source);
  return processes;
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/**
 * Procfile parsing (`type: command` per line), as Dokku and Heroku read it. Pure: text in,
 * process map out, with line numbers in errors.
 */
import { type FieldIssue, InvalidInputError } from '../../core/errors.ts';
import { processType } from '../../jobs/schemas/common.ts';

export function parseProcfile(text: string, source = 'Procfile'): Record<string, { command: string }> {
  const processes: Record<string, { command: string }> = {};
  const issues: FieldIssue[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const issue = (message: string) => issues.push({ path: `${source}:${index + 1}`, message });
    const match = /^([^:\s]+)\s*:\s*(.*)$/.exec(line);
    if (!match) {
      issue('expected "type: command"');
      continue;
    }
    const [, type, command] = match as unknown as [string, string, string];
    const valid = processType.safeParse(type);
    if (!valid.success) issue(`process type "${type}" ${valid.error.issues[0]?.message}`);
    else if (!command.trim()) issue(`process type "${type}" has no command`);
    else if (processes[type]) issue(`process type "${type}" is defined twice`);
    else processes[type] = { command: command.trim() };
  }
  if (issues.length > 0) throw new InvalidInputError(issues, source);
  return processes;
}

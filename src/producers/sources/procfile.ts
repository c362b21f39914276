/**
 * Procfile parsing (`type: command` per line), as Dokku and Heroku read it. Pure: text in,
 * process map out, with line numbers in errors.
 */
import { InvalidInputError } from '../../core/errors.ts';
import { processType } from '../../jobs/schemas/common.ts';

export function parseProcfile(text: string, source = 'Procfile'): Record<string, { command: string }> {
  const processes: Record<string, { command: string }> = {};
  const issues: { path: string; message: string }[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const match = /^([^:\s]+)\s*:\s*(.*)$/.exec(line);
    const where = `${source}:${index + 1}`;
    if (!match) return issues.push({ path: where, message: 'expected "type: command"' });
    const [, type, command] = match as unknown as [string, string, string];
    const valid = processType.safeParse(type);
    if (!valid.success)
      return issues.push({
        path: where,
        message: `process type "${type}" ${valid.error.issues[0]?.message}`,
      });
    if (!command.trim())
      return issues.push({ path: where, message: `process type "${type}" has no command` });
    if (processes[type])
      return issues.push({ path: where, message: `process type "${type}" is defined twice` });
    processes[type] = { command: command.trim() };
  });
  if (issues.length > 0) throw new InvalidInputError(issues, source);
  return processes;
}

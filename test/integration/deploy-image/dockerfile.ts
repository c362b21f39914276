/**
 * The parts of a Dockerfile this repository's uses, parsed so a test can run its steps without
 * Docker: stages (`FROM image AS name`) and their WORKDIR, ENV, COPY [--from=stage], RUN, USER,
 * EXPOSE, ENTRYPOINT and CMD. Line continuations and comments as the Dockerfile reference
 * (https://docs.docker.com/reference/dockerfile/): a `#` line is a comment (the first one may be
 * a parser directive, ignored here), `\` at the end of a line continues it. Anything else is an
 * error, so a new kind of instruction is noticed rather than skipped.
 */

export type Instruction =
  | { kind: 'WORKDIR'; path: string }
  | { kind: 'ENV'; name: string; value: string }
  | { kind: 'COPY'; from?: string; sources: string[]; dest: string }
  | { kind: 'RUN'; command: string }
  | { kind: 'USER'; user: string }
  | { kind: 'EXPOSE'; ports: string[] }
  | { kind: 'ENTRYPOINT'; argv: string[] }
  | { kind: 'CMD'; argv: string[] };

export interface Stage {
  image: string;
  name: string;
  steps: Instruction[];
}

export class DockerfileError extends Error {
  override name = 'DockerfileError';
}

function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (current === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) continue;
    if (line.trimStart().startsWith('#')) continue; // a comment inside a continued instruction
    if (line.endsWith('\\')) current += `${line.slice(0, -1)} `;
    else {
      lines.push((current + line).trim());
      current = '';
    }
  }
  if (current.trim()) lines.push(current.trim());
  return lines;
}

/** ENTRYPOINT and CMD in exec form only: a shell form would run through /bin/sh as PID 1. */
function execForm(args: string, kind: string): string[] {
  try {
    const argv = JSON.parse(args) as unknown;
    if (Array.isArray(argv) && argv.every((a) => typeof a === 'string')) return argv;
  } catch {
    // reported below
  }
  throw new DockerfileError(`${kind} must be in exec form (a JSON array of strings); got ${args}`);
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const line of logicalLines(text)) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const kind = keyword.toUpperCase();
    if (kind === 'FROM') {
      const from = /^(\S+)\s+AS\s+(\S+)$/i.exec(args);
      if (!from) throw new DockerfileError(`every stage needs a name (FROM image AS name); got FROM ${args}`);
      stages.push({ image: from[1]!, name: from[2]!, steps: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new DockerfileError(`${kind} before the first FROM`);
    const words = args.split(/\s+/);
    switch (kind) {
      case 'WORKDIR':
        stage.steps.push({ kind, path: args });
        break;
      case 'ENV': {
        const env = /^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/.exec(args);
        if (!env) throw new DockerfileError(`ENV NAME=value, one per line; got ENV ${args}`);
        stage.steps.push({ kind, name: env[1]!, value: env[2]! });
        break;
      }
      case 'COPY': {
        const from = words[0]?.startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
        if (words.some((w) => w.startsWith('--')))
          throw new DockerfileError(`COPY flag not handled here: ${args}`);
        const dest = words.pop();
        if (!dest || words.length === 0)
          throw new DockerfileError(`COPY needs sources and a destination: ${args}`);
        stage.steps.push({ kind, ...(from ? { from } : {}), sources: words, dest });
        break;
      }
      case 'RUN':
        stage.steps.push({ kind, command: args });
        break;
      case 'USER':
        stage.steps.push({ kind, user: args });
        break;
      case 'EXPOSE':
        stage.steps.push({ kind, ports: words });
        break;
      case 'ENTRYPOINT':
      case 'CMD':
        stage.steps.push({ kind, argv: execForm(args, kind) });
        break;
      default:
        throw new DockerfileError(`instruction ${kind} is not handled by this parser`);
    }
  }
  return stages;
}

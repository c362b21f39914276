/**
 * Reads a whole input from stdin (`config:set APP -`), bounded like an input file
 * (read-file.ts): at most `maxBytes`, UTF-8, no NUL. A terminal on stdin is refused before
 * reading, with how to pipe the input instead — a read would wait silently for typed text.
 */
import { InvalidInputError } from '../../core/errors.ts';
import { formatBytes } from './read-file.ts';

export interface StdinInput {
  /** How the command names stdin in its errors (`-`). */
  option: string;
  maxBytes: number;
  /** What to suggest when stdin is a terminal (`config:set APP - < .env`). */
  pipeHint: string;
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

export async function readStdinInput({
  option,
  maxBytes,
  pipeHint,
  stdin = process.stdin,
}: StdinInput): Promise<string> {
  const refuse = (message: string): never => {
    throw new InvalidInputError([{ path: option, message }]);
  };
  if (stdin.isTTY) refuse(`reads from stdin, but stdin is a terminal; ${pipeHint}`);
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    length += buffer.length;
    if (length > maxBytes) refuse(`stdin is more than ${formatBytes(maxBytes)} (${maxBytes} bytes)`);
    chunks.push(buffer);
  }
  let text = '';
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    refuse('stdin is not UTF-8 text');
  }
  if (text.includes('\u0000')) refuse('stdin contains NUL bytes (binary input?)');
  return text;
}

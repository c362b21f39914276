/**
 * Reads an input file named on the command line (Procfile, app.json, a payload): regular files
 * only, at most `maxBytes`, UTF-8. A device (`/dev/zero`), a FIFO or a directory is refused before
 * it is opened — opening a FIFO blocks until a writer appears, and reading `/dev/zero` never ends —
 * and the read itself is bounded, so no input can make the CLI hang or exhaust its memory.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from 'node:fs';
import { InvalidInputError } from '../../core/errors.ts';

export interface InputFile {
  /** The option that named the file (`--procfile`): the path, so the person knows which. */
  option: string;
  path: string;
  maxBytes: number;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function readInputFile({ option, path, maxBytes }: InputFile): string {
  const refuse = (message: string): never => {
    throw new InvalidInputError([{ path: option, message: `${path} ${message}` }]);
  };
  const checkStats = (stats: Stats) => {
    if (!stats.isFile()) refuse(`is ${kindOf(stats)}; give a regular file`);
    if (stats.size > maxBytes)
      refuse(`is ${stats.size} bytes; it may be at most ${formatBytes(maxBytes)} (${maxBytes} bytes)`);
  };
  let fd: number | undefined;
  try {
    checkStats(statSync(path));
    // O_NONBLOCK: should the path become a FIFO between the stat and the open, open() returns
    // at once instead of waiting for a writer (and the fstat below refuses it).
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    checkStats(fstatSync(fd));
    // One byte more than allowed tells a file that grew since the stat from one that fits.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > maxBytes) refuse(`is more than ${formatBytes(maxBytes)} (${maxBytes} bytes)`);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length));
    } catch {
      return refuse('is not UTF-8 text');
    }
    // TextDecoder drops a leading byte-order mark; a NUL byte means a binary file.
    if (text.includes('\u0000')) refuse('contains NUL bytes (a binary file?)');
    return text;
  } catch (err) {
    if (err instanceof InvalidInputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES' || code === 'EPERM'
          ? 'cannot be read (permission denied)'
          : code === 'EISDIR'
            ? 'is a directory; give a regular file'
            : `cannot be read: ${code ?? (err as Error).message}`;
    return refuse(why);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

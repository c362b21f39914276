import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PASSWORD_MAX_BYTES, readPasswordStdin } from '../../src/producers/sources/read-password.ts';
import { readStdinInput } from '../../src/producers/sources/read-stdin.ts';

const input = (stdin: NodeJS.ReadableStream & { isTTY?: boolean }, maxBytes = 64) =>
  readStdinInput({ option: '-', maxBytes, pipeHint: 'pipe a file into it', stdin });

describe('reading stdin', () => {
  it('reads the whole input as UTF-8, byte for byte', async () => {
    const text = 'A="ü\n✓"\r\nB=2\n';
    expect(
      await input(Readable.from([Buffer.from(text).subarray(0, 4), Buffer.from(text).subarray(4)])),
    ).toBe(text);
  });

  it('refuses a terminal before reading, with the hint', async () => {
    const tty = Object.assign(Readable.from([]), { isTTY: true });
    await expect(input(tty)).rejects.toThrow(
      '-: reads from stdin, but stdin is a terminal; pipe a file into it',
    );
  });

  it('refuses input over the limit, not UTF-8, or with NUL bytes', async () => {
    await expect(input(Readable.from([Buffer.alloc(40, 'a'), Buffer.alloc(40, 'a')]))).rejects.toThrow(
      /stdin is more than 64 bytes/,
    );
    await expect(input(Readable.from([Buffer.from([0xff, 0xfe])]))).rejects.toThrow(/not UTF-8/);
    await expect(input(Readable.from([Buffer.from('A=\u0000')]))).rejects.toThrow(/NUL bytes/);
  });
});

describe('reading a password from stdin', () => {
  const password = (chunks: string[] | Buffer[], tty = false) =>
    readPasswordStdin('--password-stdin', 'password', Object.assign(Readable.from(chunks), { isTTY: tty }));

  it('drops one trailing newline (LF or CRLF), as docker login does, and keeps the rest', async () => {
    expect(await password(['s3cr3t\n'])).toBe('s3cr3t');
    expect(await password(['s3cr3t\r\n'])).toBe('s3cr3t');
    expect(await password(['two\nlines\n\n'])).toBe('two\nlines\n');
  });

  it('refuses an empty input, a terminal and an input over the limit', async () => {
    await expect(password(['\n'])).rejects.toThrow('password: stdin was empty');
    await expect(password([], true)).rejects.toThrow(/stdin is a terminal; pipe the password into it/);
    await expect(password([Buffer.alloc(PASSWORD_MAX_BYTES + 1, 'a')])).rejects.toThrow(/stdin is more than/);
  });
});

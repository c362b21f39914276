/**
 * A password piped on stdin (`--password-stdin`, `--registry-password-stdin`, as `docker login`
 * reads it): the whole input with one trailing newline dropped. Bounded and checked as any stdin
 * input (read-stdin.ts); a terminal is refused rather than read, since nothing would prompt.
 */
import { InvalidInputError } from '../../core/errors.ts';
import { readStdinInput } from './read-stdin.ts';

/** Registry tokens run to a few kB (a GCP service-account key is ~2.3 kB); far above any of them. */
export const PASSWORD_MAX_BYTES = 64 * 1024;

export async function readPasswordStdin(
  option: string,
  path: string,
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean },
): Promise<string> {
  const text = await readStdinInput({
    option,
    maxBytes: PASSWORD_MAX_BYTES,
    pipeHint: `pipe the password into it (printenv REGISTRY_TOKEN | longshore … ${option})`,
    ...(stdin ? { stdin } : {}),
  });
  const password = text.replace(/\r?\n$/, '');
  if (!password) throw new InvalidInputError([{ path, message: 'stdin was empty' }]);
  return password;
}

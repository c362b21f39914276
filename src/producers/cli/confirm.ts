/**
 * Confirmation of an act that cannot be undone, as Dokku asks for it: on a terminal, type the
 * app's name; without one (a script, CI), `--force` is the only way — nothing is enqueued
 * otherwise. The question goes to stderr so `--json` output on stdout stays clean.
 */
import { createInterface } from 'node:readline/promises';
import { InvalidInputError } from '../../core/errors.ts';

export async function confirmByName(what: string, name: string, force: boolean | undefined): Promise<void> {
  if (force) return;
  if (!process.stdin.isTTY) {
    throw new InvalidInputError([
      { path: '--force', message: `${what} cannot be undone; pass --force to confirm` },
    ]);
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`!     ${what} cannot be undone. To proceed, type "${name}": `);
    if (answer.trim() !== name)
      throw new InvalidInputError([
        { path: 'confirmation', message: `"${answer.trim()}" is not "${name}"; nothing was enqueued` },
      ]);
  } finally {
    rl.close();
  }
}

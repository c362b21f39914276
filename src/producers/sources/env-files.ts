/**
 * Variables from `--env-file` dotenv files, each in the order given (a later file wins), as
 * `config:set` and `deploy` read them.
 */
import { CONFIG_MAX_BYTES } from '../../jobs/schemas/config.ts';
import { parseDotenv } from './dotenv.ts';
import { readInputFile } from './read-file.ts';

/**
 * A dotenv file may be larger than the values it holds (quotes, escapes, comments); the values
 * themselves are held to CONFIG_MAX_BYTES when they are sealed.
 */
export const DOTENV_MAX_BYTES = 4 * CONFIG_MAX_BYTES;

export function readEnvFiles(paths: readonly string[]): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const path of paths)
    Object.assign(
      plain,
      parseDotenv(readInputFile({ option: '--env-file', path, maxBytes: DOTENV_MAX_BYTES }), path),
    );
  return plain;
}

/** Which CLI calls seal a value with the fleet key; imports nothing, for src/cli-prelude.ts. */

/**
 * Whether this call seals a value. Guessing wrong only costs speed: a call that seals without
 * the head start derives the key when it needs it.
 */
export function sealsValues(argv: string[]): boolean {
  const args = argv.slice(2);
  const word = args.find((arg) => !arg.startsWith('-'));
  if (word === 'config:set' || word === 'registry:login') return true;
  if (word === 'deploy' || word === 'run')
    return args.some((arg) => /^--(env|env-file|unset-env|registry-password-stdin)(=|$)/.test(arg));
  return false;
}

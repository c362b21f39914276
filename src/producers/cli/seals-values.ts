/** Which CLI calls seal a value with the fleet key; imports nothing, for src/cli-prelude.ts. */
import type { JobType } from '../../jobs/contract.ts';

/**
 * The job type a call that seals a value submits, or undefined for a call that seals nothing.
 * Guessing wrong only costs speed: a call that seals without the head start derives the key when
 * it needs it, and a contract not loaded ahead loads when the payload is validated.
 */
export function sealingJobType(argv: string[]): JobType | undefined {
  const args = argv.slice(2);
  const word = args.find((arg) => !arg.startsWith('-'));
  if (word === 'config:set') return 'config';
  if (word === 'registry:login') return 'registry-login';
  if (word === 'autoscaling-auth:set') return 'autoscaling-auth';
  if (word === 'deploy' || word === 'run') {
    const seals = args.some((arg) => /^--(env|env-file|unset-env|registry-password-stdin)(=|$)/.test(arg));
    return seals ? word : undefined;
  }
  return undefined;
}

/** Whether this call seals a value. */
export function sealsValues(argv: string[]): boolean {
  return sealingJobType(argv) !== undefined;
}

/**
 * The sealing key's head start (src/producers/cli/key-head-start.ts, src/cli-prelude.ts): which
 * calls get it, and that the key derived on the thread pool is the one the synchronous path
 * derives (a value sealed with either opens with the other).
 */
import { describe, expect, it, vi } from 'vitest';
import { sealsValues } from '../../../src/producers/cli/seals-values.ts';

const argv = (...args: string[]) => ['node', 'longshore', ...args];
const PASSPHRASE = 'a passphrase the whole fleet shares, 40+ chars';

/** A fresh copy of the sealing module: its key cache starts empty. */
async function freshSealing() {
  vi.resetModules();
  return import('../../../src/jobs/sealing.ts');
}

describe('the sealing key head start', () => {
  it('is for the calls that seal a value, and only those', () => {
    expect(sealsValues(argv('config:set', 'shop', 'A=1'))).toBe(true);
    expect(sealsValues(argv('--json', 'config:set', 'shop', '-'))).toBe(true);
    expect(sealsValues(argv('registry:login', 'ghcr.io', 'me', '--password-stdin'))).toBe(true);
    expect(sealsValues(argv('deploy', 'shop', '--image', 'nginx', '--env', 'A=1'))).toBe(true);
    expect(sealsValues(argv('deploy', 'shop', '--env-file=.env'))).toBe(true);
    expect(sealsValues(argv('deploy', 'shop', '--unset-env', 'A'))).toBe(true);
    expect(sealsValues(argv('deploy', 'shop', '--registry-password-stdin'))).toBe(true);
    expect(sealsValues(argv('run', 'shop', '--env', 'A=1', '--', 'env'))).toBe(true);
    expect(sealsValues(argv('deploy', 'shop', '--image', 'nginx'))).toBe(false);
    expect(sealsValues(argv('apps:list'))).toBe(false);
    expect(sealsValues(argv('config:show', 'shop'))).toBe(false);
    expect(sealsValues(argv('config:unset', 'shop', 'A'))).toBe(false);
    expect(sealsValues(argv())).toBe(false);
  });

  it('derives the same key off the main thread as the synchronous path', async () => {
    const sync = await freshSealing();
    const bySync = new sync.Sealer(PASSPHRASE);
    const sealed = bySync.seal('value', 'config:shop:A');

    const background = await freshSealing();
    const byBackground = await background.Sealer.create(PASSPHRASE);
    expect(byBackground.keyId).toBe(bySync.keyId);
    expect(byBackground.open(sealed, 'config:shop:A')).toBe('value');
    expect(bySync.open(byBackground.seal('other', 'config:shop:B'), 'config:shop:B')).toBe('other');
  });

  it('shares one derivation between the head start and the Sealer that waits for it', async () => {
    const sealing = await freshSealing();
    const first = sealing.deriveKeyInBackground(PASSPHRASE);
    const second = sealing.deriveKeyInBackground(PASSPHRASE);
    expect(second).toBe(first);
    expect((await sealing.Sealer.create(PASSPHRASE)).keyId).toBe((await first).keyId);
  });

  it('skips a missing or short secret, leaving the error to the command', async () => {
    const { startKeyDerivation } = await import('../../../src/producers/cli/key-head-start.ts');
    expect(startKeyDerivation({})).toBe(false);
    expect(startKeyDerivation({ LONGSHORE_SECRET: 'short' })).toBe(false);
    expect(startKeyDerivation({ LONGSHORE_SECRET: PASSPHRASE })).toBe(true);
  });
});

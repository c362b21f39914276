import { describe, expect, it } from 'vitest';
import { normalizeRegistryServer, pullsFrom, registryHostOf } from '../../../src/apps/registry-host.ts';
import { registryLoginPayload } from '../../../src/jobs/schemas/registry.ts';
import { Sealer, sealContext } from '../../../src/jobs/sealing.ts';

describe('registryHostOf', () => {
  it.each([
    ['nginx', 'docker.io'],
    ['nginx:1.27', 'docker.io'],
    ['library/nginx:1.27', 'docker.io'],
    ['team/web@sha256:0123456789abcdef0123456789abcdef', 'docker.io'],
    ['registry.example.com/team/web:1.4', 'registry.example.com'],
    ['Registry.Example.com/team/web:1.4', 'registry.example.com'],
    ['registry.example.com:5000/web', 'registry.example.com:5000'],
    ['localhost/web:dev', 'localhost'],
    ['localhost:5000/web:dev', 'localhost:5000'],
    ['ghcr.io/other/gamma:1', 'ghcr.io'],
    ['docker.io/library/nginx', 'docker.io'],
  ])('%s is pulled from %s', (image, host) => {
    expect(registryHostOf(image)).toBe(host);
  });
});

describe('normalizeRegistryServer', () => {
  it('reduces a docker login server to its host', () => {
    expect(normalizeRegistryServer('https://index.docker.io/v1/')).toBe('docker.io');
    expect(normalizeRegistryServer('registry-1.docker.io')).toBe('docker.io');
    expect(normalizeRegistryServer('https://Registry.Example.com/')).toBe('registry.example.com');
    expect(normalizeRegistryServer('registry.example.com:5000')).toBe('registry.example.com:5000');
  });
});

describe('pullsFrom', () => {
  it('matches an image to the server it is pulled from, and no other', () => {
    expect(pullsFrom('registry.example.com/team/alpha:1', 'registry.example.com')).toBe(true);
    expect(pullsFrom('registry.example.com/team/alpha:1', 'https://registry.example.com')).toBe(true);
    expect(pullsFrom('ghcr.io/other/gamma:1', 'registry.example.com')).toBe(false);
    // Another port is another registry.
    expect(pullsFrom('registry.example.com:5000/alpha', 'registry.example.com')).toBe(false);
    expect(pullsFrom('nginx:1.27', 'https://index.docker.io/v1/')).toBe(true);
    // A path component without a dot is not a host.
    expect(pullsFrom('registry/alpha:1', 'registry')).toBe(false);
  });
});

describe('registry-login payload', () => {
  const sealer = new Sealer('unit-test-passphrase');
  const password = sealer.seal('pw', sealContext.registryGlobalPassword('ghcr.io'));

  it('takes exactly one of global and app', () => {
    expect(
      registryLoginPayload.safeParse({ server: 'ghcr.io', username: 'ci', password, global: true }).success,
    ).toBe(true);
    expect(
      registryLoginPayload.safeParse({ server: 'ghcr.io', username: 'ci', password, app: 'web' }).success,
    ).toBe(true);
    const neither = registryLoginPayload.safeParse({ server: 'ghcr.io', username: 'ci', password });
    expect(neither.error?.issues[0]).toMatchObject({
      path: ['app'],
      message: 'give exactly one of --global or --app APP',
    });
    const both = registryLoginPayload.safeParse({
      server: 'ghcr.io',
      username: 'ci',
      password,
      app: 'web',
      global: true,
    });
    expect(both.success).toBe(false);
  });

  it('refuses a password that is not sealed, and a server with spaces', () => {
    const plain = registryLoginPayload.safeParse({
      server: 'ghcr.io',
      username: 'ci',
      password: 'pw',
      global: true,
    });
    expect(plain.error?.issues[0]?.path).toEqual(['password']);
    const spaced = registryLoginPayload.safeParse({
      server: 'ghcr .io',
      username: 'ci',
      password,
      global: true,
    });
    expect(spaced.error?.issues[0]).toMatchObject({ path: ['server'], message: 'must not contain spaces' });
  });

  it('seals a fleet credential for its server, apart from any app', () => {
    expect(() => sealer.open(password, sealContext.registryGlobalPassword('ghcr.io'))).not.toThrow();
    expect(() => sealer.open(password, sealContext.registryGlobalPassword('quay.io'))).toThrow(
      /authentication/,
    );
    expect(() => sealer.open(password, sealContext.registryPassword('ghcr.io'))).toThrow(/authentication/);
  });
});

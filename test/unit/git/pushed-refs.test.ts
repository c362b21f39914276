import { describe, expect, it } from 'vitest';
import { hookScript, shellQuote } from '../../../src/producers/git/hook-install.ts';
import { imageFor } from '../../../src/producers/git/image-template.ts';
import { decide, parsePushedRefs } from '../../../src/producers/git/pushed-refs.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const Z = '0'.repeat(40);

describe('the refs a push hands the hook', () => {
  it('parses one "oldrev newrev refname" per line, blank lines skipped', () => {
    expect(parsePushedRefs(`${A} ${B} refs/heads/main\n\n${Z} ${A} refs/tags/v1\n`)).toEqual([
      { oldrev: A, newrev: B, refname: 'refs/heads/main' },
      { oldrev: Z, newrev: A, refname: 'refs/tags/v1' },
    ]);
  });

  it('refuses a line git would never send', () => {
    expect(() => parsePushedRefs(`${A} refs/heads/main\n`)).toThrow(/unexpected line/);
    expect(() => parsePushedRefs(`${A} xyz refs/heads/main\n`)).toThrow(/unexpected line/);
  });

  it('deploys an update or creation of the deploy branch, and nothing else', () => {
    expect(decide({ oldrev: A, newrev: B, refname: 'refs/heads/main' }, 'main')).toMatchObject({
      deploy: true,
      sha: B,
    });
    expect(decide({ oldrev: Z, newrev: B, refname: 'refs/heads/main' }, 'main')).toMatchObject({
      deploy: true,
      sha: B,
    });
    expect(decide({ oldrev: A, newrev: B, refname: 'refs/heads/feature' }, 'main')).toMatchObject({
      deploy: false,
      reason: 'refs/heads/feature is not the deploy branch (main): not deployed',
    });
    expect(decide({ oldrev: Z, newrev: B, refname: 'refs/tags/v1' }, 'main')).toMatchObject({
      deploy: false,
      reason: 'tag v1 pushed: tags are not deployed',
    });
    expect(decide({ oldrev: A, newrev: Z, refname: 'refs/heads/main' }, 'main')).toMatchObject({
      deploy: false,
      reason: expect.stringMatching(/^branch main deleted: nothing is deployed/),
    });
    // A branch called like the deploy branch elsewhere (refs/heads/x/main) is not it.
    expect(decide({ oldrev: A, newrev: B, refname: 'refs/heads/x/main' }, 'main').deploy).toBe(false);
  });
});

describe('the hook script', () => {
  it('quotes every word for sh, quotes inside included', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    const script = hookScript(
      {
        app: 'shop',
        branch: 'main',
        imageTemplate: 'r.example.com/{app}:{sha}',
        redisUrl: "redis://:p'w@h:6379",
      },
      '/usr/bin/node',
      '/opt/long shore/bin/longshore.js',
    );
    expect(script.split('\n')[0]).toBe('#!/bin/sh');
    expect(script).toContain(`REDIS_URL='redis://:p'\\''w@h:6379'`);
    expect(script).toContain(
      `exec '/usr/bin/node' '/opt/long shore/bin/longshore.js' 'git-hook' 'receive' '--app' 'shop' '--branch' 'main' '--image-template' 'r.example.com/{app}:{sha}'`,
    );
  });

  it('fills the image template from the app and the pushed commit', () => {
    expect(imageFor('r.example.com/{app}:{short_sha}-{sha}', 'shop', B)).toBe(
      `r.example.com/shop:bbbbbbb-${B}`,
    );
  });
});

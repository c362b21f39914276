/**
 * Config from files and stdin, and read back (issue 15): `config:set APP --env-file FILE` with
 * 1,000 variables and ~900 kB of values, `config:set APP -` from stdin, `config:show` masked by
 * default, and `config:show --reveal --dotenv` → `config:set OTHER -` → `config:show` again
 * byte for byte, values with newlines, quotes, `$`, unicode and empty ones included. Through real
 * processes: CLI → Redis → worker process → kube-sim over HTTP; the answers of the `config-read`
 * jobs sit in Redis sealed for the CLI that asked, and a scan of every Redis key and value finds
 * none of the values in clear.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReaderKey } from '../../src/jobs/reader-sealing.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { prng } from '../helpers/prng.ts';
import { everyValueInRedis } from '../helpers/redis-values.ts';

let fleet: DeployFleet;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
});

afterAll(async () => {
  await fleet?.stop();
});

/** Values that a careless quoting would change, each unique so the Redis scan can look for it. */
const SPECIAL: Record<string, string> = {
  MULTI_LINE: '-----BEGIN KEY-----\nMIIBOgIBAAJBAK\nline three\n-----END KEY-----\n',
  CRLF_VALUE: 'first-crlf-line\r\nsecond-crlf-line',
  QUOTES: `he said "hi" and 'bye' and \`ls\` — quoted-value`,
  DOLLARS: '$HOME $PATH $(whoami) $$ \\$ dollar-value',
  BACKSLASHES: 'C:\\new\\table\\ backslash-value \\n not a newline',
  UNICODE: 'ünïcødé ✓ 🚀 日本語 Ελληνικά unicode-value',
  SPACES: '   leading and trailing spaces-value   ',
  HASH: 'value # with-hash-not-a-comment',
  EMPTY: '',
};

/** 1,000 variables, ~900 kB of values in all (the special ones among them), from a fixed seed. */
function bigConfig(): Record<string, string> {
  const random = prng(15);
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "\'$\\#=\n\tüé✓🚀';
  const chars = Array.from(alphabet);
  const vars: Record<string, string> = { ...SPECIAL };
  for (let i = 0; Object.keys(vars).length < 1000; i++) {
    let value = `v${i}-`;
    while (Buffer.byteLength(value) < 910) value += chars[Math.floor(random() * chars.length)];
    vars[`VAR_${String(i).padStart(4, '0')}`] = value;
  }
  return vars;
}

const VARS = bigConfig();
const valueBytes = Object.values(VARS).reduce((n, v) => n + Buffer.byteLength(v), 0);

/** The same variables as a hand-written dotenv file would have them: comments, export, quoting. */
function asEnvFile(vars: Record<string, string>): string {
  const lines = ['# generated for the config-files e2e test', ''];
  for (const [key, value] of Object.entries(vars)) {
    if (!value.includes("'") && !value.includes('\r')) lines.push(`export ${key}='${value}'`);
    else
      lines.push(
        `${key}="${value.replace(/[\\"$`]/g, (c) => `\\${c}`).replace(/\r/g, '\\r')}"  # double-quoted`,
      );
  }
  return `${lines.join('\n')}\n`;
}

async function liveData(name: string): Promise<Record<string, string>> {
  const secret = await fleet.core.readNamespacedSecret({ name, namespace: 'default' });
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

/** A config-read job enqueued without the CLI's checks (jobs:enqueue), for a throwaway reader key. */
const readByHand = (app: string) => [
  'jobs:enqueue',
  'config-read',
  '--payload',
  JSON.stringify({ app, readerKey: new ReaderKey().publicKey }),
  '--wait',
];

const sorted = (vars: Record<string, string>) =>
  Object.fromEntries(Object.entries(vars).sort(([a], [b]) => (a < b ? -1 : 1)));

describe('config from files and stdin, read back sealed', () => {
  let revealed = '';

  it('sets 1,000 variables and ~900 kB of values from --env-file', async () => {
    expect(Object.keys(VARS)).toHaveLength(1000);
    expect(valueBytes).toBeGreaterThan(890_000);
    await fleet.ok(['deploy', 'bulk', '--image', 'registry.example.com/bulk:1', '--wait']);
    const file = fleet.file('bulk.env', asEnvFile(VARS));
    await fleet.ok(['config:set', 'bulk', '--env-file', file, '--wait']);
    expect(await liveData('config-bulk')).toEqual(VARS);
  });

  it('config:show masks every value unless --reveal', async () => {
    const masked = await fleet.ok(['config:show', 'bulk']);
    const lines = masked.trimEnd().split('\n');
    expect(lines).toHaveLength(1000);
    expect(lines).toContain('EMPTY        (empty)');
    expect(lines.find((l) => l.startsWith('MULTI_LINE '))).toBe('MULTI_LINE   ---…');
    for (const value of Object.values(VARS)) if (value.length >= 8) expect(masked).not.toContain(value);
    const json = JSON.parse(await fleet.ok(['config:show', 'bulk', '--json'])) as Record<string, string>;
    expect(Object.keys(json).sort()).toEqual(Object.keys(VARS).sort());
    expect(json.QUOTES).toBe('he …');
  });

  it('--reveal --dotenv → config:set OTHER - → config:show again is byte-identical', async () => {
    revealed = await fleet.ok(['config:show', 'bulk', '--reveal', '--dotenv']);
    expect(revealed.split('\n')).toHaveLength(1001);
    await fleet.ok(['config:set', 'copy', '-', '--wait'], { stdin: revealed });
    expect(await liveData('config-copy')).toEqual(VARS);
    expect(await fleet.ok(['config:show', 'copy', '--reveal', '--dotenv'])).toBe(revealed);
    const json = JSON.parse(await fleet.ok(['config:show', 'copy', '--reveal', '--json'])) as Record<
      string,
      string
    >;
    expect(json).toEqual(sorted(VARS));
  });

  it('config:get prints one value byte for byte; a missing key exits 2', async () => {
    for (const [key, value] of Object.entries(SPECIAL))
      expect(await fleet.ok(['config:get', 'copy', key])).toBe(value);
    expect(JSON.parse(await fleet.ok(['config:get', 'copy', 'UNICODE', '--json']))).toEqual({
      UNICODE: SPECIAL.UNICODE,
    });
    const missing = await fleet.cli(['config:get', 'copy', 'NOPE']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(
      /error: app copy has no config variable NOPE \(config:show copy lists them\)/,
    );
  });

  it('KEY=VALUE words win over stdin, stdin over --env-file, a later file over an earlier one', async () => {
    const one = fleet.file('one.env', 'A=from-one\nB=from-one\nC=from-one\nD=from-one\n');
    const two = fleet.file('two.env', 'B=from-two\nC=from-two\nD=from-two\n');
    await fleet.ok(
      ['config:set', 'layers', '--env-file', one, '--env-file', two, '-', 'D=from-arg', '--wait'],
      {
        stdin: 'C=from-stdin\nD=from-stdin\n',
      },
    );
    expect(await liveData('config-layers')).toEqual({
      A: 'from-one',
      B: 'from-two',
      C: 'from-stdin',
      D: 'from-arg',
    });
    expect(await fleet.ok(['config:show', 'layers', '--reveal'])).toBe(
      'A  from-one\nB  from-two\nC  from-stdin\nD  from-arg\n',
    );
  });

  it('refuses a bad file with file:line before enqueueing, and an unknown app with a clear failure', async () => {
    const bad = fleet.file('bad.env', 'GOOD=1\n1BAD=x\nno equals here\n');
    const refused = await fleet.cli(['config:set', 'bulk', '--env-file', bad, '--wait']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${bad}:2: "1BAD" is not a variable name`);
    expect(refused.stderr).toContain(`${bad}:3: expected KEY=VALUE`);
    expect(refused.stdout).not.toMatch(/enqueued/);

    const empty = await fleet.cli(['config:set', 'bulk', '-', '--wait'], { stdin: '# nothing\n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/stdin hold no variables/);

    const dotenvMasked = await fleet.cli(['config:show', 'bulk', '--dotenv']);
    expect(dotenvMasked.code).toBe(2);
    expect(dotenvMasked.stderr).toMatch(/--dotenv: prints values to set again, so it needs --reveal/);

    // An app Redis never heard of is refused before enqueueing; one the cluster does not know
    // (here a job enqueued by hand) fails in the worker, saying so.
    const unknown = await fleet.cli(['config:show', 'ghost']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/error: no app ghost known to the fleet \(apps:list lists the apps\)/);
    expect(unknown.stderr).not.toMatch(/enqueued/);
    const byHand = await fleet.cli(readByHand('ghost'));
    expect(byHand.code).toBe(1);
    expect(byHand.stderr).toMatch(/failed: app ghost not found: no job has deployed or configured it/);
  });

  it('an app with no config shows none; a destroyed app is refused and stays hidden', async () => {
    await fleet.ok(['deploy', 'bare', '--image', 'registry.example.com/bare:1', '--wait']);
    expect(await fleet.ok(['config:show', 'bare'])).toBe('app bare has no config variables\n');
    expect(JSON.parse(await fleet.ok(['config:show', 'bare', '--reveal', '--json']))).toEqual({});

    await fleet.ok(['apps:destroy', 'bare', '--force', '--wait']);
    const refused = await fleet.cli(['config:get', 'bare', 'ANY']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/error: app bare was destroyed/);
    // A read that reaches the lane anyway fails, and does not bring the app back into apps:list.
    expect((await fleet.cli(readByHand('bare'))).code).toBe(1);
    const listed = JSON.parse(await fleet.ok(['apps:list', '--json'])) as { name?: string }[];
    expect(listed.map((a) => a.name)).not.toContain('bare');
  });

  it('no value reaches Redis in clear, and jobs:show shows the answer as sealed', async () => {
    const shown = await fleet.cli(['config:show', 'copy', '--reveal']);
    const id = /enqueued config-read job (\S+)/.exec(shown.stderr)?.[1];
    expect(id).toBeDefined();
    const job = await fleet.ok(['jobs:show', id as string]);
    expect(job).toMatch(/\[sealed for the CLI that asked\]/);
    expect(job).not.toContain(SPECIAL.UNICODE);

    const client = new Redis(fleet.redis.url);
    try {
      const all = (await everyValueInRedis(client)).join('\n');
      const leaked = Object.entries(VARS).filter(([, v]) => v.length >= 8 && all.includes(v));
      expect(leaked.map(([k]) => k)).toEqual([]);
      // The answers are there, as ciphertext.
      expect(all).toMatch(/lsr1\.[A-Za-z0-9_-]{43}\./);
    } finally {
      client.disconnect();
    }
  });
});

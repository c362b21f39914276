/** Which agents KeepAliveAgents shares: same TLS settings by content, per protocol; others pass through. */
import * as http from 'node:http';
import * as https from 'node:https';
import { describe, expect, it } from 'vitest';
import { KeepAliveAgents, MAX_CACHED_AGENTS } from '../../../src/kube/keep-alive-agents.ts';

const ca = (text: string) => Buffer.from(`-----BEGIN CERTIFICATE-----\n${text}\n-----END CERTIFICATE-----\n`);

describe('KeepAliveAgents.reuse', () => {
  it('gives one keep-alive agent for the same settings, read into fresh Buffers each time', () => {
    const agents = new KeepAliveAgents();
    const a = agents.reuse(new https.Agent({ ca: ca('one'), rejectUnauthorized: true }));
    const b = agents.reuse(new https.Agent({ ca: ca('one'), rejectUnauthorized: true }));
    expect(a).toBe(b);
    expect(a).toBeInstanceOf(https.Agent);
    expect((a as https.Agent & { keepAlive: boolean }).keepAlive).toBe(true);
    expect((a as https.Agent & { options: https.AgentOptions }).options.ca).toEqual(ca('one'));
  });

  it('gives another agent when a credential or the protocol differs', () => {
    const agents = new KeepAliveAgents();
    const one = agents.reuse(new https.Agent({ ca: ca('one') }));
    expect(agents.reuse(new https.Agent({ ca: ca('two') }))).not.toBe(one);
    expect(agents.reuse(new https.Agent({ ca: ca('one'), cert: ca('client') }))).not.toBe(one);
    expect(agents.reuse(new https.Agent({ ca: ca('one'), rejectUnauthorized: false }))).not.toBe(one);
    const plain = agents.reuse(new http.Agent({}));
    expect(plain).toBeInstanceOf(http.Agent);
    expect(plain).not.toBeInstanceOf(https.Agent);
    expect(agents.reuse(new http.Agent({}))).toBe(plain);
    expect(agents.size).toBe(5);
  });

  it('leaves agents of other kinds (proxies) alone', () => {
    class ProxyAgent extends http.Agent {}
    const proxy = new ProxyAgent();
    expect(new KeepAliveAgents().reuse(proxy)).toBe(proxy);
  });

  it('keeps at most MAX_CACHED_AGENTS, dropping the least recently used', () => {
    const agents = new KeepAliveAgents();
    const first = agents.reuse(new https.Agent({ ca: ca('0') }));
    const second = agents.reuse(new https.Agent({ ca: ca('1') }));
    for (let i = 2; i < MAX_CACHED_AGENTS; i++) agents.reuse(new https.Agent({ ca: ca(String(i)) }));
    // `0` used again: the least recently used is now `1`, which the next new settings push out.
    expect(agents.reuse(new https.Agent({ ca: ca('0') }))).toBe(first);
    agents.reuse(new https.Agent({ ca: ca('new') }));
    expect(agents.size).toBe(MAX_CACHED_AGENTS);
    expect(agents.reuse(new https.Agent({ ca: ca('0') }))).toBe(first);
    expect(agents.reuse(new https.Agent({ ca: ca('1') }))).not.toBe(second);
  });
});

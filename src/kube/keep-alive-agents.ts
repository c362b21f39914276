/**
 * Connection reuse for client-node's API requests. client-node builds a new `http(s).Agent` for
 * every request (KubeConfig.applySecurityAuthentication → createAgent, @kubernetes/client-node
 * dist/config.js), without keep-alive: each API call opens a TCP connection — on a real cluster a
 * TLS handshake — and closes it. `reuse` swaps that throwaway agent for a long-lived keep-alive
 * agent built from the same TLS settings, so a worker's requests share a few warm connections.
 *
 * Only plain `http.Agent` / `https.Agent` are swapped: proxy agents (cluster.proxyUrl) and anything
 * else pass through untouched. Agents are matched by their TLS settings' content (a kubeconfig's
 * CA and client certificate are read into fresh Buffers per request), so a changed credential gets
 * its own agent instead of a connection made with the old one.
 */
import * as http from 'node:http';
import * as https from 'node:https';

/**
 * How long an idle connection stays open. Below the 5 s idle timeout Node servers and many proxies
 * use, so a connection is never reused at the moment the server closes it (a request on such a
 * socket fails with ECONNRESET, and Node does not retry it). Node shortens it further when the
 * server sends a `Keep-Alive: timeout=N` hint.
 */
export const IDLE_SOCKET_TIMEOUT_MS = 4_000;

/** Distinct TLS settings kept at once (one per kubeconfig user and cluster in practice). */
export const MAX_CACHED_AGENTS = 16;

/** The options client-node puts on its agents (config.js applySecurityAuthentication). */
const SETTINGS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

type Settings = Pick<https.AgentOptions, (typeof SETTINGS)[number]>;

interface Cached {
  secure: boolean;
  settings: Record<string, unknown>;
  agent: http.Agent;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  return a === b;
}

export class KeepAliveAgents {
  /** Most recently used last. */
  private readonly cached: Cached[] = [];

  /** The agent to send with in place of `agent`: a shared keep-alive one, or `agent` itself. */
  reuse<A extends http.Agent>(agent: A): A {
    const secure = agent.constructor === https.Agent;
    if (!secure && agent.constructor !== http.Agent) return agent;
    const options = (agent as A & { options: Settings }).options;
    const settings: Record<string, unknown> = {};
    for (const name of SETTINGS) if (options[name] !== undefined) settings[name] = options[name];
    const index = this.cached.findIndex(
      (c) => c.secure === secure && SETTINGS.every((name) => sameValue(c.settings[name], settings[name])),
    );
    if (index >= 0) {
      const [hit] = this.cached.splice(index, 1);
      this.cached.push(hit!);
      return hit!.agent as A;
    }
    const shared = { ...settings, keepAlive: true, timeout: IDLE_SOCKET_TIMEOUT_MS };
    const created = secure ? new https.Agent(shared) : new http.Agent(shared);
    this.cached.push({ secure, settings, agent: created });
    // Dropped, not destroyed: requests in flight on it finish, its idle sockets time out.
    if (this.cached.length > MAX_CACHED_AGENTS) this.cached.shift();
    return created as A;
  }

  get size(): number {
    return this.cached.length;
  }
}

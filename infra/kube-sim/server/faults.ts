/**
 * Fault injection for chaos tests: error answers (500, 503, 429 with Retry-After) at a rate per
 * verb and resource, added latency, connection resets, and (through the simulator) dropped
 * watches and forced history compaction.
 */
import type { Verb } from './request-log.ts';

export interface FaultRule {
  /** Matches every verb when absent. */
  verb?: Verb;
  /** `group/plural` (core: `/secrets`); every resource when absent. */
  resource?: string;
  /** Only requests in this namespace; every namespace (and cluster-scoped requests) when absent. */
  namespace?: string;
  /** Only requests for the object of this name (not collections); every request when absent. */
  name?: string;
  /** Fraction of matching requests that fail, 0..1. */
  errorRate?: number;
  /** Status of injected errors: 500 (default), 503 or 429. */
  status?: 500 | 503 | 429;
  /** With 429 (and 503): the Retry-After seconds sent. */
  retryAfterSeconds?: number;
  /** Added to every matching request before it is served. */
  latencyMs?: number;
  /** Fraction of matching requests whose connection is reset without an answer. */
  resetRate?: number;
  /**
   * Stop after injecting this many errors or resets; a rule with neither (latency only) stops
   * after delaying this many requests.
   */
  limit?: number;
}

export type FaultDecision =
  | { kind: 'pass'; latencyMs: number }
  | { kind: 'error'; status: 500 | 503 | 429; retryAfterSeconds?: number; latencyMs: number }
  | { kind: 'reset'; latencyMs: number };

export class Faults {
  private rules: (FaultRule & { used: number; matched: number })[] = [];
  private readonly random: () => number;

  constructor(random: () => number = Math.random) {
    this.random = random;
  }

  set(rules: FaultRule[]): void {
    this.rules = rules.map((r) => ({ ...r, used: 0, matched: 0 }));
  }

  add(rule: FaultRule): void {
    this.rules.push({ ...rule, used: 0, matched: 0 });
  }

  clear(): void {
    this.rules = [];
  }

  list(): FaultRule[] {
    return this.rules.map(({ used: _u, matched: _m, ...rule }) => rule);
  }

  /**
   * How many requests each rule has matched so far (in the order of list()), counted when they
   * arrive: a test waits for a delayed request to be in flight before it lets the race run.
   */
  matched(): number[] {
    return this.rules.map((r) => r.matched);
  }

  decide(verb: Verb, resource: string, namespace?: string, name?: string): FaultDecision {
    let latencyMs = 0;
    for (const rule of this.rules) {
      if (rule.verb && rule.verb !== verb) continue;
      if (rule.resource && rule.resource !== resource) continue;
      if (rule.namespace !== undefined && rule.namespace !== namespace) continue;
      if (rule.name !== undefined && rule.name !== name) continue;
      const latencyOnly = !rule.errorRate && !rule.resetRate;
      if (latencyOnly && rule.limit !== undefined && rule.used >= rule.limit) continue;
      rule.matched++;
      latencyMs += rule.latencyMs ?? 0;
      if (latencyOnly) {
        if (rule.latencyMs) rule.used++;
        continue;
      }
      if (rule.limit !== undefined && rule.used >= rule.limit) continue;
      if (rule.resetRate && this.random() < rule.resetRate) {
        rule.used++;
        return { kind: 'reset', latencyMs };
      }
      if (rule.errorRate && this.random() < rule.errorRate) {
        rule.used++;
        const status = rule.status ?? 500;
        return {
          kind: 'error',
          status,
          ...(rule.retryAfterSeconds !== undefined ? { retryAfterSeconds: rule.retryAfterSeconds } : {}),
          latencyMs,
        };
      }
    }
    return { kind: 'pass', latencyMs };
  }
}

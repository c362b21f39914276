/**
 * The workers' terminationGracePeriodSeconds (infra/deploy/worker.yaml) against the worker's
 * shutdown deadline: the kubelet's SIGKILL must come after the drain (LONGSHORE_SHUTDOWN_DEADLINE_MS
 * as configured in infra/deploy/config.yaml, or the default in src/core/env.ts) and the hard stop
 * after it (HARD_STOP_GRACE_MS, src/workers/fleet-worker.ts), plus a margin for closing
 * connections and flushing the log. A change to either side fails here until the other follows.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadFleetConfig } from '../../../src/core/env.ts';
import { HARD_STOP_GRACE_MS } from '../../../src/workers/fleet-worker.ts';

/** What the process needs after the hard stop: closing Redis and the cluster client, the last log line. */
const MARGIN_SECONDS = 5;

const deploy = (file: string) => new URL(`../../../infra/deploy/${file}`, import.meta.url);

describe('the worker Deployment', () => {
  it('gives a worker its shutdown deadline, the hard stop and a margin before SIGKILL', () => {
    const configMap = parse(readFileSync(deploy('config.yaml'), 'utf8')) as { data: Record<string, string> };
    const configured = loadFleetConfig(configMap.data).shutdownDeadlineMs;
    // The manifest's value is the default: an operator who changes one sees the other.
    expect(configured).toBe(loadFleetConfig({}).shutdownDeadlineMs);
    const [deployment] = parseAllDocuments(readFileSync(deploy('worker.yaml'), 'utf8')).map(
      (d) => d.toJS() as { spec: { template: { spec: { terminationGracePeriodSeconds: number } } } },
    );
    const grace = deployment!.spec.template.spec.terminationGracePeriodSeconds;
    expect(grace).toBe((configured + HARD_STOP_GRACE_MS) / 1000 + MARGIN_SECONDS);
  });
});

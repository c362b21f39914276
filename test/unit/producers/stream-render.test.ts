/** The one renderer of a job's stream: exact output on a terminal, in a pipe, and as NDJSON. */
import { describe, expect, it } from 'vitest';
import type { RolloutCounts, StreamEvent } from '../../../src/jobs/stream-events.ts';
import { createStreamRenderer, type RenderMode } from '../../../src/producers/ops/stream-render.ts';

const counts = (process: string, desired: number, updated: number, available: number): RolloutCounts => ({
  name: `shop-${process}`,
  process,
  desired,
  updated,
  ready: available,
  available,
});

const STREAM: StreamEvent[] = [
  { kind: 'state', job: 'app.shop.1', state: 'active' },
  { kind: 'step', text: 'Deploying shop (image nginx:1.27)' },
  { kind: 'step', text: 'Releasing shop' },
  { kind: 'detail', text: 'shop: waiting for 1 object(s), up to 300 s' },
  { kind: 'rollout', release: 'shop', deployments: [counts('web', 3, 1, 0)] },
  { kind: 'rollout', release: 'shop', deployments: [counts('web', 3, 2, 1)] },
  { kind: 'rollout', release: 'shop', deployments: [counts('web', 3, 2, 1)] },
  { kind: 'rollout', release: 'shop', deployments: [counts('web', 3, 3, 3)] },
  { kind: 'detail', text: 'shop: revision 1 deployed' },
  { kind: 'state', job: 'app.shop.1', state: 'completed' },
  {
    kind: 'outcome',
    job: 'app.shop.1',
    state: 'completed',
    summary: 'deployed nginx:1.27 (shop revision 1)',
  },
];

function render(mode: RenderMode, events: StreamEvent[]): { out: string; err: string } {
  const written = { out: '', err: '' };
  const renderer = createStreamRenderer(
    { out: (t) => (written.out += t), err: (t) => (written.err += t), columns: 80 },
    mode,
  );
  for (const e of events) renderer.event(e);
  renderer.end();
  return written;
}

describe('stream renderer', () => {
  it('on a terminal: redraws the rollout line in place and leaves it as it last read', () => {
    const { out, err } = render('tty', STREAM);
    expect(out).toBe(
      '-----> Deploying shop (image nginx:1.27)\n' +
        '-----> Releasing shop\n' +
        '       shop: waiting for 1 object(s), up to 300 s\n' +
        '       web 1/3 updated, 0 available' +
        '\r\u001b[2K       web 2/3 updated, 1 available' +
        '\r\u001b[2K       web 3/3 updated, 3 available\n' +
        '       shop: revision 1 deployed\n' +
        '=====> app.shop.1 completed: deployed nginx:1.27 (shop revision 1)\n',
    );
    expect(err).toBe('');
  });

  it('on a terminal, several Deployments: one live line each, redrawn with the cursor moved up', () => {
    const { out } = render('tty', [
      { kind: 'rollout', release: 'shop', deployments: [counts('web', 2, 1, 0), counts('worker', 1, 0, 0)] },
      { kind: 'rollout', release: 'shop', deployments: [counts('web', 2, 2, 2), counts('worker', 1, 1, 1)] },
      { kind: 'step', text: 'Next' },
    ]);
    expect(out).toBe(
      '       web 1/2 updated, 0 available\n       worker 0/1 updated, 0 available' +
        '\r\u001b[2K\u001b[1A\u001b[2K' +
        '       web 2/2 updated, 2 available\n       worker 1/1 updated, 1 available\n' +
        '-----> Next\n',
    );
  });

  it('on a terminal: a note or a failure first ends the live line; lines are cut to the width', () => {
    const written = { out: '', err: '' };
    const r = createStreamRenderer(
      { out: (t) => (written.out += t), err: (t) => (written.err += t), columns: 20 },
      'tty',
    );
    r.event({ kind: 'rollout', deployments: [counts('web', 3, 1, 0)] });
    r.note('waiting for Redis');
    r.event({ kind: 'outcome', job: 'app.shop.1', state: 'failed', reason: 'boom' });
    expect(written.out).toBe('       web 1/3 upda\n'); // 19 columns: never the last one
    expect(written.err).toBe('waiting for Redis\n=====> app.shop.1 failed: boom\n');
  });

  it('in a pipe: plain lines, each rollout line once per change, the outcome last', () => {
    const { out, err } = render('plain', [
      ...STREAM.slice(0, 4),
      { kind: 'rollout', release: 'shop', deployments: [counts('web', 3, 1, 0), counts('worker', 1, 0, 0)] },
      { kind: 'rollout', release: 'shop', deployments: [counts('web', 3, 1, 0), counts('worker', 1, 1, 1)] },
      { kind: 'rollout', release: 'shop', deployments: [counts('web', 3, 3, 3), counts('worker', 1, 1, 1)] },
      ...STREAM.slice(8),
    ]);
    expect(out.split('\n')).toEqual([
      '-----> Deploying shop (image nginx:1.27)',
      '-----> Releasing shop',
      '       shop: waiting for 1 object(s), up to 300 s',
      '       web 1/3 updated, 0 available',
      '       worker 0/1 updated, 0 available',
      '       worker 1/1 updated, 1 available',
      '       web 3/3 updated, 3 available',
      '       shop: revision 1 deployed',
      '=====> app.shop.1 completed: deployed nginx:1.27 (shop revision 1)',
      '',
    ]);
    expect(out.includes('\r') || out.includes('\u001b')).toBe(false);
    expect(err).toBe('');
  });

  it('with --json: one JSON object per event and line, state changes included, the outcome last', () => {
    const { out, err } = render('json', STREAM);
    const lines = out.trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(STREAM);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ kind: 'outcome', state: 'completed' });
    expect(err).toBe('');
  });
});

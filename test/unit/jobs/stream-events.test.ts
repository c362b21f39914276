/** The job-stream contract: what workers write into a job's log and how readers decode it. */
import { describe, expect, it } from 'vitest';
import { decodeLogEntry, encodeLogEvent } from '../../../src/jobs/stream-event-codec.ts';
import { ENCODED_MARK, eventLines, type LogEvent } from '../../../src/jobs/stream-events.ts';

const web = { name: 'shop-web', process: 'web', desired: 3, updated: 2, ready: 1, available: 1 };

describe('stream events', () => {
  it('round-trips every log event through a job-log entry', () => {
    const events: LogEvent[] = [
      { kind: 'step', text: 'Deploying shop (image nginx:1.27)' },
      { kind: 'detail', text: 'config-shop: revision 1 deployed' },
      { kind: 'warning', text: 'attempt 1 failed (transient, retry 1 of 4): boom' },
      {
        kind: 'rollout',
        release: 'shop',
        deployments: [web, { ...web, name: 'shop-worker', process: 'worker' }],
      },
      { kind: 'detail', text: `${ENCODED_MARK}not a header` },
    ];
    for (const event of events) expect(decodeLogEntry(encodeLogEvent(event))).toEqual(event);
  });

  it('stores a detail as its plain text, and reads plain text (older jobs, ctx.log) as a detail', () => {
    expect(encodeLogEvent({ kind: 'detail', text: 'shop: revision 1 deployed' })).toBe(
      'shop: revision 1 deployed',
    );
    expect(decodeLogEntry('superseded by app.shop.3')).toEqual({
      kind: 'detail',
      text: 'superseded by app.shop.3',
    });
    expect(encodeLogEvent({ kind: 'step', text: 'Releasing shop' })).toBe(
      `${ENCODED_MARK}{"kind":"step","text":"Releasing shop"}`,
    );
  });

  it('reads an entry that does not decode as a detail with its text', () => {
    expect(decodeLogEntry(`${ENCODED_MARK}{"kind":"step"`)).toEqual({
      kind: 'detail',
      text: '{"kind":"step"',
    });
    expect(decodeLogEntry(`${ENCODED_MARK}{"kind":"party","text":"x"}`)).toEqual({
      kind: 'detail',
      text: '{"kind":"party","text":"x"}',
    });
    expect(
      decodeLogEntry(`${ENCODED_MARK}{"kind":"rollout","deployments":[{"name":"a","desired":-1}]}`).kind,
    ).toBe('detail');
  });

  it('reads as Dokku does: headers, 7-space details, rollout counts, the outcome', () => {
    expect(eventLines({ kind: 'step', text: 'Deploying shop (revision 3)' })).toEqual([
      '-----> Deploying shop (revision 3)',
    ]);
    expect(eventLines({ kind: 'detail', text: 'a\nb' })).toEqual(['       a', '       b']);
    expect(eventLines({ kind: 'warning', text: 'look' })).toEqual([' !     look']);
    expect(
      eventLines({
        kind: 'rollout',
        deployments: [web, { name: 'x', desired: 3, updated: 2, ready: 1, available: 1 }],
      }),
    ).toEqual(['       web 2/3 updated, 1 available', '       x 2/3 updated, 1 available']);
    expect(
      eventLines({ kind: 'outcome', job: 'app.shop.1', state: 'completed', summary: 'deployed x' }),
    ).toEqual(['=====> app.shop.1 completed: deployed x']);
    expect(eventLines({ kind: 'outcome', job: 'app.shop.1', state: 'failed', reason: 'no' })).toEqual([
      '=====> app.shop.1 failed: no',
    ]);
  });
});

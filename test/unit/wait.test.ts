/** test/helpers/wait.ts: the waits every test uses, with short real windows (tens of ms). */
import { describe, expect, it } from 'vitest';
import { holdFor, simulateWork, stays, until, within } from '../helpers/wait.ts';

describe('until', () => {
  it('returns the first value that is not undefined or false, at once when it already holds', async () => {
    let calls = 0;
    expect(await until(() => ++calls >= 3 && 'ready', 'three calls', { intervalMs: 1 })).toBe('ready');
    expect(calls).toBe(3);
    let once = 0;
    const zero = () => {
      once += 1;
      return 0;
    };
    expect(await until(zero, 'a zero')).toBe(0);
    expect(once).toBe(1);
  });

  it('names what it waited for, and the last error, when time runs out', async () => {
    await expect(until(() => false, 'the moon', { timeoutMs: 30, intervalMs: 5 })).rejects.toThrow(
      'timed out after 30 ms waiting for the moon',
    );
    await expect(
      until(
        () => {
          throw new Error('not yet there');
        },
        'a read',
        { timeoutMs: 30, intervalMs: 5 },
      ),
    ).rejects.toThrow('waiting for a read (last error: not yet there)');
  });

  it("retries a probe that throws by default, and fails at once with errors: 'throw'", async () => {
    let calls = 0;
    const flaky = () => {
      if (++calls < 2) throw new Error('flaky');
      return true;
    };
    expect(await until(flaky, 'a flaky probe', { intervalMs: 1 })).toBe(true);
    calls = 0;
    await expect(until(flaky, 'a flaky probe', { intervalMs: 1, errors: 'throw' })).rejects.toThrow('flaky');
    expect(calls).toBe(1);
  });
});

describe('stays', () => {
  it('holds for the whole window, looking last at or after its end', async () => {
    const started = Date.now();
    let last = 0;
    await stays(
      () => {
        last = Date.now();
        return true;
      },
      40,
      'a steady state',
      { intervalMs: 5 },
    );
    expect(last - started).toBeGreaterThanOrEqual(40);
  });

  it('fails as soon as the condition breaks, even if it holds again by the end', async () => {
    let calls = 0;
    const started = Date.now();
    await expect(stays(() => ++calls !== 3, 2_000, 'no blip', { intervalMs: 5 })).rejects.toThrow(
      /expected no blip for 2000 ms, but it stopped holding after \d+ ms/,
    );
    expect(calls).toBe(3);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('fails when checking throws', async () => {
    await expect(
      stays(
        () => {
          throw new Error('gone');
        },
        50,
        'a readable thing',
      ),
    ).rejects.toThrow('expected a readable thing for 50 ms, but checking it threw');
  });
});

describe('within, holdFor, simulateWork', () => {
  it('within: the promise if it settles in time, else an error naming it', async () => {
    expect(await within(Promise.resolve(7), 50, 'seven')).toBe(7);
    await expect(within(new Promise(() => undefined), 20, 'never')).rejects.toThrow(
      'timed out after 20 ms waiting for never',
    );
  });

  it('holdFor: pauses, and wants a reason', async () => {
    const started = Date.now();
    await holdFor(20, 'the scenario needs it');
    expect(Date.now() - started).toBeGreaterThanOrEqual(19);
    expect(() => holdFor(20, ' ')).toThrow('say why');
  });

  it('simulateWork: takes its time, or stops with the abort reason', async () => {
    const started = Date.now();
    await simulateWork(20);
    expect(Date.now() - started).toBeGreaterThanOrEqual(19);
    const controller = new AbortController();
    const work = simulateWork(10_000, controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(work).rejects.toThrow('cancelled');
    await expect(simulateWork(10, AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });
});

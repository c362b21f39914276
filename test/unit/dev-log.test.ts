import { describe, expect, it } from 'vitest';
import { loadFleetConfig } from '../../src/core/env.ts';
import { createLogger } from '../../src/core/logger.ts';
import { devLogFormat, HeldLog, lineFormatter } from '../../src/dev/dev-log.ts';

describe('longshore dev log format', () => {
  it('is pretty on a terminal and JSON otherwise, unless LONGSHORE_LOG_FORMAT says', () => {
    expect(devLogFormat(undefined, { isTTY: true })).toBe('pretty');
    expect(devLogFormat(undefined, { isTTY: false })).toBe('json');
    expect(devLogFormat(undefined, {})).toBe('json');
    expect(devLogFormat('json', { isTTY: true })).toBe('json');
    expect(devLogFormat('pretty', {})).toBe('pretty');
  });

  it('reads LONGSHORE_LOG_FORMAT, refusing anything but json and pretty with the variable named', () => {
    expect(loadFleetConfig({ LONGSHORE_LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadFleetConfig({ LONGSHORE_LOG_FORMAT: '' }).logFormat).toBeUndefined();
    expect(() => loadFleetConfig({ LONGSHORE_LOG_FORMAT: 'fancy' })).toThrow(
      /LONGSHORE_LOG_FORMAT: .*"json".*"pretty".*\(got "fancy"\)/,
    );
  });

  it('renders a pino line as level and message with the fields on the same line', () => {
    const line =
      '{"level":40,"time":"2026-12-01T10:58:42.000Z","pid":7,"component":"dev","jobId":"app.a.1","msg":"job stalled"}\n';
    const pretty = lineFormatter('pretty', false)(line);
    expect(pretty).toMatch(/^\[\d\d:\d\d:\d\d\] WARN: job stalled \{"jobId":"app\.a\.1"\}\n$/);
    expect(pretty).not.toContain('pid');
    expect(lineFormatter('json', false)(line)).toBe(line);
  });
});

describe('HeldLog', () => {
  it('holds lines until release, writes them before the block in one write, then passes lines through', () => {
    const writes: string[] = [];
    const log = new HeldLog((text) => writes.push(text), lineFormatter('json', false));
    const logger = createLogger('info', { component: 'dev' }, log);
    logger.info('worker started');
    logger.info('sync scheduler started');
    expect(writes).toEqual([]);
    log.release('\nthe block\n');
    expect(writes).toHaveLength(1);
    const [first] = writes;
    expect(first!.indexOf('worker started')).toBeLessThan(first!.indexOf('sync scheduler started'));
    expect(first!.endsWith('\nthe block\n')).toBe(true);
    logger.info('job started');
    expect(writes).toHaveLength(2);
    expect(JSON.parse(writes[1]!)).toMatchObject({ msg: 'job started', component: 'dev' });
  });

  it('settles once no line comes for the quiet time, and releasing with nothing held writes nothing', async () => {
    const writes: string[] = [];
    const log = new HeldLog(
      (text) => writes.push(text),
      (line) => line,
    );
    log.write('one\n');
    await log.settled(20, 5_000);
    log.release();
    expect(writes).toEqual(['one\n']);
    const empty = new HeldLog(
      (text) => writes.push(text),
      (line) => line,
    );
    empty.release();
    expect(writes).toEqual(['one\n']);
  });
});

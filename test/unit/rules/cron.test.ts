import { describe, expect, it } from 'vitest';
import { CRON_DESCRIPTORS, cronSchedule, cronScheduleProblem } from '../../../rules/cron.ts';

describe('cron schedules', () => {
  it.each([
    '*/5 * * * *',
    '0 3 * * MON-FRI',
    '15 2 1 JAN *',
    '0 0 ? * *',
    '0 0 1,15 * sun',
    '59 23 31 12 6',
    '0-59/10 0-23 1-31 1-12 0-6',
    ...CRON_DESCRIPTORS,
    '  @daily  ',
  ])('accepts %j', (schedule) => expect(cronScheduleProblem(schedule)).toBeUndefined());

  it.each([
    [
      '* * * *',
      /^must have 5 fields \(minute hour day-of-month month day-of-week\) or be one of @yearly, .*; got 4$/,
    ],
    ['0 0 0 * * *', /; got 6$/],
    ['', /; got 0$/],
    ['   ', /; got 0$/],
    ['every day', /; got 2$/],
    ['@every 5m', /; got 2$/],
    ['@reboot', /; got 1$/],
    ['TZ=UTC 0 * * * *', /^must not set a time zone \(cron tasks run in Etc\/UTC\)$/],
    ['CRON_TZ=Europe/Paris 0 3 * * *', /^must not set a time zone/],
    ['0 0 L * *', /^field 3 \("L"\) has characters a CronJob does not accept$/],
    ['0 0 * * 1#2', /^field 5 \("1#2"\) has characters a CronJob does not accept$/],
    ['0 0 1W * *', /^field 3 \("1W"\)/],
    ['0 JAN * * *', /^field 2 \("JAN"\)/],
    ['61 * * * *', /^is not a valid cron expression: /],
    ['0 24 * * *', /^is not a valid cron expression: /],
    ['0 0 32 * *', /^is not a valid cron expression: /],
    ['0 0 * 13 *', /^is not a valid cron expression: end of range \(13\) above maximum \(12\): 13$/],
    ['0 0 0 * *', /^is not a valid cron expression: beginning of range \(0\) below minimum \(1\): 0$/],
    [
      '0 5-2 * * *',
      /^is not a valid cron expression: beginning of range \(5\) beyond end of range \(2\): 5-2$/,
    ],
    ['*/0 * * * *', /^is not a valid cron expression: step of range should be a positive number: \*\/0$/],
    ['1-2-3 * * * *', /^is not a valid cron expression: too many hyphens: 1-2-3$/],
    ['0 0 * * 7', /^is not a valid cron expression: end of range \(7\) above maximum \(6\): 7$/],
  ])('refuses %j', (schedule, problem) => expect(cronScheduleProblem(schedule)).toMatch(problem));

  it('trims the schedule it accepts and reports one message for one it refuses', () => {
    expect(cronSchedule.parse('  0 1 * * *\n')).toBe('0 1 * * *');
    expect(cronSchedule.safeParse('* * * *').error?.issues).toHaveLength(1);
  });
});

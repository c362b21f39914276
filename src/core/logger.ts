/**
 * Structured logs (pino, JSON lines). Secret-bearing fields are redacted by path as a second line of
 * defence: code never logs payload values on purpose, and the values are sealed anyway.
 */
import { type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/** Paths whose values never reach a log line, wherever a payload or env map is logged. */
export const REDACTED_PATHS = [
  'secret',
  'password',
  '*.secret',
  '*.password',
  '*.*.password',
  'set',
  '*.set',
  '*.*.set',
  'env',
  '*.env',
  '*.*.env',
  'registry.password',
  '*.registry.password',
  'LONGSHORE_SECRET',
  '*.LONGSHORE_SECRET',
  'LONGSHORE_SECRET_PREVIOUS',
  '*.LONGSHORE_SECRET_PREVIOUS',
];

export function createLogger(
  level: string,
  bindings: Record<string, unknown> = {},
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid, ...bindings },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

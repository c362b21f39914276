/**
 * The job-log form of a job's stream events (docs/jobs.md, "The job's stream"): a detail as its
 * plain text, every other event as JSON after an ASCII record separator; see stream-events.ts.
 * Decoding validates the JSON, so an entry some other writer left is shown as the text it is.
 */
import { z } from 'zod';
import { ENCODED_MARK, type LogEvent } from './stream-events.ts';

const count = z.number().int().min(0);
const logEvent = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('step'), text: z.string() }),
  z.object({ kind: z.literal('detail'), text: z.string() }),
  z.object({ kind: z.literal('warning'), text: z.string() }),
  z.object({
    kind: z.literal('rollout'),
    release: z.string().optional(),
    deployments: z.array(
      z.object({
        name: z.string(),
        process: z.string().optional(),
        desired: count,
        updated: count,
        ready: count,
        available: count,
      }),
    ),
  }),
]);

/** The job-log entry of an event. */
export function encodeLogEvent(event: LogEvent): string {
  if (event.kind === 'detail' && !event.text.startsWith(ENCODED_MARK)) return event.text;
  return `${ENCODED_MARK}${JSON.stringify(event)}`;
}

/** The event of a job-log entry; plain text (older jobs, `ctx.log`) is a detail. */
export function decodeLogEntry(entry: string): LogEvent {
  if (!entry.startsWith(ENCODED_MARK)) return { kind: 'detail', text: entry };
  const body = entry.slice(ENCODED_MARK.length);
  try {
    const parsed = logEvent.safeParse(JSON.parse(body));
    if (parsed.success) return parsed.data as LogEvent;
  } catch {
    // not JSON: shown as the text it is
  }
  return { kind: 'detail', text: body };
}

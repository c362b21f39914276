/**
 * A job's stream: what happened while it ran, as typed events, shared by the workers that write
 * them and the readers that show them (CLI `--wait`, and later the git hook and the HTTP progress
 * endpoint). docs/jobs.md, "The job's stream".
 *
 * Workers write `step`, `detail`, `warning` and `rollout` events into the job's own log (BullMQ
 * `job.log`), one entry per event: the list's order is the order they happened, and a reader
 * resumes from an offset. A detail is stored as its plain text (readable as it is in Bull Board
 * and in the logs of jobs written before this format); every other event is stored as one JSON
 * text after an ASCII record separator (RS, as RFC 7464 JSON text sequences start), which plain
 * text never starts with — a detail that would is stored encoded too. Anything that does not
 * decode is a detail with the entry's text. Encoding and decoding live in stream-event-codec.ts, so
 * a reader that only prints events (the CLI's renderer) loads no schema library.
 *
 * Readers add `state` (the job's state changed), `follow` (the job was superseded; the reader
 * follows the newer one) and a last `outcome`.
 */
/** One Deployment of a rollout, counted as `kubectl rollout status` counts it. */
export interface RolloutCounts {
  /** The Deployment's name. */
  name: string;
  /** What a person calls it: the process type (`web`), when the writer knows it. */
  process?: string;
  desired: number;
  updated: number;
  ready: number;
  available: number;
}

export type LogEvent =
  /** A phase of the job, a Dokku header: `-----> Deploying shop (revision 3)`. */
  | { kind: 'step'; text: string }
  /** A line of detail under the current step (every plain `ctx.log` line). */
  | { kind: 'detail'; text: string }
  /** Something a person should look at; the job goes on. */
  | { kind: 'warning'; text: string }
  /** Where a rollout stands: every Deployment the release waits for. */
  | { kind: 'rollout'; release?: string; deployments: RolloutCounts[] };

export type StreamEvent =
  | LogEvent
  | { kind: 'state'; job: string; state: string }
  | { kind: 'follow'; from: string; to: string }
  | {
      kind: 'outcome';
      job: string;
      state: 'completed';
      summary?: string;
      result?: unknown;
      followed?: string[];
    }
  | { kind: 'outcome'; job: string; state: 'failed'; reason: string; followed?: string[] };

export type StreamEventKind = StreamEvent['kind'];

/** Starts every encoded entry (ASCII RS). */
export const ENCODED_MARK = '\u001e';

/** Dokku's indentation: details line up under the text of a `-----> ` header. */
export const DETAIL_INDENT = '       ';

/** `web 2/3 updated, 1 available` */
export function rolloutLine(d: RolloutCounts): string {
  return `${d.process ?? d.name} ${d.updated}/${d.desired} updated, ${d.available} available`;
}

/**
 * The lines an event reads as, without colour or terminal control: what every renderer prints
 * when it cannot redraw, and what `jobs:show` lists.
 */
export function eventLines(event: StreamEvent): string[] {
  switch (event.kind) {
    case 'step':
      return [`-----> ${event.text}`];
    case 'detail':
      return event.text.split('\n').map((line) => `${DETAIL_INDENT}${line}`);
    case 'warning':
      return [` !     ${event.text}`];
    case 'rollout':
      return event.deployments.map((d) => `${DETAIL_INDENT}${rolloutLine(d)}`);
    case 'state':
      return [`=====> ${event.job} is ${event.state}`];
    case 'follow':
      return [
        `=====> ${event.from} was superseded by ${event.to}, a newer job of the same app; following it`,
      ];
    case 'outcome':
      return event.state === 'completed'
        ? [`=====> ${event.job} completed${event.summary ? `: ${event.summary}` : ''}`]
        : [`=====> ${event.job} failed: ${event.reason}`];
  }
}

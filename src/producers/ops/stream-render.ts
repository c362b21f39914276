/**
 * Shows a job's stream (src/jobs/stream-events.ts) to a person or a script, the same way for every
 * reader (CLI `--wait`; later the git hook and the HTTP progress endpoint): every event once, in
 * the order it came, the outcome last.
 *
 * - `tty`: Dokku's lines; a rollout is one live line per Deployment, redrawn in place (`\r`, erase
 *   line, cursor up for the lines above) as its counts change, and left on the screen as it last
 *   read once any other event comes.
 * - `plain` (a pipe, a file, CI logs): the same lines, each once; a Deployment's rollout line is
 *   printed only when its text changes.
 * - `json`: one JSON object per event and line (NDJSON) on `out`, the outcome last.
 *
 * It writes through a sink, so it knows nothing of process.stdout or the CLI.
 */
import { eventLines, rolloutLine, type StreamEvent } from '../../jobs/stream-events.ts';

export type RenderMode = 'tty' | 'plain' | 'json';

export interface RenderSink {
  /** Raw text for the normal output (stdout); the renderer adds its own newlines. */
  out(text: string): void;
  /** Raw text for diagnostics (stderr): a failed outcome, notes beside the stream. */
  err(text: string): void;
  /** Terminal width (tty): live lines are cut to fit, so redrawing never meets a wrapped line. */
  columns?: number;
}

export interface StreamRenderer {
  event(event: StreamEvent): void;
  /** A line beside the stream (e.g. "waiting for Redis"), on `err`, without breaking a live line. */
  note(line: string): void;
  /** Leaves the terminal on a fresh line (a live rollout line finalised). */
  end(): void;
}

const ERASE_LINE = '\u001b[2K';
const CURSOR_UP = '\u001b[1A';

export function createStreamRenderer(sink: RenderSink, mode: RenderMode): StreamRenderer {
  if (mode === 'json') {
    return {
      event: (event) => sink.out(`${JSON.stringify(event)}\n`),
      note: (line) => sink.err(`${line}\n`),
      end: () => undefined,
    };
  }
  return mode === 'tty' ? ttyRenderer(sink) : plainRenderer(sink);
}

/** Where a failed outcome goes: stderr, as every failure of the CLI. */
function streamOf(event: StreamEvent): 'out' | 'err' {
  return event.kind === 'outcome' && event.state === 'failed' ? 'err' : 'out';
}

/** A person reading a terminal sees nothing new in a state change: the stream and the outcome say it. */
function shown(event: StreamEvent): boolean {
  return event.kind !== 'state';
}

function plainRenderer(sink: RenderSink): StreamRenderer {
  // The last line printed for each Deployment of each release.
  const printed = new Map<string, string>();
  return {
    event(event) {
      if (!shown(event)) return;
      if (event.kind === 'rollout') {
        for (const d of event.deployments) {
          const key = `${event.release ?? ''}/${d.name}`;
          const line = rolloutLine(d);
          if (printed.get(key) === line) continue;
          printed.set(key, line);
          sink.out(`${eventLines({ ...event, deployments: [d] })[0]}\n`);
        }
        return;
      }
      const text = eventLines(event)
        .map((l) => `${l}\n`)
        .join('');
      sink[streamOf(event)](text);
    },
    note: (line) => sink.err(`${line}\n`),
    end: () => undefined,
  };
}

function ttyRenderer(sink: RenderSink): StreamRenderer {
  // The rollout lines on the screen, the cursor at the end of the last one (no newline yet).
  let live: { release: string; lines: string[] } | undefined;
  const fit = (line: string) =>
    sink.columns && line.length >= sink.columns ? line.slice(0, Math.max(1, sink.columns - 1)) : line;

  function finalise(): void {
    if (!live) return;
    sink.out('\n');
    live = undefined;
  }

  function draw(release: string, lines: string[]): void {
    if (live && live.release !== release) finalise();
    if (live && live.lines.join('\n') === lines.join('\n')) return;
    let text = '';
    if (live) {
      // Back to the first live line, erasing each on the way up.
      text += `\r${ERASE_LINE}`;
      for (let i = 1; i < live.lines.length; i++) text += `${CURSOR_UP}${ERASE_LINE}`;
    }
    text += lines.join('\n');
    sink.out(text);
    live = { release, lines };
  }

  return {
    event(event) {
      if (!shown(event)) return;
      if (event.kind === 'rollout') {
        if (event.deployments.length > 0) draw(event.release ?? '', eventLines(event).map(fit));
        return;
      }
      finalise();
      sink[streamOf(event)](
        eventLines(event)
          .map((l) => `${l}\n`)
          .join(''),
      );
    },
    note(line) {
      finalise();
      sink.err(`${line}\n`);
    },
    end: finalise,
  };
}

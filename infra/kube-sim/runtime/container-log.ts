/**
 * A container instance's log as the kubelet keeps it (CRI logging through containerd's
 * pkg/cri/io/logger.go): the process's stdout and stderr cut into lines at NL (a trailing CR
 * dropped), each stamped with the time it was written; an unterminated last line is written as a
 * whole line when the process exits. Bounded like a rotated log file: past `MAX_LOG_BYTES` the
 * oldest lines go. Followers get each new line and hear when the instance has exited.
 */
import { StringDecoder } from 'node:string_decoder';
import type { OutputStream } from './process.ts';

/** The kubelet's containerLogMaxSize default (10 MiB). */
export const MAX_LOG_BYTES = 10 * 1024 * 1024;

export interface LogLine {
  at: Date;
  stream: OutputStream;
  text: string;
}

export interface LogFollower {
  line(line: LogLine): void;
  closed(): void;
}

export class ContainerLog {
  private readonly entries: LogLine[] = [];
  private bytes = 0;
  private readonly partial: Record<OutputStream, string> = { stdout: '', stderr: '' };
  private readonly decoders: Record<OutputStream, StringDecoder> = {
    stdout: new StringDecoder('utf8'),
    stderr: new StringDecoder('utf8'),
  };
  private readonly followers = new Set<LogFollower>();
  private open = true;

  constructor(private readonly now: () => Date = () => new Date()) {}

  get closed(): boolean {
    return !this.open;
  }

  lines(): readonly LogLine[] {
    return this.entries;
  }

  write(stream: OutputStream, chunk: Buffer): void {
    if (!this.open) return;
    let text = this.partial[stream] + this.decoders[stream].write(chunk);
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
      this.add(stream, text.slice(0, nl));
      text = text.slice(nl + 1);
    }
    this.partial[stream] = text;
  }

  /** The instance exited: what is left becomes a last line, followers are told. */
  close(): void {
    if (!this.open) return;
    for (const stream of ['stdout', 'stderr'] as const) {
      const rest = this.partial[stream] + this.decoders[stream].end();
      this.partial[stream] = '';
      if (rest) this.add(stream, rest);
    }
    this.open = false;
    for (const f of [...this.followers]) f.closed();
    this.followers.clear();
  }

  private add(stream: OutputStream, raw: string): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const line: LogLine = { at: this.now(), stream, text };
    this.entries.push(line);
    this.bytes += Buffer.byteLength(text) + 1;
    while (this.bytes > MAX_LOG_BYTES && this.entries.length > 1) {
      const dropped = this.entries.shift()!;
      this.bytes -= Buffer.byteLength(dropped.text) + 1;
    }
    for (const f of [...this.followers]) f.line(line);
  }

  /** New lines as they are written; `closed` once the instance exits (at once if it has). */
  follow(follower: LogFollower): () => void {
    if (!this.open) {
      follower.closed();
      return () => undefined;
    }
    this.followers.add(follower);
    return () => this.followers.delete(follower);
  }
}

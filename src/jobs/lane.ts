/**
 * Ordering lanes. Jobs in one lane take effect one at a time, in the order the queue accepted them;
 * different lanes run in parallel. A lane id is part of every job id, so it never contains ':'
 * (BullMQ's key separator).
 */
export type Lane = { kind: 'app'; name: string } | { kind: 'storage'; name: string } | { kind: 'fleet' };

export function laneId(lane: Lane): string {
  switch (lane.kind) {
    case 'app':
      return `app.${lane.name}`;
    case 'storage':
      return `storage.${lane.name}`;
    case 'fleet':
      return 'fleet';
  }
}

export function parseLaneId(id: string): Lane | undefined {
  if (id === 'fleet') return { kind: 'fleet' };
  const dot = id.indexOf('.');
  const kind = id.slice(0, dot);
  const name = id.slice(dot + 1);
  if (dot > 0 && name && (kind === 'app' || kind === 'storage')) return { kind, name };
  return undefined;
}

/** The lane of an ordered job id `{lane}.{seq}` (e.g. `app.web.17` → `app.web`). */
export function laneOfJobId(jobId: string): string | undefined {
  const match = /^(.+)\.(\d+)$/.exec(jobId);
  return match && parseLaneId(match[1]!) ? match[1] : undefined;
}

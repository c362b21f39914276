/**
 * Which pods a `logs` job reads and what each is called: `{process}.{n}`, as Dokku names its
 * containers (`web.1`). Within a process, pods are numbered from 1 in order of creation (ties by
 * name), so the oldest pod is `.1`; the numbers are stable while the set of pods does not change
 * (a rollout or a replaced pod renumbers the pods after it). Pure, so it is unit-tested.
 */

export interface PodRef {
  process: string;
  name: string;
  /** metadata.creationTimestamp (RFC 3339); an unset one sorts first. */
  createdAt?: string;
  /** status.phase */
  phase?: string;
  /** The pod is being deleted (metadata.deletionTimestamp is set). */
  terminating?: boolean;
  container: string;
}

export interface NumberedPod extends PodRef {
  prefix: string;
}

/** Only pods that are running and not on their way out have logs worth reading. */
export function isRunning(pod: PodRef): boolean {
  return pod.phase === 'Running' && !pod.terminating;
}

/** Running pods numbered per process, ordered by process name, then number. */
export function numberPods(pods: readonly PodRef[]): NumberedPod[] {
  const byProcess = new Map<string, PodRef[]>();
  for (const pod of pods.filter(isRunning)) {
    const list = byProcess.get(pod.process) ?? [];
    list.push(pod);
    byProcess.set(pod.process, list);
  }
  const numbered: NumberedPod[] = [];
  for (const process of [...byProcess.keys()].sort()) {
    const list = byProcess
      .get(process)!
      .sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || a.name.localeCompare(b.name));
    list.forEach((pod, i) => {
      numbered.push({ ...pod, prefix: `${process}.${i + 1}` });
    });
  }
  return numbered;
}

/** A chunk of log text as complete lines plus the unfinished rest (kept for the next chunk). */
export function splitLines(pending: string, chunk: string): { lines: string[]; rest: string } {
  const parts = (pending + chunk).split('\n');
  const rest = parts.pop() ?? '';
  return { lines: parts.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)), rest };
}

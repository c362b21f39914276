/** Emits progress events for one operation; a listener that throws never breaks the operation. */
import type { ProgressEvent, ProgressListener, ProgressStep } from './events.ts';

export type Emit = (
  step: ProgressStep,
  message: string,
  extra?: Omit<ProgressEvent, 'release' | 'step' | 'message'>,
) => void;

export function progressEmitter(release: string, listener: ProgressListener | undefined): Emit {
  return (step, message, extra = {}) => {
    if (!listener) return;
    try {
      listener({ release, step, message, ...extra });
    } catch {
      // A progress sink (a closed log stream, a job whose lock was lost) must not fail a deploy.
    }
  };
}

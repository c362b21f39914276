// SCAFFOLD: replaced by the real controller being written now; does nothing yet.
import type { ControllerDeps, SimController } from './controller.ts';

export class PersistentVolumeBinder implements SimController {
  constructor(readonly deps: ControllerDeps) {}
  stop(): void {}
  idle(): Promise<void> {
    return Promise.resolve();
  }
}

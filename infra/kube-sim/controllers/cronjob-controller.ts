// SCAFFOLD: replaced by the real controller being written now; does nothing yet.
import type { ControllerDeps, SimController } from './controller.ts';

export class CronJobController implements SimController {
  constructor(readonly deps: ControllerDeps) {}
  stop(): void {}
  idle(): Promise<void> {
    return Promise.resolve();
  }
  trigger(namespace: string, name: string): never {
    throw new Error(`CronJob triggering is not implemented yet (${namespace}/${name})`);
  }
}

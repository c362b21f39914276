/** What every simulated controller offers the simulator: a way to stop and to wait until idle. */
import type { ObjectStore } from '../store/object-store.ts';
import type { ControllerSettings } from './settings.ts';
import type { SimClient } from './sim-client.ts';

export interface SimController {
  stop(): void;
  /** Resolves when the controller has nothing queued or running. */
  idle(): Promise<void>;
}

export interface ControllerDeps {
  store: ObjectStore;
  /** A client acting as this controller (its own field manager). */
  client: SimClient;
  settings: ControllerSettings;
  onError(what: string, err: unknown): void;
}

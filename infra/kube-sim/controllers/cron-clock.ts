/**
 * The CronJob controller's clock, and only its clock: simulated time runs `settings.timeScale`
 * times as fast as real time (60: a simulated minute per real second), so schedules fire within
 * a test's patience. simulated = anchor + (real − anchorReal) × scale; changing the scale at run
 * time re-anchors at the clock's next read (the controller reads it on every sync), so the clock
 * never jumps back. Everything else in
 * kube-sim (Pods, Jobs, creationTimestamps, events) keeps real time.
 */
import type { ControllerSettings } from './settings.ts';

export class CronClock {
  private anchorReal: number;
  private anchorSim: number;
  private scale: number;

  constructor(
    private readonly settings: Pick<ControllerSettings, 'timeScale'>,
    private readonly realNow: () => number = Date.now,
  ) {
    this.anchorReal = this.realNow();
    this.anchorSim = this.anchorReal;
    this.scale = settings.timeScale;
  }

  private reanchor(): void {
    if (this.settings.timeScale === this.scale) return;
    const real = this.realNow();
    this.anchorSim = this.anchorSim + (real - this.anchorReal) * this.scale;
    this.anchorReal = real;
    this.scale = this.settings.timeScale;
  }

  /** The simulated now (ms since the epoch). */
  now(): number {
    return this.simAt(this.realNow());
  }

  /** The simulated instant of a real one, e.g. a CronJob's creationTimestamp. */
  simAt(real: number): number {
    this.reanchor();
    return this.anchorSim + (real - this.anchorReal) * this.scale;
  }
}

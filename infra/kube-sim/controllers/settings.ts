/**
 * Knobs of the simulated controllers, so tests can make a rollout succeed, hang or fail without
 * special code paths in longshore. Mutable at run time through `sim.settings` (and the admin API).
 */

export interface ControllerSettings {
  /** Delay before a new Pod becomes Running and Ready (ms). */
  podReadyDelayMs: number;
  /** Delay between the Deployment controller's steps (ReplicaSet created/scaled, status written), ms. */
  rolloutStepDelayMs: number;
  /**
   * Images whose pull fails: Pods using them stay Pending with ImagePullBackOff. Strings match an
   * image exactly or as a prefix ending in `*`; RegExps match anywhere.
   */
  unpullableImages: (string | RegExp)[];
  /** Delay before a PVC binds (ms). */
  pvcBindDelayMs: number;
  /** StorageClass the PVC binder treats as default when a claim names none; also preset at start when set. */
  defaultStorageClass?: string;
  /** How long a Job's Pod runs before it succeeds or fails (ms). */
  jobRunMs: number;
  /** Images whose Job Pods exit non-zero (same matching as unpullableImages). */
  failingJobImages: (string | RegExp)[];
  /**
   * Log lines of Pods, by `namespace/pod` or by `namespace/job:<job name>` for every Pod of a Job
   * (served at pods/<name>/log; with follow=true the stream stays open until the Pod finishes).
   */
  podLogs: Map<string, string[]>;
}

export function defaultControllerSettings(): ControllerSettings {
  return {
    podReadyDelayMs: 50,
    rolloutStepDelayMs: 10,
    unpullableImages: [],
    pvcBindDelayMs: 20,
    defaultStorageClass: 'standard',
    jobRunMs: 100,
    failingJobImages: [],
    podLogs: new Map(),
  };
}

/** True when `image` matches one of `patterns` (exact, `prefix*`, or RegExp). */
export function imageMatches(image: string, patterns: (string | RegExp)[]): boolean {
  return patterns.some((p) =>
    typeof p === 'string'
      ? p.endsWith('*')
        ? image.startsWith(p.slice(0, -1))
        : image === p
      : p.test(image),
  );
}

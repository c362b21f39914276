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
  /**
   * How long a Job Pod's container whose command kube-sim cannot run (docs/kube-sim.md,
   * "Container runtime model") runs before it exits (ms). Commands kube-sim runs take their own time.
   */
  jobRunMs: number;
  /** Images whose Job Pod containers with such a command exit 1 instead of 0 (same matching as unpullableImages). */
  failingJobImages: (string | RegExp)[];
  /**
   * The kubelet's crash-loop back-off between restarts of a container that exited (ms): the first
   * restart is immediate, the next waits this long, then twice as long each time, up to
   * `restartBackOffMaxMs`. Upstream: 10 s and 5 min; tests make it short.
   */
  restartBackOffMs: number;
  restartBackOffMaxMs: number;
  /**
   * Planted log lines of Pods, by `namespace/pod` or by `namespace/job:<job name>` for every Pod of
   * a Job: when a Pod has some, its log is these lines instead of what its containers print
   * (served at pods/<name>/log; lines appended later reach a follow, which ends with the Pod).
   */
  podLogs: Map<string, string[]>;
  /**
   * How many Nodes the cluster has (`kube-sim-node`, then `kube-sim-node-2`, …): the scheduler
   * spreads Pods over them and DaemonSets run one Pod on each. Default 1.
   */
  nodes: number;
  /**
   * Registry hosts (`registry.example.com`, `localhost:5000`, `*.example.com`) that refuse pulls
   * without credentials: an image there pulls only when one of the Pod's existing imagePullSecrets
   * holds a credential for that registry (controllers/pull-credentials.ts). Every other registry
   * is public, as Docker Hub's public images are.
   */
  privateRegistries: string[];
  /**
   * The Job controller's delay before replacing failed Pods: `jobBackOffBaseMs * 2^(failures-1)`
   * since the last failure, at most `jobBackOffMaxMs` (controllers/job-backoff.ts). Upstream:
   * 10 s and 10 min (DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff); tests make it short.
   */
  jobBackOffBaseMs: number;
  jobBackOffMaxMs: number;
  /**
   * How fast the CronJob controller's clock runs against real time (controllers/cron-clock.ts):
   * 60 is one simulated minute per real second. It applies to CronJob schedules only — when they
   * fire, startingDeadlineSeconds, status.lastScheduleTime; everything else keeps real time.
   * A positive number; default 1.
   */
  timeScale: number;
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
    restartBackOffMs: 10_000,
    restartBackOffMaxMs: 300_000,
    podLogs: new Map(),
    nodes: 1,
    privateRegistries: [],
    jobBackOffBaseMs: 10_000,
    jobBackOffMaxMs: 600_000,
    timeScale: 1,
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

/** The settings as JSON (the admin API's `GET /__sim/settings`): RegExps as `/source/flags`. */
export function settingsJson(settings: ControllerSettings): Record<string, unknown> {
  const patterns = (list: (string | RegExp)[]) => list.map((p) => (typeof p === 'string' ? p : String(p)));
  return {
    podReadyDelayMs: settings.podReadyDelayMs,
    rolloutStepDelayMs: settings.rolloutStepDelayMs,
    unpullableImages: patterns(settings.unpullableImages),
    pvcBindDelayMs: settings.pvcBindDelayMs,
    ...(settings.defaultStorageClass !== undefined
      ? { defaultStorageClass: settings.defaultStorageClass }
      : {}),
    jobRunMs: settings.jobRunMs,
    failingJobImages: patterns(settings.failingJobImages),
    restartBackOffMs: settings.restartBackOffMs,
    restartBackOffMaxMs: settings.restartBackOffMaxMs,
    podLogs: Object.fromEntries(settings.podLogs),
    nodes: settings.nodes,
    privateRegistries: [...settings.privateRegistries],
    jobBackOffBaseMs: settings.jobBackOffBaseMs,
    jobBackOffMaxMs: settings.jobBackOffMaxMs,
    timeScale: settings.timeScale,
  };
}

const DURATIONS = [
  'podReadyDelayMs',
  'rolloutStepDelayMs',
  'pvcBindDelayMs',
  'jobRunMs',
  'restartBackOffMs',
  'restartBackOffMaxMs',
  'jobBackOffBaseMs',
  'jobBackOffMaxMs',
] as const;
const PATTERN_LISTS = ['unpullableImages', 'failingJobImages'] as const;

/** A setting from outside the process that cannot be applied; nothing was changed. */
export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

/**
 * Applies a JSON object of settings (the admin API's `POST /__sim/settings`, `longshore sim`'s
 * flags): durations as whole milliseconds, image patterns as lists of strings (exact, or a prefix
 * ending in `*`) replacing the current list, `podLogs` as `{ "ns/pod": ["line", …] }` entries
 * replacing those keys (null removes one). Everything is checked before anything changes.
 */
export function applySettingsJson(settings: ControllerSettings, body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new SettingsError(
      'settings must be a JSON object, e.g. {"unpullableImages":["registry.example/broken*"]}',
    );
  const input = body as Record<string, unknown>;
  const known = new Set<string>([
    ...DURATIONS,
    ...PATTERN_LISTS,
    'defaultStorageClass',
    'podLogs',
    'nodes',
    'privateRegistries',
    'timeScale',
  ]);
  const unknown = Object.keys(input).filter((k) => !known.has(k));
  if (unknown.length > 0)
    throw new SettingsError(
      `unknown setting ${unknown.map((k) => JSON.stringify(k)).join(', ')}; known: ${[...known].join(', ')}`,
    );
  for (const key of DURATIONS) {
    const v = input[key];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0))
      throw new SettingsError(
        `${key} must be a whole number of milliseconds (0 or more), got ${JSON.stringify(v)}`,
      );
  }
  for (const key of PATTERN_LISTS) {
    const v = input[key];
    if (v !== undefined && (!Array.isArray(v) || v.some((p) => typeof p !== 'string' || p === '')))
      throw new SettingsError(
        `${key} must be a list of image patterns (strings; a trailing * matches a prefix)`,
      );
  }
  const nodes = input.nodes;
  if (
    nodes !== undefined &&
    (typeof nodes !== 'number' || !Number.isInteger(nodes) || nodes < 1 || nodes > 100)
  )
    throw new SettingsError(`nodes must be a whole number from 1 to 100, got ${JSON.stringify(nodes)}`);
  const storageClass = input.defaultStorageClass;
  if (storageClass !== undefined && typeof storageClass !== 'string')
    throw new SettingsError('defaultStorageClass must be a string');
  const logs = input.podLogs;
  if (logs !== undefined) {
    const valid =
      typeof logs === 'object' &&
      logs !== null &&
      !Array.isArray(logs) &&
      Object.values(logs).every(
        (l) => l === null || (Array.isArray(l) && l.every((x) => typeof x === 'string')),
      );
    if (!valid)
      throw new SettingsError(
        'podLogs must map "namespace/pod" (or "namespace/job:name") to a list of lines, or null',
      );
  }
  const registries = input.privateRegistries;
  if (
    registries !== undefined &&
    (!Array.isArray(registries) || registries.some((r) => typeof r !== 'string' || !/^[^\s/]+$/.test(r)))
  )
    throw new SettingsError(
      'privateRegistries must be a list of registry hosts, e.g. ["registry.example.com", "localhost:5000"]',
    );
  const timeScale = input.timeScale;
  if (
    timeScale !== undefined &&
    (typeof timeScale !== 'number' || !Number.isFinite(timeScale) || timeScale <= 0)
  )
    throw new SettingsError(
      `timeScale must be a positive number (60: a simulated minute per second), got ${JSON.stringify(timeScale)}`,
    );
  if (timeScale !== undefined) settings.timeScale = timeScale as number;
  if (registries !== undefined) settings.privateRegistries = [...(registries as string[])];
  for (const key of DURATIONS) if (input[key] !== undefined) settings[key] = input[key] as number;
  for (const key of PATTERN_LISTS)
    if (input[key] !== undefined) settings[key] = [...(input[key] as string[])];
  if (storageClass !== undefined) settings.defaultStorageClass = storageClass as string;
  if (nodes !== undefined) settings.nodes = nodes as number;
  for (const [key, lines] of Object.entries((logs ?? {}) as Record<string, string[] | null>)) {
    if (lines === null) settings.podLogs.delete(key);
    else settings.podLogs.set(key, [...lines]);
  }
}

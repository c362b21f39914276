/**
 * `longshore sim` flags derived from the simulation settings, so every setting the admin API
 * (`POST /__sim/settings`) takes has a flag without anyone writing one: the flag of a setting is
 * its name in kebab case (`podReadyDelayMs` → `--pod-ready-delay-ms`); a list setting takes one
 * value per flag, repeatable, under the singular name (`unpullableImages` → `--unpullable-image`,
 * `privateRegistries` → `--private-registry`). The kind of value comes from the setting's default
 * (number, string, boolean, list); map-valued settings (`podLogs`) are admin-API only. Values are
 * checked by applySettingsJson, as the admin API's are.
 */
import { defaultControllerSettings, settingsJson } from './controllers/settings.ts';

export type FlagKind = 'number' | 'string' | 'boolean' | 'list';

export interface SettingFlag {
  setting: string;
  flag: string;
  kind: FlagKind;
  help: string;
}

/** Words for the help of settings whose name says too little; others get a generic line. */
const HELP: Record<string, string> = {
  podReadyDelayMs: 'delay before a new Pod is Running and Ready (ms)',
  rolloutStepDelayMs: "delay between the Deployment controller's steps (ms)",
  unpullableImages: 'an image whose pull fails (ErrImagePull); exact, or a prefix ending in *; repeatable',
  pvcBindDelayMs: 'delay before a PVC binds (ms)',
  defaultStorageClass: 'the StorageClass preset and used for claims that name none',
  jobRunMs: 'how long a Job container whose command kube-sim cannot run runs (ms)',
  failingJobImages: 'an image whose Job containers exit 1 when kube-sim cannot run their command; repeatable',
  restartBackOffMs: "the first crash-loop back-off between container restarts (the kubelet's 10000)",
  restartBackOffMaxMs: "the longest crash-loop back-off (the kubelet's 300000)",
  jobBackOffBaseMs: "the Job controller's first delay before replacing failed Pods (upstream's 10000)",
  jobBackOffMaxMs: "the Job controller's longest delay before replacing failed Pods (upstream's 600000)",
  privateRegistries: 'a registry host whose pulls need credentials in an existing pull Secret; repeatable',
  timeScale: "how fast the CronJob schedules' clock runs (60: a simulated minute per second); CronJobs only",
};

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const singular = (name: string) =>
  name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : name;

/** One flag per setting with a flag-shaped value, in the settings' order. */
export function settingFlags(): SettingFlag[] {
  const flags: SettingFlag[] = [];
  for (const [setting, value] of Object.entries(settingsJson(defaultControllerSettings()))) {
    const kind: FlagKind | undefined = Array.isArray(value)
      ? 'list'
      : typeof value === 'number'
        ? 'number'
        : typeof value === 'string'
          ? 'string'
          : typeof value === 'boolean'
            ? 'boolean'
            : undefined;
    if (!kind) continue;
    const flag = `--${kebab(kind === 'list' ? singular(setting) : setting)}`;
    flags.push({ setting, flag, kind, help: HELP[setting] ?? `the ${setting} setting (docs/kube-sim.md)` });
  }
  return flags;
}

/** A flag value that is not of its setting's kind. */
export class SettingFlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingFlagError';
  }
}

/**
 * The settings JSON for the flags given (`values` by setting name, as the option parser collected
 * them: a string, or a list of strings for list settings). Numbers may be fractional here;
 * applySettingsJson decides what each setting accepts.
 */
export function settingsFromFlags(
  values: Record<string, string | string[] | undefined>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { setting, flag, kind } of settingFlags()) {
    const v = values[setting];
    if (v === undefined || (Array.isArray(v) && v.length === 0)) continue;
    if (kind === 'list') out[setting] = Array.isArray(v) ? v : [v];
    else {
      const text = Array.isArray(v) ? v.at(-1)! : v;
      if (kind === 'number') {
        const n = Number(text);
        if (text.trim() === '' || !Number.isFinite(n))
          throw new SettingFlagError(`${flag} must be a number, got ${JSON.stringify(text)}`);
        out[setting] = n;
      } else if (kind === 'boolean') {
        if (text !== 'true' && text !== 'false') throw new SettingFlagError(`${flag} must be true or false`);
        out[setting] = text === 'true';
      } else out[setting] = text;
    }
  }
  return out;
}

/**
 * The `autoscaling-auth-{app}` release in the deploy pipeline (docs/apps.md, "Trigger
 * authentication"): the Secrets `keda-auth-{app}-{trigger}` KEDA's TriggerAuthentications read.
 * An `autoscaling-auth` job (or a rename) gives the whole new set of values; every other job keeps
 * the deployed one, with its values read from the live Secrets and checked against the digests
 * history keeps (as `config-{app}`'s are), so a namespace move carries them and drift is repaired.
 * Values lost from a live Secret cannot be restored: the job leaves the release as it is and says
 * which trigger to set again.
 */
import { autoscalingAuthChart, triggerAuthSecretName } from '../../../charts/index.ts';
import { releaseNames } from '../../apps/releases.ts';
import { describeLost } from '../../releases/index.ts';
import type { Cluster } from '../cluster.ts';
import { renderChart } from './render.ts';
import type { SecretReleasePlan } from './secret-release-step.ts';

/** Trigger type → parameter → value (plaintext, only ever in memory and in the live Secrets). */
export type TriggerAuthValues = Record<string, Record<string, string>>;

/** What the live Secrets hold of the deployed revision: intact triggers, and those with values lost. */
export interface LiveTriggerAuth {
  values: TriggerAuthValues;
  /** Trigger types whose live Secret is gone or no longer matches the digests history keeps. */
  lost: string[];
  /** What is lost and how to give it again; empty when nothing is lost. */
  message: string;
}

/** The deployed values of `app`'s autoscaling-auth release; undefined when none is deployed. */
export async function liveAutoscalingAuth(
  cluster: Cluster,
  app: string,
): Promise<LiveTriggerAuth | undefined> {
  const release = releaseNames.autoscalingAuth(app);
  const found = await cluster.engine.deployedSecretValues(release);
  if (!found) return undefined;
  const prefix = triggerAuthSecretName(app, '');
  const live: LiveTriggerAuth = { values: {}, lost: [], message: '' };
  const described: string[] = [];
  for (const secret of found.secrets) {
    const trigger = secret.ref.name.slice(prefix.length);
    if (secret.lost.length > 0) {
      live.lost.push(trigger);
      described.push(describeLost(secret));
      continue;
    }
    live.values[trigger] = Object.fromEntries(
      Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
    );
  }
  if (live.lost.length > 0)
    live.message =
      `${release}: cannot restore ${described.join('; ')}: release history keeps a digest of each value, never the value; ` +
      `give ${live.lost.length > 1 ? 'them' : 'it'} again with ${live.lost
        .map((t) => `\`longshore autoscaling-auth:set ${app} ${t} --metadata KEY=VALUE …\``)
        .join(', ')} or drop ${live.lost.length > 1 ? 'them' : 'it'} with ${live.lost
        .map((t) => `\`longshore autoscaling-auth:unset ${app} ${t}\``)
        .join(', ')}`;
  return live;
}

/** What the pipeline does with the release: `given` is a job's new set, undefined to keep it. */
export async function planAutoscalingAuth(
  cluster: Cluster,
  app: string,
  namespace: string,
  given: TriggerAuthValues | undefined,
): Promise<SecretReleasePlan> {
  const release = releaseNames.autoscalingAuth(app);
  let values = given;
  if (values === undefined) {
    const live = await liveAutoscalingAuth(cluster, app);
    if (!live) return { action: 'none' };
    if (live.lost.length > 0) return { action: 'lost', message: `${live.message}; it is left as it is` };
    values = live.values;
  }
  if (Object.keys(values).length === 0)
    return cluster.history.last(release)
      ? { action: 'uninstall', why: 'no trigger authentication left' }
      : { action: 'none' };
  const rendered = renderChart(
    autoscalingAuthChart,
    { app, namespace, triggers: values },
    `trigger authentication of app ${app}`,
  );
  // The values stored with the revision name the parameters only (docs/releases.md, "Secret values").
  const keys = Object.fromEntries(
    Object.entries(values)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([trigger, parameters]) => [trigger, Object.keys(parameters).sort()]),
  );
  return { action: 'install', rendered, values: { app, namespace, keys } };
}

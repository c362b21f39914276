/** `deploy`: a new image (and Procfile/app.json processes, cron, registry credentials) for an app. */

import { deploymentName, ingressNames, webServiceName } from '../../../charts/index.ts';
import { envDigest, portsOf } from '../../apps/chart-values.ts';
import { applyDeploy, removedProcessTypes } from '../../apps/mutations.ts';
import type { AppSpec } from '../../apps/spec.ts';
import type { DeployPayload } from '../../jobs/schemas/deploy.ts';
import { sealContext } from '../../jobs/sealing.ts';
import { type AppState, loadAppState } from '../app-state.ts';
import { changedEnv, describeEnvChange, type EnvChange } from '../deploy/env-change.ts';
import { runAppPipeline } from '../deploy/pipeline.ts';
import type { Handler } from '../handler.ts';
import { recordTypes } from './record-types.ts';

export const deployHandler: Handler<DeployPayload> = async (ctx) => {
  const { app, registry } = ctx.payload;
  const cluster = await ctx.services.cluster();
  const loaded = await loadAppState(cluster, app, { dryRun: ctx.dryRun === true });
  const envChange = envChangeOf(ctx.payload);
  // The deploy's own env changes, merged before anything is written (refused when values are lost
  // and the change does not give or drop each of them; then the environment is whole again).
  const state: AppState = envChange
    ? { ...withoutLostConfig(loaded), env: changedEnv(ctx, app, loaded, envChange) }
    : loaded;
  // Refuses (before anything is written) a formation or healthcheck naming a type the app lacks.
  // A deploy restarts every pod anyway, so it picks up config set with --no-restart. (Not when
  // values are lost: config-{app} is left as it is, and so is the digest of what it holds.)
  const configDigest = state.configLost ? state.spec.configDigest : envDigest(state.env);
  const spec = { ...applyDeploy(state.spec, ctx.payload), configDigest };
  // Once per deploy, by its first attempt (a retry's log follows the first's in the same job);
  // the result carries it whichever attempt ends the job.
  const unsupported = ctx.payload.appJsonUnsupported ?? [];
  if (unsupported.length > 0 && ctx.job.attemptNumber === 1)
    await ctx.warn(unsupportedAppJsonMessage(unsupported));
  const registryPassword = registry
    ? ctx.services.sealer.open(registry.password, sealContext.registryPassword(app))
    : registry; // null forgets the credentials, undefined keeps them
  const { postdeploy, ...result } = await runAppPipeline(ctx, cluster, {
    spec,
    env: state.env,
    ...(state.configLost ? { configLost: state.configLost } : {}),
    ...(registryPassword !== undefined ? { registryPassword } : {}),
    what: `deployed ${ctx.payload.image}${envChange ? ` (config ${describeEnvChange(envChange)})` : ''}`,
    headline: `Deploying ${app} (image ${ctx.payload.image})`,
    runReleaseTask: true,
    runPostdeployTask: true,
  });
  // Only a Procfile that no longer declares a type removes it (docs/apps.md); say so, since it
  // deletes running objects. Before the app's first image there were no objects to delete.
  // (A dry run's plan lists those deletes itself.)
  if (state.spec.image && !ctx.dryRun) {
    for (const type of removedProcessTypes(state.spec, spec))
      await ctx.log(
        `process type ${type} removed (not in the Procfile): ${deletedObjects(state.spec, type)} deleted`,
      );
  }
  await recordTypes(ctx, spec);
  // Last: the new revision is deployed and recorded whatever the task does (postdeploy-task.ts).
  if (postdeploy) await postdeploy();
  // The status projection shows the image this deploy rolled out (the runner reads no payloads).
  return {
    ...result,
    image: ctx.payload.image,
    ...(unsupported.length > 0 ? { warnings: [unsupportedAppJsonMessage(unsupported)] } : {}),
  };
};

/** The warning about app.json keys the deploy ignored (docs/apps.md lists the supported ones). */
export function unsupportedAppJsonMessage(keys: readonly string[]): string {
  return `app.json: not supported by longshore, ignored: ${keys.join(', ')} (docs/apps.md lists the supported keys)`;
}

/** The payload's `env` record as the set/unset change `config` makes (`null` unsets). */
function envChangeOf(payload: DeployPayload): EnvChange | undefined {
  const entries = Object.entries(payload.env ?? {});
  if (entries.length === 0) return undefined;
  const set: EnvChange['set'] = {};
  const unset: string[] = [];
  for (const [key, value] of entries) {
    if (value === null) unset.push(key);
    else set[key] = value;
  }
  return { set, unset };
}

function withoutLostConfig(state: AppState): AppState {
  const { configLost: _resolved, ...rest } = state;
  return rest;
}

/** What the app release deleted with a process type: its Deployment, and for web its Service and Ingresses. */
function deletedObjects(before: AppSpec, type: string): string {
  const objects = [`Deployment ${deploymentName(before.app, type)}`];
  if (type === 'web') {
    if (portsOf(before).length > 0) objects.push(`Service ${webServiceName(before.app)}`);
    const ingresses = [...ingressNames(before.app, before.domains).values()];
    if (ingresses.length > 0) objects.push(`Ingress ${ingresses.join(', ')}`);
  }
  return objects.join(', ');
}

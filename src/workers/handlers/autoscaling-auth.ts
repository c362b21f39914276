/**
 * `autoscaling-auth`: set or unset the KEDA trigger authentication of one trigger type (docs/apps.md,
 * "Trigger authentication"). The values are opened here, merged with the live values of the other
 * triggers and released as `autoscaling-auth-{app}` through the deploy pipeline, whose app release
 * then renders the TriggerAuthentication and the ScaledObject triggers' `authenticationRef`.
 *
 * Refused before any write: an app that does not exist, a set without KEDA on the cluster (there
 * is no TriggerAuthentication kind to render; Dokku's chart likewise renders nothing without
 * `keda.sh/v1alpha1`, which would leave a set that silently does nothing), and values of another
 * trigger lost from their live Secret (this job would drop them).
 */
import { PermanentError } from '../../core/errors.ts';
import type { AutoscalingAuthPayload } from '../../jobs/schemas/autoscaling-auth.ts';
import { sealContext } from '../../jobs/sealing.ts';
import { loadAppState } from '../app-state.ts';
import { liveAutoscalingAuth, type TriggerAuthValues } from '../deploy/autoscaling-auth.ts';
import { kedaServed } from '../deploy/keda.ts';
import { runAppPipeline } from '../deploy/pipeline.ts';
import type { Handler } from '../handler.ts';
import { recordTypes } from './record-types.ts';

export const KEDA_MISSING_FOR_AUTH =
  'KEDA is not installed on this cluster (no ScaledObject CRD): a trigger authentication needs KEDA’s TriggerAuthentication; install KEDA, then set it again';

export const autoscalingAuthHandler: Handler<AutoscalingAuthPayload> = async (ctx) => {
  const { app, trigger, action, metadata } = ctx.payload;
  const cluster = await ctx.services.cluster();
  const state = await loadAppState(cluster, app, { dryRun: ctx.dryRun === true });
  if (!state.known) throw new PermanentError(`app ${app} does not exist`);
  if (action === 'set' && !(await kedaServed(cluster.kube.kc)))
    throw new PermanentError(KEDA_MISSING_FOR_AUTH);

  const live = await liveAutoscalingAuth(cluster, app);
  const otherLost = (live?.lost ?? []).filter((t) => t !== trigger);
  if (live && otherLost.length > 0) throw new PermanentError(`${live.message}; nothing was changed`);
  const values: TriggerAuthValues = { ...(live?.values ?? {}) };
  delete values[trigger];
  if (action === 'set')
    values[trigger] = Object.fromEntries(
      Object.entries(metadata).map(([key, sealed]) => [
        key,
        ctx.services.sealer.open(sealed, sealContext.autoscalingAuth(app, trigger, key)),
      ]),
    );

  const { autoscalingAuth: _previous, ...rest } = state.spec;
  const keys = Object.fromEntries(
    Object.keys(values)
      .sort()
      .map((t) => [t, Object.keys(values[t]!).sort()]),
  );
  const spec = Object.keys(keys).length > 0 ? { ...rest, autoscalingAuth: keys } : rest;
  const result = await runAppPipeline(ctx, cluster, {
    spec,
    env: state.env,
    ...(state.configLost ? { configLost: state.configLost } : {}),
    autoscalingAuth: values,
    what:
      action === 'set'
        ? `autoscaling-auth set ${trigger} (${Object.keys(metadata).sort().join(', ')})`
        : `autoscaling-auth unset ${trigger}`,
  });
  await recordTypes(ctx, spec);
  return result;
};

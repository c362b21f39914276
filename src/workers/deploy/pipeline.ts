/**
 * The deploy pipeline every app job runs (deploy, config, scale, domains, ports, properties,
 * reconcile), in this order:
 *
 *   validate and render everything → namespace → `config-{app}` → `pull-secret-{app}` (installed,
 *   kept or uninstalled; an app without its own credential gets the fleet's for its image's
 *   registry, `registry:login --global`, and catches up with a rotation that ran meanwhile,
 *   fleet-pull-secret.ts; a fleet one of a registry the image left is uninstalled) →
 *   `autoscaling-auth-{app}` (KEDA trigger auth Secrets, autoscaling-auth.ts) → storage claims present and bound → app release (rollout awaited,
 *   progress streamed; leaked imagePullSecrets are removed by the same apply, see
 *   src/releases/pull-secret-leaks.ts; its values also record the spec and the config revision,
 *   src/apps/revision-record.ts; a deploy's release task runs as a Job once the app release's
 *   revision exists and before its first write, release-task.ts) → save the spec in the app record
 *   → (a deploy that rolled out a new revision) its postdeploy task, postdeploy-task.ts, which the
 *   caller runs once its own steps are done.
 *
 * Nothing is written until every chart has rendered and every input has been checked. Each step is
 * idempotent (unchanged releases are no-ops with zero writes), so a retried or resumed job
 * converges. The spec is saved last: a job whose app release failed leaves the previous spec in
 * place for the next job (docs/apps.md).
 *
 * A dry run (ctx.dryRun, dry-run.ts) runs the same checks and renders, and asks the engine for a plan
 * of each release where a real run writes it: nothing is written, the plans are the job's result.
 */
import {
  type AppChartValues,
  appChart,
  appValues,
  configChart,
  pullSecretChart,
  releaseJob,
  ShellWordsError,
} from '../../../charts/index.ts';
import { appChartValues, namespaceOf } from '../../apps/chart-values.ts';
import { APP_DEFAULTS } from '../../apps/defaults.ts';
import { profilesOf } from '../../apps/placement-mutations.ts';
import { normalizeRegistryServer, registryHostOf } from '../../apps/registry-host.ts';
import { releaseNames } from '../../apps/releases.ts';
import { RECORDED_KEY, withRecord } from '../../apps/revision-record.ts';
import type { AppSpec } from '../../apps/spec.ts';
import { InvalidInputError } from '../../core/errors.ts';
import { readProfiles } from '../../jobs/placement-profiles.ts';
import type { LiveValues, ReleasePlan } from '../../releases/index.ts';
import { validSpec } from '../app-state.ts';
import type { Cluster } from '../cluster.ts';
import type { HandlerContext, HandlerResult } from '../handler.ts';
import { type GlobalCredential, globalCredentialSnapshot } from '../registry/global-credentials.ts';
import { planAutoscalingAuth, type TriggerAuthValues } from './autoscaling-auth.ts';
import { dryRunResult, namespaceMissing, planLine } from './dry-run.ts';
import { followFleetCredential, globalPullSecretPlan, isFleetPullSecret } from './fleet-pull-secret.ts';
import { autoscales, kedaServed } from './keda.ts';
import { keptPullSecret } from './kept-pull-secret.ts';
import { forgetIfGone } from './known-namespaces.ts';
import { lostConfigMessage } from './lost-secrets.ts';
import { checkMounts } from './mounts.ts';
import { ensureNamespace } from './namespace.ts';
import { checkOwnership } from './ownership.ts';
import { postdeployDue, recordPostdeployDue, runPostdeployTask } from './postdeploy-task.ts';
import { appReleaseForwarding, progressForwarder } from './progress.ts';
import { interruptDecision, outcomeText, releaseReport } from './release-outcome.ts';
import { releaseTaskStep } from './release-task.ts';
import { renderChart } from './render.ts';
import { runSecretReleaseStep, type SecretReleasePlan } from './secret-release-step.ts';

export interface AppChange {
  /** The spec to deploy (the job's change applied to the spec it builds on). */
  spec: AppSpec;
  env: Record<string, string>;
  /** New registry password (install `pull-secret-{app}`), `null` to remove the credentials, absent to keep them. */
  registryPassword?: string | null;
  /** What the job did, for the summary (`deployed nginx:1.27`, `set 2 variables`). */
  what: string;
  /** The job's first step header; default `Updating {app}: {what}`. */
  headline?: string;
  /** Deployed config values the live Secret lost (lost-secrets.ts): `config-{app}` is left as it is. */
  configLost?: LiveValues;
  /**
   * The whole new set of KEDA trigger authentication values (`autoscaling-auth`, a rename), for
   * the `autoscaling-auth-{app}` release; absent keeps the deployed one (autoscaling-auth.ts).
   */
  autoscalingAuth?: TriggerAuthValues;
  /** A rename: the app whose domains this one takes over (the ownership check allows them). */
  takeDomainsFrom?: string;
  /**
   * Run the spec's release task before the app release's first write (a `deploy`: docs/apps.md,
   * "The release phase"). Only when the app release makes a revision (or continues this job's).
   */
  runReleaseTask?: boolean;
  /**
   * Give the result a `postdeploy` step running the spec's postdeploy task (a `deploy`:
   * docs/apps.md, "Postdeploy") when the app release rolled out a new revision made by this job
   * (in this attempt or, for a retry, an earlier one).
   */
  runPostdeployTask?: boolean;
}

/** The pipeline's result; `postdeploy`, when due, is the caller's to run (it is not stored). */
export type PipelineResult = HandlerResult & { postdeploy?: () => Promise<void> };

/** Renders the app chart of an app that has no image yet, only to validate its spec. */
const VALIDATION_IMAGE = 'longshore.invalid/validation-only:0';

export async function runAppPipeline(
  ctx: HandlerContext<unknown>,
  cluster: Cluster,
  change: AppChange,
): Promise<PipelineResult> {
  const spec = validSpec(change.spec);
  const namespace = namespaceOf(spec);
  // The namespace is read once per connection (ensureNamespace): a write that finds it deleted by
  // hand since forgets it, and the job's retry creates it again (known-namespaces.ts).
  const result = await forgetIfGone(cluster.namespaces, namespace, () =>
    runValidated(ctx, cluster, change, spec, namespace),
  );
  const { postdeploy } = result;
  return postdeploy
    ? { ...result, postdeploy: () => forgetIfGone(cluster.namespaces, namespace, postdeploy) }
    : result;
}

async function runValidated(
  ctx: HandlerContext<unknown>,
  cluster: Cluster,
  change: AppChange,
  spec: AppSpec,
  namespace: string,
): Promise<PipelineResult> {
  const { history, apps, engine, kube } = cluster;
  const app = spec.app;
  const holder = ctx.idempotencyKey;
  const onInterrupt = interruptDecision(ctx);
  const dryRun = ctx.dryRun === true;
  const plans: ReleasePlan[] = [];
  let newNamespace: string | undefined;

  // 1. Everything that can be checked, before the first write.
  await ctx.step(change.headline ?? `Updating ${app}: ${change.what}`);
  const config = renderChart(configChart, { app, namespace, env: change.env }, `config of app ${app}`);
  // An app without its own credential pulls with the fleet's for its image's registry: read with
  // its generation, so a rotation running meanwhile is noticed after the write (below).
  const fleetHost =
    change.registryPassword === undefined && !spec.registry && spec.image
      ? registryHostOf(spec.image)
      : undefined;
  const fleet = fleetHost
    ? await globalCredentialSnapshot(ctx.services.redis, ctx.services.sealer, fleetHost)
    : undefined;
  const pullSecret = await planPullSecret(
    cluster,
    spec,
    namespace,
    change.registryPassword,
    fleet?.credential,
  );
  const auth = await planAutoscalingAuth(cluster, app, namespace, change.autoscalingAuth);
  // Before the first deploy there is no image and no app release, but the accepted changes are
  // still rendered (with a stand-in image) so a spec that could never deploy is refused now.
  // The fleet placement profiles the processes use (a Redis read): their contents are rendered.
  const profiles = await readProfiles(ctx.services.redis, profilesOf(spec));
  // A cluster fact the chart needs for an autoscaled process: ScaledObject with KEDA, HPA without.
  const keda = autoscales(spec) ? await kedaServed(kube.kc) : undefined;
  const rendered = renderChart(
    appChart,
    appChartValues(
      { ...spec, image: spec.image ?? VALIDATION_IMAGE },
      { globalPullSecret: usesGlobal(pullSecret), profiles, ...(keda !== undefined ? { keda } : {}) },
    ),
    `app ${app}`,
  );
  const appRelease = spec.image ? rendered : undefined;
  if (appRelease) await checkMounts(kube.core, namespace, spec.mounts);
  // The release task's Job renders from the same values: a command that does not split is refused now.
  const releaseValues =
    appRelease && change.runReleaseTask && spec.release
      ? checkReleaseTask(appValues.parse(appRelease.values), spec.release.command, 'release')
      : undefined;
  const postdeployValues =
    appRelease && change.runPostdeployTask && spec.postdeploy
      ? checkReleaseTask(appValues.parse(appRelease.values), spec.postdeploy.command, 'postdeploy')
      : undefined;

  // 2. Writes, in dependency order. An app that has no image yet gets only what it already has
  // content for: changes accepted before the first deploy write nothing but the saved spec.
  const configRelease = releaseNames.config(app);
  const installConfig =
    appRelease !== undefined ||
    Object.keys(change.env).length > 0 ||
    history.deployed(configRelease) !== undefined;
  // Still before the first write: every object to write is this app's, every domain no other app's.
  await checkOwnership(
    engine,
    app,
    [
      ...(installConfig ? [{ release: configRelease, objects: config.objects }] : []),
      ...(pullSecret.action === 'install'
        ? [{ release: releaseNames.pullSecret(app), objects: pullSecret.rendered.objects }]
        : []),
      ...(auth.action === 'install'
        ? [{ release: releaseNames.autoscalingAuth(app), objects: auth.rendered.objects }]
        : []),
      ...(appRelease ? [{ release: releaseNames.app(app), objects: appRelease.objects }] : []),
    ],
    spec.domains,
    ctx.signal,
    change.takeDomainsFrom,
  );
  const writesSecrets = installConfig || pullSecret.action === 'install' || auth.action === 'install';
  if (writesSecrets && dryRun) {
    if (await namespaceMissing(kube.core, namespace)) {
      newNamespace = namespace;
      await ctx.log(`namespace ${namespace}: would be created`);
    }
  } else if (writesSecrets) {
    const created = await ensureNamespace(kube.core, cluster.namespaces, namespace);
    if (created === 'created') await ctx.log(`namespace ${namespace}: created`);
  }
  /** A dry run's plan of a release, in place of its write; logged as the real run logs its outcome. */
  const plan = async (planned: ReleasePlan) => {
    plans.push(planned);
    await ctx.log(planLine(planned));
  };

  if (installConfig) await ctx.step(`Releasing config (${configRelease})`);
  if (installConfig && change.configLost) {
    await ctx.warn(lostConfigMessage(app, change.configLost));
  } else if (installConfig) {
    const configInput = {
      release: configRelease,
      chart: config.chart,
      // The values stored with the revision name the keys only; the engine stores a digest of each
      // value in place of the Secret's data (docs/releases.md, "Secret values").
      values: { app, namespace, keys: Object.keys(change.env).sort() },
      objects: config.objects,
      signal: ctx.signal,
    };
    if (dryRun) await plan(await engine.plan(configInput));
    else {
      const configResult = await engine.upgrade({ ...configInput, app, holder, wait: false, onInterrupt });
      await ctx.log(`${configResult.release}: ${outcomeText(configResult.outcome, configResult.revision)}`);
    }
  }

  const secretRun = { app, holder, dryRun, onInterrupt, planned: plan };
  await runSecretReleaseStep(
    ctx,
    engine,
    { release: releaseNames.pullSecret(app), title: 'the pull secret', plan: pullSecret },
    secretRun,
  );
  // KEDA's trigger authentication Secrets, before the app release's TriggerAuthentications name them.
  await runSecretReleaseStep(
    ctx,
    engine,
    { release: releaseNames.autoscalingAuth(app), title: 'trigger authentication', plan: auth },
    secretRun,
  );

  // A rotation between our read of the store and now may have been overwritten by what we wrote.
  const followed =
    !dryRun && fleet && fleetHost
      ? await followFleetCredential(
          ctx,
          cluster,
          { app, namespace },
          { host: fleetHost, generation: fleet.generation },
        )
      : undefined;

  const appInput = appRelease && {
    release: releaseNames.app(app),
    chart: appRelease.chart,
    // The spec and the config revision go with the objects, so a rollback can restore them.
    values: withRecord(appRelease.values, {
      spec,
      ...configRevisionOf(history.deployed(configRelease)),
    }),
    objects: appRelease.objects,
    // A spec change that renders the same objects (deploy-timeout, config --no-restart) makes
    // no revision: the record is what produced the revision, kept with it when it is made.
    recordOnlyKeys: [RECORDED_KEY],
    signal: ctx.signal,
  };
  if (dryRun) {
    if (appInput && change.runReleaseTask && spec.release)
      await ctx.log(
        `release task: would run before the rollout, if ${app} gets a new revision: ${spec.release.command}`,
      );
    if (appInput && postdeployValues && spec.postdeploy)
      await ctx.log(
        `postdeploy task: would run after the rollout, if ${app} gets a new revision: ${spec.postdeploy.command}`,
      );
    if (appInput) await plan(await engine.plan(appInput));
    return dryRunResult(change.what, plans, newNamespace);
  }

  let revision: number | undefined;
  let postdeploy: (() => Promise<void>) | undefined;
  if (appInput) {
    await ctx.step(`Releasing ${app}`);
    const forward = progressForwarder(ctx, app, appReleaseForwarding(app, Object.keys(spec.processes)));
    const releaseStep =
      change.runReleaseTask && spec.release
        ? releaseTaskStep(ctx, cluster, {
            values: releaseValues!,
            command: spec.release.command,
            timeoutSeconds: spec.properties.releaseTimeoutSeconds ?? APP_DEFAULTS.releaseTimeoutSeconds,
            // The app's ServiceAccount is the app release's: before its first install, `default`.
            serviceAccountName: history.deployed(releaseNames.app(app)) ? app : 'default',
            beforeOutput: () => forward.flush(),
          })
        : undefined;
    // The revision this job makes is recorded before its first write, so a retry whose upgrade
    // finds it deployed still runs its postdeploy task (postdeploy-task.ts).
    const beforeApply =
      postdeployValues || releaseStep
        ? async (made: number) => {
            if (postdeployValues) await recordPostdeployDue(ctx, made);
            await releaseStep?.(made);
          }
        : undefined;
    const timeoutSeconds = spec.properties.deployTimeoutSeconds ?? APP_DEFAULTS.deployTimeoutSeconds;
    let result: Awaited<ReturnType<typeof engine.upgrade>>;
    try {
      result = await engine.upgrade({
        ...appInput,
        app,
        holder,
        wait: { timeoutMs: timeoutSeconds * 1000, rollouts: true },
        rollbackOnFailure: spec.properties.rollbackOnFailure ?? APP_DEFAULTS.rollbackOnFailure,
        description: change.what,
        onProgress: forward.listener,
        onInterrupt,
        ...(beforeApply ? { beforeApply } : {}),
      });
    } catch (err) {
      // The projection shows what the failure left: the deployed revision and the failed one.
      await forward.flush();
      ctx.report(await releaseReport(history, releaseNames.app(app)));
      throw err;
    } finally {
      // The engine's steps reach the job before the outcome (or the failure) does.
      await forward.flush();
    }
    revision = result.revision;
    ctx.report(await releaseReport(history, releaseNames.app(app), spec.image));
    await ctx.log(`${app}: ${outcomeText(result.outcome, result.revision)}`);
    // Only after a rollout of a new revision: this attempt's, or an earlier attempt's of this job
    // (its upgrade is then a no-op); never for a deploy that changed nothing, or only repaired.
    const rolledOut = async () =>
      result.outcome === 'deployed' || (await postdeployDue(ctx)) === result.revision;
    if (postdeployValues && spec.postdeploy && (await rolledOut())) {
      const deployed = result.revision;
      const command = spec.postdeploy.command;
      postdeploy = () =>
        runPostdeployTask(
          ctx,
          cluster,
          {
            values: postdeployValues,
            command,
            timeoutSeconds: spec.properties.releaseTimeoutSeconds ?? APP_DEFAULTS.releaseTimeoutSeconds,
            // The app release is deployed: its ServiceAccount exists.
            serviceAccountName: app,
          },
          deployed,
        );
    }
  }

  await apps.saveSpec(app, spec);
  // A rotation that looked at this app before its pull-secret revision reached that worker's cache,
  // or while this job rolled out (a first pull secret), left it out: look once more.
  if (followed) await followFleetCredential(ctx, cluster, { app, namespace }, followed);
  return {
    summary: `${change.what}${revision !== undefined ? ` (${app} revision ${revision})` : ''}`,
    ...(revision !== undefined ? { revision } : {}),
    ...(spec.image ? { image: spec.image } : {}),
    ...(postdeploy ? { postdeploy } : {}),
  };
}

/** The values the release task's Job renders from, once its command was seen to render. */
function checkReleaseTask(
  values: AppChartValues,
  command: string,
  kind: 'release' | 'postdeploy',
): AppChartValues {
  try {
    releaseJob(values, {
      kind,
      revision: 1,
      command,
      jobId: 'validation',
      activeDeadlineSeconds: 1,
      ttlSecondsAfterFinished: 1,
      serviceAccountName: 'default',
    });
  } catch (err) {
    if (err instanceof ShellWordsError || err instanceof RangeError)
      throw new InvalidInputError([{ path: kind, message: `the ${kind} task's command: ${err.message}` }]);
    throw err;
  }
  return values;
}

function configRevisionOf(deployed: { revision: number } | undefined): { configRevision?: number } {
  return deployed ? { configRevision: deployed.revision } : {};
}

/**
 * New credentials install the release; removed credentials uninstall it; otherwise an existing
 * release is upgraded with its own objects and the live Secret's value (kept-pull-secret.ts), so an
 * edited pull secret is repaired on every deploy without the job knowing the password.
 */
async function planPullSecret(
  cluster: Cluster,
  spec: AppSpec,
  namespace: string,
  password: string | null | undefined,
  fleet: GlobalCredential | undefined,
): Promise<SecretReleasePlan> {
  const app = spec.app;
  if (password === null) return { action: 'uninstall', why: 'registry credentials removed' };
  if (password !== undefined) {
    if (!spec.registry) throw new Error('a registry password without a registry server and username');
    const { server, username } = spec.registry;
    return {
      action: 'install',
      rendered: renderChart(
        pullSecretChart,
        { app, namespace, server, username, password },
        `registry credentials of app ${app}`,
      ),
      values: { app, namespace, server, username },
    };
  }
  // An app without its own credential pulls with the fleet's credential for its image's registry
  // (registry:login --global), written into its own pull-secret-{app}.
  if (fleet) return globalPullSecretPlan(app, namespace, fleet);
  const moved = await fleetPullSecretLeftBehind(cluster, spec);
  if (moved) return { action: 'uninstall', why: `the image no longer pulls from ${moved}` };
  const kept = await keptPullSecret(cluster, app, releaseNames.pullSecret(app), namespace);
  if (!kept) return { action: 'none' };
  if ('lost' in kept) return { action: 'lost', message: kept.lost };
  // A kept fleet credential stays marked as one (so the pods keep listing it); an app's own keeps
  // the values its spec names.
  const values =
    kept.rendered.values.source === 'global'
      ? { ...kept.rendered.values, namespace }
      : { app, namespace, server: spec.registry?.server, username: spec.registry?.username };
  return { action: 'install', rendered: kept.rendered, values };
}

/**
 * The registry of the fleet pull secret the app has deployed, when its image no longer pulls from
 * there (and its new registry has no fleet credential: the caller asks only then): nothing uses
 * it any more, so it is uninstalled and the pods stop listing it. A rotation of that registry
 * then leaves the app alone, as it leaves an app whose image never pulled from it
 * (rotation-targets.ts finds its apps by their deployed fleet pull secrets).
 */
async function fleetPullSecretLeftBehind(cluster: Cluster, spec: AppSpec): Promise<string | undefined> {
  if (!spec.image || spec.registry) return undefined;
  const release = releaseNames.pullSecret(spec.app);
  const deployed = cluster.history.deployed(release);
  if (!deployed) return undefined;
  const { values } = await cluster.history.read(release, deployed.revision);
  if (values.source !== 'global' || isFleetPullSecret(values, registryHostOf(spec.image))) return undefined;
  return normalizeRegistryServer(String(values.server));
}

/** Whether the app's pods list pull-secret-{app} because of a fleet-wide credential. */
function usesGlobal(plan: SecretReleasePlan): boolean {
  return plan.action === 'install' && plan.values.source === 'global';
}

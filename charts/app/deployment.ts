/** One Deployment per process type. */
import { processLabels, processSelector } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import { processObjectName } from '../names.ts';
import type { RenderedObject } from '../types.ts';
import { type AppContext, WEB_PROCESS } from './context.ts';
import { containerBase, mountsField, mountsOf, podAnnotations, podSpec } from './pod.ts';
import { containerPorts } from './ports.ts';
import { containerProbes } from './probes.ts';
import { containerResources } from './resources.ts';
import { placementFields, rolloutStrategy } from './rollout.ts';
import { splitShellWords } from './shell-words.ts';
import { annotationsFor, labelsFor } from './user-metadata.ts';
import type { ProcessValues } from './values.ts';

/** Old ReplicaSets kept for `kubectl rollout undo` (as Dokku's chart). */
export const REVISION_HISTORY_LIMIT = 5;

/** `{app}-{process}`, with a marker when the process type has a `-` (charts/names.ts). */
export function deploymentName(app: string, process: string): string {
  return processObjectName(app, process);
}

export function deployment(ctx: AppContext, process: string, spec: ProcessValues): RenderedObject {
  const { values } = ctx;
  const labels = processLabels(values.app, process, labelsFor(values, 'deployment', process));
  const podLabels = processLabels(values.app, process, labelsFor(values, 'pod', process));
  const mounts = mountsOf(values, process);
  const container: Record<string, unknown> = {
    ...containerBase(process, values, spec.command === undefined ? undefined : splitShellWords(spec.command)),
    env: [{ name: 'PORT', value: String(ctx.port) }],
  };
  if (process === WEB_PROCESS && ctx.portMaps.length > 0) container.ports = containerPorts(ctx.portMaps);
  container.resources = containerResources(spec.resources);
  Object.assign(container, containerProbes(spec.healthchecks, ctx.port), mountsField(mounts));

  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: objectMeta(
      deploymentName(values.app, process),
      values.namespace,
      labels,
      annotationsFor(values, 'deployment', process),
    ),
    spec: {
      // An autoscaled process's replicas are its autoscaler's (autoscaler.ts): not in longshore's
      // applied configuration, so server-side apply leaves the field to that manager.
      ...(spec.autoscaling ? {} : { replicas: spec.replicas }),
      revisionHistoryLimit: REVISION_HISTORY_LIMIT,
      selector: { matchLabels: processSelector(values.app, process) },
      ...rolloutStrategy(spec),
      template: {
        metadata: {
          labels: podLabels,
          annotations: podAnnotations(values, spec.restartedAt, annotationsFor(values, 'pod', process)),
        },
        spec: podSpec(values, mounts, [container], placementFields(spec)),
      },
    },
  };
}

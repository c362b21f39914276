/**
 * Why the kubelet cannot start a Pod's containers, in the order it finds out (kubelet SyncPod):
 * 1. volumes it cannot mount (a Secret or ConfigMap volume whose object or key is missing): the
 *    sandbox is never created and the containers stay ContainerCreating;
 * 2. per container, the image pull (imageManager.EnsureImageExists): an image the settings call
 *    unpullable, or an image on a private registry (settings.privateRegistries) that no existing
 *    pull Secret has credentials for → ErrImagePull; missing pull Secrets only warn;
 * 3. per container, its environment (kubelet_pods.go makeEnvironmentVariables): envFrom and
 *    env.valueFrom references to a missing Secret/ConfigMap or key → CreateContainerConfigError,
 *    found while the environment is resolved (container-env.ts resolveContainerEnv).
 * Optional references never block.
 */
import type { KubeObject } from '../types.ts';
import { imageNotFoundError, imageUnauthorizedError } from './container-runtime.ts';
import { hasCredentialFor, isPrivateRegistry } from './pull-credentials.ts';
import { type ControllerSettings, imageMatches } from './settings.ts';
import type { Container, KeyToPath, Pod } from './workload-types.ts';

export interface ObjectLookup {
  secret(namespace: string, name: string): KubeObject | undefined;
  configMap(namespace: string, name: string): KubeObject | undefined;
}

const keysOf = (object: KubeObject, fields: string[]): Set<string> =>
  new Set(fields.flatMap((f) => Object.keys((object[f] as Record<string, unknown> | undefined) ?? {})));

interface VolumeRef {
  kind: 'secret' | 'configmap';
  name: string;
  optional: boolean;
  items: KeyToPath[];
}

function volumeRefs(pod: Pod): VolumeRef[] {
  const refs: VolumeRef[] = [];
  for (const v of pod.spec.volumes ?? []) {
    if (v.secret?.secretName)
      refs.push({
        kind: 'secret',
        name: v.secret.secretName,
        optional: !!v.secret.optional,
        items: v.secret.items ?? [],
      });
    if (v.configMap?.name)
      refs.push({
        kind: 'configmap',
        name: v.configMap.name,
        optional: !!v.configMap.optional,
        items: v.configMap.items ?? [],
      });
    for (const s of v.projected?.sources ?? []) {
      if (s.secret?.name)
        refs.push({
          kind: 'secret',
          name: s.secret.name,
          optional: !!s.secret.optional,
          items: s.secret.items ?? [],
        });
      if (s.configMap?.name)
        refs.push({
          kind: 'configmap',
          name: s.configMap.name,
          optional: !!s.configMap.optional,
          items: s.configMap.items ?? [],
        });
    }
  }
  return refs;
}

/**
 * The first volume the kubelet cannot set up (its FailedMount event would say why); undefined
 * when every volume mounts.
 */
export function unmountableVolume(pod: Pod, lookup: ObjectLookup): string | undefined {
  const ns = pod.metadata.namespace!;
  for (const ref of volumeRefs(pod)) {
    const object = ref.kind === 'secret' ? lookup.secret(ns, ref.name) : lookup.configMap(ns, ref.name);
    if (!object) {
      if (ref.optional) continue;
      return `${ref.kind} "${ref.name}" not found`;
    }
    const keys = keysOf(object, ref.kind === 'secret' ? ['data'] : ['data', 'binaryData']);
    const missing = ref.items.find((item) => !keys.has(item.key));
    if (missing && !ref.optional)
      return `configured to use key ${missing.key} of ${ref.kind === 'secret' ? 'Secret' : 'ConfigMap'} ${ns}/${ref.name}, but no such key exists`;
  }
  return undefined;
}

/**
 * getPullSecretsForPod: the pull Secrets that exist, and the names of those that do not (the
 * kubelet warns about those with a FailedToRetrieveImagePullSecret event and pulls anyway).
 */
export function podPullSecrets(pod: Pod, lookup: ObjectLookup): { found: KubeObject[]; missing: string[] } {
  const found: KubeObject[] = [];
  const missing: string[] = [];
  for (const ref of pod.spec.imagePullSecrets ?? []) {
    if (!ref.name) continue;
    const secret = lookup.secret(pod.metadata.namespace!, ref.name);
    if (secret) found.push(secret);
    else missing.push(ref.name);
  }
  return { found, missing };
}

/**
 * The CRI error of pulling this container's image, or undefined when the pull succeeds: an image
 * the settings call unpullable is not found; an image on a registry the settings call private
 * (`privateRegistries`) needs a credential for that registry in an existing pull Secret
 * (pull-credentials.ts), else the registry refuses it. Every other registry is public: missing
 * pull Secrets do not matter to it.
 */
export function imagePullError(
  pod: Pod,
  container: Container,
  settings: ControllerSettings,
  lookup: ObjectLookup,
): string | undefined {
  const image = container.image ?? '';
  if (imageMatches(image, settings.unpullableImages)) return imageNotFoundError(image);
  if (!isPrivateRegistry(image, settings.privateRegistries)) return undefined;
  return hasCredentialFor(image, podPullSecrets(pod, lookup).found)
    ? undefined
    : imageUnauthorizedError(image);
}

/**
 * The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount/admission.go) on pod
 * creation: spec.serviceAccountName defaults to `default`; the ServiceAccount must exist (403
 * Forbidden otherwise, as upstream's admission.NewForbidden words it); and unless the pod or the
 * ServiceAccount opts out with automountServiceAccountToken: false, a projected `kube-api-access-*`
 * volume (bound token, kube-root-ca.crt, namespace) is added and mounted read-only at
 * /var/run/secrets/kubernetes.io/serviceaccount in every container that mounts nothing there.
 */
import { randomBytes } from 'node:crypto';
import { statusErrors } from '../errors.ts';
import { findByKind } from '../resources.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';

const SERVICE_ACCOUNTS = findByKind('v1', 'ServiceAccount')!;
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const VOLUME_PREFIX = 'kube-api-access-';
/** upstream's token lifetime for the projected volume: an hour and 7 seconds (a marker value). */
const VOLUME_TOKEN_SECONDS = 3607;

interface Container {
  volumeMounts?: { mountPath?: string; name?: string; readOnly?: boolean }[];
}
interface PodSpec {
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  volumes?: { name?: string }[];
  containers?: Container[];
  initContainers?: Container[];
}

/** utilrand.String's alphabet (no vowels, no confusable characters). */
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
function suffix(): string {
  return [...randomBytes(5)].map((b) => ALPHABET[b % ALPHABET.length]).join('');
}

function projectedVolume(name: string) {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: VOLUME_TOKEN_SECONDS, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        {
          downwardAPI: {
            items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
          },
        },
      ],
    },
  };
}

/** `requestedName`: the name or generateName the client sent (what upstream's message names). */
export function admitPodServiceAccount(store: ObjectStore, pod: KubeObject, requestedName: string): void {
  // Mirror pods (static pods of a kubelet) are left alone.
  if (pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined) return;
  const holder = pod as { spec?: PodSpec };
  holder.spec ??= {};
  const spec = holder.spec;
  if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || 'default';
  const namespace = pod.metadata.namespace!;
  const sa = store.get(`/${SERVICE_ACCOUNTS.plural}`, namespace, spec.serviceAccountName);
  if (!sa) {
    throw statusErrors.forbidden(
      `pods "${requestedName}" is forbidden: error looking up service account ${namespace}/${spec.serviceAccountName}: serviceaccount "${spec.serviceAccountName}" not found`,
      { name: requestedName, kind: 'pods' },
    );
  }
  // The deprecated field mirrors the name (the v1 conversion writes it back).
  spec.serviceAccount = spec.serviceAccountName;
  const saAutomount = (sa as { automountServiceAccountToken?: boolean }).automountServiceAccountToken;
  const automount = spec.automountServiceAccountToken ?? saAutomount ?? true;
  if (!automount) return;
  const existing = (spec.volumes ?? []).find((v) => v.name?.startsWith(VOLUME_PREFIX));
  const volumeName = existing?.name ?? `${VOLUME_PREFIX}${suffix()}`;
  let needed = false;
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if ((container.volumeMounts ?? []).some((m) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
    container.volumeMounts = [
      ...(container.volumeMounts ?? []),
      { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH },
    ];
    needed = true;
  }
  if (!existing && needed) spec.volumes = [...(spec.volumes ?? []), projectedVolume(volumeName)];
}

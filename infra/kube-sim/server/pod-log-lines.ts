/**
 * What the pod log endpoint and its follow mode share: the Pod's shape as far as logs care, where
 * its lines come from (the container instance's log in the node runtime; or lines planted in
 * `settings.podLogs` under `namespace/pod`, else `namespace/job:<job name>` for a Job's Pod), and
 * how lines are written (optional RFC 3339 timestamps with nanoseconds, as the kubelet's
 * `timestamps=true`).
 */
import { typeKey } from '../api/service.ts';
import type { ControllerSettings } from '../controllers/settings.ts';
import { findByKind } from '../resources.ts';
import type { NodeRuntime } from '../runtime/node-runtime.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';

export const POD_TYPE_KEY = typeKey(findByKind('v1', 'Pod')!);

export interface PodLogContext {
  store: ObjectStore;
  settings: ControllerSettings;
  /** The node's containers (absent: nothing runs, only planted lines). */
  runtime?: NodeRuntime;
}

interface ContainerState {
  waiting?: { reason?: string };
  running?: { startedAt?: string };
  terminated?: { startedAt?: string; containerID?: string };
}

interface ContainerStatus {
  name: string;
  containerID?: string;
  state?: ContainerState;
  lastState?: { terminated?: { containerID?: string } };
}

export interface PodShape {
  spec?: {
    nodeName?: string;
    containers?: { name: string }[];
    initContainers?: { name: string }[];
    ephemeralContainers?: { name: string }[];
  };
  status?: {
    phase?: string;
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
    ephemeralContainerStatuses?: ContainerStatus[];
  };
}

export function containerStatus(pod: PodShape, container: string): ContainerStatus | undefined {
  const status = pod.status ?? {};
  return [
    ...(status.containerStatuses ?? []),
    ...(status.initContainerStatuses ?? []),
    ...(status.ephemeralContainerStatuses ?? []),
  ].find((c) => c.name === container);
}

/** Lines planted for the Pod: its own key first, else its Job's (the `job-name` label). */
export function plantedLines(settings: ControllerSettings, pod: KubeObject): string[] | undefined {
  const namespace = pod.metadata.namespace;
  const own = settings.podLogs.get(`${namespace}/${pod.metadata.name}`);
  if (own) return own;
  const labels = pod.metadata.labels ?? {};
  const job = labels['batch.kubernetes.io/job-name'] ?? labels['job-name'];
  return (job && settings.podLogs.get(`${namespace}/job:${job}`)) || undefined;
}

/** time.RFC3339Nano: nanosecond digits with trailing zeros trimmed (a Date has milliseconds). */
export function rfc3339Nano(date: Date): string {
  const iso = date.toISOString();
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

export interface LogFormat {
  timestamps: boolean;
  /** When the container started: the timestamp of lines already written before the request. */
  startedAt: Date;
}

export function formatLines(lines: string[], format: LogFormat, at: Date = format.startedAt): string {
  const prefix = format.timestamps ? `${rfc3339Nano(at)} ` : '';
  return lines.map((line) => `${prefix}${line}\n`).join('');
}

/**
 * `GET /api/v1/namespaces/<ns>/pods/<name>/log`: what the apiserver and the kubelet answer
 * together, with the lines the simulator's settings hold (`settings.podLogs` under
 * `namespace/pod`, or `namespace/job:<job name>` for every Pod of a Job).
 * - Container choice and its errors as pkg/registry/core/pod/strategy.go LogLocation: the only
 *   container when `container` is omitted, else 400 `a container name must be specified for pod
 *   p, choose one of: [a b]` (plus `or one of the init containers: [...]`); an unknown one → 400
 *   `container x is not valid for pod p`. A Pod not yet on a node has no log location: 200, empty.
 * - Container state as the kubelet's validateContainerLogStatus (pkg/kubelet/kubelet_pods.go):
 *   `container "c" in pod "p" is waiting to start: <reason>` (ContainerCreating, or the waiting
 *   reason; image pull failures have their own wording), `previous terminated container ... not
 *   found`. The apiserver turns the kubelet's 400 into a BadRequest Status with its text
 *   (GenericHttpResponseChecker).
 * - `tailLines`, `limitBytes`, `timestamps` (RFC 3339 with nanoseconds before each line).
 * - `follow=true`: the stream stays open; lines later appended to settings.podLogs for the Pod
 *   are written as they come, and the stream ends once the container or Pod has finished
 *   (Succeeded/Failed) or the Pod is deleted.
 */
import type { ServerResponse } from 'node:http';
import { type FieldError, fieldErrorBody, fieldErrorText, StatusError, statusErrors } from '../errors.ts';
import { findByKind } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import { followPodLog } from './pod-log-follow.ts';
import {
  containerStatus,
  formatLines,
  type LogFormat,
  POD_TYPE_KEY,
  type PodLogContext,
  type PodShape,
  podLogLines,
} from './pod-log-lines.ts';

const POD = findByKind('v1', 'Pod')!;

const names = (list: { name: string }[] | undefined) => (list ?? []).map((c) => c.name);

/** LogLocation's choice of container. */
function chooseContainer(pod: PodShape, podName: string, requested: string | null): string {
  const spec = pod.spec ?? {};
  if (!requested) {
    const containers = names(spec.containers);
    if (containers.length === 1) return containers[0]!;
    if (containers.length === 0)
      throw statusErrors.badRequest(`a container name must be specified for pod ${podName}`);
    let message = `a container name must be specified for pod ${podName}, choose one of: [${containers.join(' ')}]`;
    const init = names(spec.initContainers);
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    throw statusErrors.badRequest(message);
  }
  const all = [...names(spec.containers), ...names(spec.initContainers), ...names(spec.ephemeralContainers)];
  if (!all.includes(requested))
    throw statusErrors.badRequest(`container ${requested} is not valid for pod ${podName}`);
  return requested;
}

/**
 * validateContainerLogStatus. A container the kubelet has no status for yet is one it is still
 * creating (its generated status reads waiting/ContainerCreating).
 */
function checkContainerState(pod: PodShape, podName: string, container: string, previous: boolean): void {
  const status = containerStatus(pod, container);
  const state = status?.state ?? { waiting: { reason: 'ContainerCreating' } };
  const fail = (detail: string) => {
    throw statusErrors.badRequest(`container "${container}" in pod "${podName}" ${detail}`);
  };
  if (previous) {
    if (!status?.lastState?.terminated)
      throw statusErrors.badRequest(
        `previous terminated container "${container}" in pod "${podName}" not found`,
      );
    return;
  }
  if (state.running || state.terminated || status?.lastState?.terminated) return;
  if (state.waiting) {
    const reason = state.waiting.reason ?? '';
    if (reason === 'ErrImagePull') fail("is waiting to start: image can't be pulled");
    if (reason === 'ImagePullBackOff') fail('is waiting to start: trying and failing to pull image');
    fail(`is waiting to start: ${reason}`);
  }
  fail('is waiting to start - no logs yet');
}

/** An integer query parameter; a value that is no integer cannot be decoded (400). */
function intParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value))
    throw statusErrors.badRequest(`${name}: invalid value "${raw}": not an integer`);
  return value;
}

/** ValidatePodLogOptions, reported as LogREST.Get does: 422 Invalid on kind PodLogOptions. */
function validateLogOptions(
  podName: string,
  tailLines: number | undefined,
  limitBytes: number | undefined,
): void {
  const errors: FieldError[] = [];
  if (tailLines !== undefined && tailLines < 0)
    errors.push({
      type: 'FieldValueInvalid',
      field: 'tailLines',
      value: tailLines,
      detail: 'must be greater than or equal to 0',
    });
  if (limitBytes !== undefined && limitBytes < 1)
    errors.push({
      type: 'FieldValueInvalid',
      field: 'limitBytes',
      value: limitBytes,
      detail: 'must be greater than 0',
    });
  if (errors.length === 0) return;
  const texts = errors.map(fieldErrorText);
  throw new StatusError(
    422,
    'Invalid',
    `PodLogOptions "${podName}" is invalid: ${texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`}`,
    {
      name: podName,
      kind: 'PodLogOptions',
      causes: errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
    },
  );
}

export function servePodLog(
  ctx: PodLogContext,
  namespace: string,
  name: string,
  query: URLSearchParams,
  res: ServerResponse,
): void {
  const pod = ctx.store.get(POD_TYPE_KEY, namespace, name);
  if (!pod) throw statusErrors.notFound(POD, name);
  const shape = pod as PodShape & KubeObject;
  // LogREST.Get validates the options before LogLocation picks the container.
  const tailLines = intParam(query, 'tailLines');
  const limitBytes = intParam(query, 'limitBytes');
  validateLogOptions(name, tailLines, limitBytes);
  const container = chooseContainer(shape, name, query.get('container'));
  const status = containerStatus(shape, container);
  // LogLocation: a Pod not assigned to a node has no log location yet, and answers nothing.
  if (!shape.spec?.nodeName && !status) {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end();
    return;
  }
  checkContainerState(shape, name, container, query.get('previous') === 'true');
  const started = status?.state?.running?.startedAt ?? status?.state?.terminated?.startedAt;
  const format: LogFormat = {
    timestamps: query.get('timestamps') === 'true',
    startedAt: started ? new Date(started) : new Date(),
  };
  const lines = podLogLines(ctx.settings, pod);
  const shown = tailLines === undefined ? lines : tailLines === 0 ? [] : lines.slice(-tailLines);
  let text = formatLines(shown, format);
  if (limitBytes !== undefined) text = Buffer.from(text).subarray(0, limitBytes).toString('utf8');
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  if (query.get('follow') !== 'true' || limitBytes !== undefined) {
    res.end(text);
    return;
  }
  res.write(text);
  followPodLog(ctx, pod, container, lines.length, format, res);
}

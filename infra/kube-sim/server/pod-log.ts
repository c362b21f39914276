/**
 * `GET /api/v1/namespaces/<ns>/pods/<name>/log`: what the apiserver and the kubelet answer
 * together, from the container instance's log in the node runtime (what its command printed) —
 * or, when a test planted lines for the Pod in `settings.podLogs` (`namespace/pod`, or
 * `namespace/job:<job name>` for every Pod of a Job), those lines instead.
 * - Options validated as ValidatePodLogOptions (pkg/apis/core/validation), reported as LogREST.Get
 *   does (422 Invalid on kind PodLogOptions): `tailLines` ≥ 0, `limitBytes` > 0, `sinceSeconds` > 0,
 *   at most one of `sinceTime` and `sinceSeconds`. A value that does not parse → 400.
 * - Container choice and its errors as pkg/registry/core/pod/strategy.go LogLocation: the only
 *   container when `container` is omitted, else 400 `a container name must be specified for pod
 *   p, choose one of: [a b]` (plus `or one of the init containers: [...]`); an unknown one → 400
 *   `container x is not valid for pod p`. A Pod not yet on a node has no log location: 200, empty.
 * - Which instance, as the kubelet's validateContainerLogStatus (pkg/kubelet/kubelet_pods.go):
 *   `previous` → lastState.terminated's container, else 400 `previous terminated container "c" in
 *   pod "p" not found`; otherwise the running or terminated container, else the last terminated
 *   one (a container waiting to restart), else 400 `container "c" in pod "p" is waiting to start:
 *   <reason>` (image pull failures have their own wording). The apiserver turns the kubelet's 400
 *   into a BadRequest Status with its text (GenericHttpResponseChecker).
 * - The lines as kuberuntime's ReadLogs selects them: `tailLines` (the last N lines), then
 *   `sinceTime`/`sinceSeconds` (lines written at or after), `timestamps` (each line prefixed with
 *   its RFC 3339 time with nanoseconds), `limitBytes` (the output cut after N bytes).
 * - `follow=true`: the stream stays open and new lines are written as they come, until the
 *   instance exits (pod-log-follow.ts).
 */
import type { ServerResponse } from 'node:http';
import { type FieldError, fieldErrorBody, fieldErrorText, StatusError, statusErrors } from '../errors.ts';
import { findByKind } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import { followContainerLog, followPlantedLog, LimitedWriter } from './pod-log-follow.ts';
import {
  containerStatus,
  formatLines,
  type LogFormat,
  POD_TYPE_KEY,
  type PodLogContext,
  type PodShape,
  plantedLines,
  rfc3339Nano,
} from './pod-log-lines.ts';

const POD = findByKind('v1', 'Pod')!;

const names = (list: { name: string }[] | undefined) => (list ?? []).map((c) => c.name);

/** LogLocation's choice of container (exec and attach choose the same way: streamLocation). */
export function chooseContainer(pod: PodShape, podName: string, requested: string | null): string {
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
 * validateContainerLogStatus: the containerID whose log is asked for. A container the kubelet has
 * no status for yet is one it is still creating (its generated status reads waiting/ContainerCreating).
 */
function logContainerID(pod: PodShape, podName: string, container: string, previous: boolean): string {
  const status = containerStatus(pod, container);
  const state = status?.state ?? { waiting: { reason: 'ContainerCreating' } };
  const last = status?.lastState?.terminated;
  const fail = (detail: string): never => {
    throw statusErrors.badRequest(`container "${container}" in pod "${podName}" ${detail}`);
  };
  if (previous) {
    if (!last?.containerID)
      throw statusErrors.badRequest(
        `previous terminated container "${container}" in pod "${podName}" not found`,
      );
    return last.containerID;
  }
  if (state.running) return status?.containerID ?? '';
  if (state.terminated) {
    const id = state.terminated.containerID ?? status?.containerID;
    if (id) return id;
    if (last?.containerID) return last.containerID;
    return fail('is terminated');
  }
  if (last) return last.containerID ? last.containerID : fail('is terminated');
  if (state.waiting) {
    const reason = state.waiting.reason ?? '';
    if (reason === 'ErrImagePull') fail("is waiting to start: image can't be pulled");
    if (reason === 'ImagePullBackOff') fail('is waiting to start: trying and failing to pull image');
    fail(`is waiting to start: ${reason}`);
  }
  return fail('is waiting to start - no logs yet');
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

/** A boolean query parameter as strconv.ParseBool reads it. */
function boolParam(query: URLSearchParams, name: string): boolean {
  const raw = query.get(name);
  if (raw === null || raw === '') return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(raw)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(raw)) return false;
  throw statusErrors.badRequest(
    `${name}: invalid value "${raw}": strconv.ParseBool: parsing "${raw}": invalid syntax`,
  );
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** `sinceTime`: a metav1.Time (RFC 3339); Go's time.Parse error otherwise. */
function timeParam(query: URLSearchParams, name: string): Date | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const at = new Date(raw);
  if (!RFC3339.test(raw) || Number.isNaN(at.getTime()))
    throw statusErrors.badRequest(
      `parsing time "${raw}" as "2006-01-02T15:04:05Z07:00": cannot parse "${raw}" as "2006"`,
    );
  return at;
}

interface LogOptions {
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  sinceTime?: Date;
}

/** ValidatePodLogOptions, reported as LogREST.Get does: 422 Invalid on kind PodLogOptions. */
function validateLogOptions(podName: string, options: LogOptions): void {
  const errors: FieldError[] = [];
  const { tailLines, limitBytes, sinceSeconds, sinceTime } = options;
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
  if (sinceSeconds !== undefined && sinceTime !== undefined)
    errors.push({
      type: 'FieldValueForbidden',
      field: '',
      detail: 'at most one of `sinceTime` or `sinceSeconds` may be specified',
    });
  else if (sinceSeconds !== undefined && sinceSeconds < 1)
    errors.push({
      type: 'FieldValueInvalid',
      field: 'sinceSeconds',
      value: sinceSeconds,
      detail: 'must be greater than 0',
    });
  if (errors.length === 0) return;
  // field.NewPath("") prints as an empty path: `: Forbidden: …`.
  const texts = errors.map((e) => (e.field ? fieldErrorText(e) : `: ${fieldErrorBody(e)}`));
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
  const options: LogOptions = {};
  const tailLines = intParam(query, 'tailLines');
  const limitBytes = intParam(query, 'limitBytes');
  const sinceSeconds = intParam(query, 'sinceSeconds');
  const sinceTime = timeParam(query, 'sinceTime');
  if (tailLines !== undefined) options.tailLines = tailLines;
  if (limitBytes !== undefined) options.limitBytes = limitBytes;
  if (sinceSeconds !== undefined) options.sinceSeconds = sinceSeconds;
  if (sinceTime !== undefined) options.sinceTime = sinceTime;
  validateLogOptions(name, options);
  const follow = boolParam(query, 'follow');
  const previous = boolParam(query, 'previous');
  const timestamps = boolParam(query, 'timestamps');
  const container = chooseContainer(shape, name, query.get('container'));
  const status = containerStatus(shape, container);
  // LogLocation: a Pod not assigned to a node has no log location yet, and answers nothing.
  if (!shape.spec?.nodeName && !status) {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end();
    return;
  }
  const containerID = logContainerID(shape, name, container, previous);
  const since =
    sinceTime ?? (sinceSeconds !== undefined ? new Date(Date.now() - sinceSeconds * 1000) : undefined);
  const tail = <T>(lines: readonly T[]): readonly T[] =>
    tailLines === undefined ? lines : tailLines === 0 ? [] : lines.slice(-tailLines);

  const planted = plantedLines(ctx.settings, pod);
  if (planted) {
    const started = status?.state?.running?.startedAt ?? status?.state?.terminated?.startedAt;
    const format: LogFormat = { timestamps, startedAt: started ? new Date(started) : new Date() };
    const shown = since && format.startedAt < since ? [] : tail(planted);
    let text = formatLines([...shown], format);
    if (limitBytes !== undefined) text = Buffer.from(text).subarray(0, limitBytes).toString('utf8');
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    if (!follow || limitBytes !== undefined) {
      res.end(text);
      return;
    }
    res.write(text);
    followPlantedLog(ctx, pod, container, planted.length, format, res);
    return;
  }

  const log = containerID ? ctx.runtime?.log(containerID) : undefined;
  const lines = tail(log?.lines() ?? []).filter((l) => !since || l.at >= since);
  const text = lines.map((l) => `${timestamps ? `${rfc3339Nano(l.at)} ` : ''}${l.text}\n`).join('');
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  const out = new LimitedWriter(res, limitBytes);
  out.write(text);
  if (!follow || !log || log.closed) {
    out.end();
    return;
  }
  // The kubelet writes zero bytes before it waits for the container, so the client sees the answer.
  res.flushHeaders();
  if (!out.ended) followContainerLog(log, timestamps, out, res);
}

/**
 * A container's environment and command line as the kubelet makes them when it starts the
 * container (kubelet_pods.go makeEnvironmentVariables, ExpandContainerCommandAndArgs):
 * - service variables first (envvars.FromServices: `KUBERNETES_SERVICE_HOST`, `<NAME>_SERVICE_PORT`,
 *   `<NAME>_PORT_443_TCP_ADDR`, …) for the `kubernetes` Service and, unless `enableServiceLinks:
 *   false`, the Services of the Pod's namespace;
 * - then `envFrom` (ConfigMap data, Secret data decoded, each key with the source's prefix; keys
 *   containing `=` are skipped), then `env` (a `value` with `$(VAR)` references to what came before
 *   expanded; `valueFrom` configMapKeyRef/secretKeyRef/fieldRef), later entries overriding earlier;
 * - the first missing non-optional Secret, ConfigMap or key is the container's
 *   CreateContainerConfigError, with the kubelet's message (pod-start-checks.ts);
 * - what the runtime adds (containerd): PATH (the image's; the simulated images have the usual
 *   one), HOSTNAME (the Pod's hostname), TERM=xterm with a tty, HOME=/root when unset.
 * `command` and `args` get the same `$(VAR)` expansion (third_party/forked/golang/expansion):
 * `$(NAME)` is the variable's value, or stays as written when there is none; `$$` is `$`.
 */
import type { KubeObject } from '../types.ts';
import type { ObjectLookup } from './pod-start-checks.ts';
import type { Container, Pod } from './workload-types.ts';

/** The environment variables a process starts with, in order. */
export type ContainerEnv = Map<string, string>;

export type ResolvedEnv = { env: ContainerEnv; error?: undefined } | { error: string; env?: undefined };

export interface EnvLookup extends ObjectLookup {
  /** Services of a namespace (for the service variables); none when absent. */
  services?(namespace: string): KubeObject[];
}

/** The image's PATH (Debian's and busybox's default). */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const dataOf = (object: KubeObject): Record<string, string> =>
  (object.data as Record<string, string> | undefined) ?? {};

const decode = (base64: string): string => Buffer.from(base64, 'base64').toString('utf8');

/** expansion.Expand with MappingFuncFor(maps…): `$(NAME)`, `$$`; unknown names stay as written. */
export function expandReferences(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const rest = input.slice(cursor + 1);
    let advance = 1;
    if (rest[0] === '$') out += '$';
    else if (rest[0] === '(') {
      const close = rest.indexOf(')');
      if (close < 0) out += '$(';
      else {
        const name = rest.slice(1, close);
        out += lookup(name) ?? `$(${name})`;
        advance = close + 1;
      }
    } else out += `$${rest[0]}`;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

const envName = (name: string) => name.replace(/-/g, '_').toUpperCase();

interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
}

/** envvars.FromServices for one Service. */
function serviceVariables(service: KubeObject, into: ContainerEnv): void {
  const spec = (service.spec ?? {}) as { clusterIP?: string; ports?: ServicePort[] };
  const ip = spec.clusterIP;
  const ports = spec.ports ?? [];
  if (!ip || ip === 'None' || ports.length === 0) return;
  const prefix = envName(service.metadata.name!);
  into.set(`${prefix}_SERVICE_HOST`, ip);
  into.set(`${prefix}_SERVICE_PORT`, String(ports[0]!.port));
  for (const p of ports) if (p.name) into.set(`${prefix}_SERVICE_PORT_${envName(p.name)}`, String(p.port));
  ports.forEach((p, i) => {
    const protocol = (p.protocol ?? 'TCP').toLowerCase();
    const hostPort = ip.includes(':') ? `[${ip}]:${p.port}` : `${ip}:${p.port}`;
    if (i === 0) into.set(`${prefix}_PORT`, `${protocol}://${hostPort}`);
    const portPrefix = `${prefix}_PORT_${p.port}_${protocol.toUpperCase()}`;
    into.set(portPrefix, `${protocol}://${hostPort}`);
    into.set(`${portPrefix}_PROTO`, protocol);
    into.set(`${portPrefix}_PORT`, String(p.port));
    into.set(`${portPrefix}_ADDR`, ip);
  });
}

/** getServiceEnvVarMap: the `kubernetes` Service always, the namespace's with enableServiceLinks. */
function serviceEnv(pod: Pod, lookup: EnvLookup): ContainerEnv {
  const env: ContainerEnv = new Map();
  if (!lookup.services) return env;
  const ns = pod.metadata.namespace!;
  const chosen = new Map<string, KubeObject>();
  const master = lookup.services('default').find((s) => s.metadata.name === 'kubernetes');
  if (master) chosen.set('kubernetes', master);
  if (pod.spec.enableServiceLinks !== false)
    for (const s of lookup.services(ns))
      if (!(ns === 'default' && s.metadata.name === 'kubernetes')) chosen.set(s.metadata.name!, s);
  for (const s of [...chosen.values()].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1)))
    serviceVariables(s, env);
  return env;
}

/** The downward API's fieldRef paths the kubelet resolves itself (podFieldSelectorRuntimeValue). */
function fieldValue(pod: Pod, path: string, podIP: string | undefined): string {
  const status = pod.status ?? {};
  const labelMatch = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(path);
  if (labelMatch) {
    const map = (pod.metadata[labelMatch[1] as 'labels' | 'annotations'] ?? {}) as Record<string, string>;
    return map[labelMatch[2]!] ?? '';
  }
  switch (path) {
    case 'metadata.name':
      return pod.metadata.name ?? '';
    case 'metadata.namespace':
      return pod.metadata.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata.uid ?? '';
    case 'spec.nodeName':
      return pod.spec.nodeName ?? '';
    case 'spec.serviceAccountName':
      return (pod.spec.serviceAccountName as string | undefined) ?? 'default';
    case 'status.hostIP':
    case 'status.hostIPs':
      return status.hostIP ?? '';
    case 'status.podIP':
    case 'status.podIPs':
      return podIP ?? status.podIP ?? '';
    default:
      return '';
  }
}

/**
 * makeEnvironmentVariables for one container: its variables (without what the runtime adds), or
 * the first missing reference as CreateContainerConfigError's message.
 */
export function resolveContainerEnv(
  pod: Pod,
  container: Container,
  lookup: EnvLookup,
  podIP?: string,
): ResolvedEnv {
  const ns = pod.metadata.namespace!;
  const services = serviceEnv(pod, lookup);
  const env: ContainerEnv = new Map();
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    let data: Record<string, string>;
    if (from.configMapRef?.name !== undefined) {
      const cm = lookup.configMap(ns, from.configMapRef.name);
      if (!cm) {
        if (from.configMapRef.optional) continue;
        return { error: `configmap "${from.configMapRef.name}" not found` };
      }
      data = dataOf(cm);
    } else if (from.secretRef?.name !== undefined) {
      const secret = lookup.secret(ns, from.secretRef.name);
      if (!secret) {
        if (from.secretRef.optional) continue;
        return { error: `secret "${from.secretRef.name}" not found` };
      }
      data = Object.fromEntries(Object.entries(dataOf(secret)).map(([k, v]) => [k, decode(v)]));
    } else continue;
    for (const key of Object.keys(data).sort())
      if (!`${prefix}${key}`.includes('=')) env.set(`${prefix}${key}`, data[key]!);
  }
  const known = (name: string) => env.get(name) ?? services.get(name);
  for (const e of container.env ?? []) {
    const cmRef = e.valueFrom?.configMapKeyRef;
    const secretRef = e.valueFrom?.secretKeyRef;
    const fieldRef = e.valueFrom?.fieldRef as { fieldPath?: string } | undefined;
    if (cmRef?.name !== undefined) {
      const cm = lookup.configMap(ns, cmRef.name);
      if (!cm) {
        if (cmRef.optional) continue;
        return { error: `configmap "${cmRef.name}" not found` };
      }
      const value = dataOf(cm)[cmRef.key ?? ''];
      if (value === undefined) {
        if (cmRef.optional) continue;
        return { error: `couldn't find key ${cmRef.key} in ConfigMap ${ns}/${cmRef.name}` };
      }
      env.set(e.name, value);
    } else if (secretRef?.name !== undefined) {
      const secret = lookup.secret(ns, secretRef.name);
      if (!secret) {
        if (secretRef.optional) continue;
        return { error: `secret "${secretRef.name}" not found` };
      }
      const value = dataOf(secret)[secretRef.key ?? ''];
      if (value === undefined) {
        if (secretRef.optional) continue;
        return { error: `couldn't find key ${secretRef.key} in Secret ${ns}/${secretRef.name}` };
      }
      env.set(e.name, decode(value));
    } else if (fieldRef?.fieldPath) env.set(e.name, fieldValue(pod, fieldRef.fieldPath, podIP));
    else if (e.valueFrom) env.set(e.name, '');
    else env.set(e.name, expandReferences(e.value ?? '', known));
  }
  for (const [k, v] of services) if (!env.has(k)) env.set(k, v);
  return { env };
}

/** What the process sees: the runtime's PATH and HOSTNAME, the kubelet's variables, TERM, HOME. */
export function processEnv(pod: Pod, container: Container, kubeletEnv: ContainerEnv): ContainerEnv {
  const env: ContainerEnv = new Map([
    ['PATH', DEFAULT_PATH],
    ['HOSTNAME', (pod.spec.hostname as string | undefined) ?? pod.metadata.name ?? ''],
  ]);
  for (const [k, v] of kubeletEnv) env.set(k, v);
  if (container.tty === true && !env.has('TERM')) env.set('TERM', 'xterm');
  if (!env.has('HOME')) env.set('HOME', '/root');
  return env;
}

/**
 * The container's command line: `command` replaces the image's ENTRYPOINT and `args` its CMD, with
 * `$(VAR)` expanded. kube-sim's images have no ENTRYPOINT, so `args` alone are the command line;
 * neither (the image's CMD) is an empty argv: a server kube-sim cannot run.
 */
export function containerArgv(container: Container, env: ContainerEnv): string[] {
  const command = (container.command as string[] | undefined) ?? [];
  const args = (container.args as string[] | undefined) ?? [];
  const lookup = (name: string) => env.get(name);
  return [...command, ...args].map((word) => expandReferences(word, lookup));
}

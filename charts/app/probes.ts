/** Health checks (app.json `healthchecks`) as container probes. */

export interface ProbeValues {
  type: 'http' | 'tcp' | 'exec';
  path?: string | undefined;
  port?: number | undefined;
  command?: string[] | undefined;
  initialDelaySeconds?: number | undefined;
  periodSeconds?: number | undefined;
  timeoutSeconds?: number | undefined;
  failureThreshold?: number | undefined;
}

export interface HealthcheckValues {
  startup?: ProbeValues | undefined;
  readiness?: ProbeValues | undefined;
  liveness?: ProbeValues | undefined;
}

const TIMINGS = ['initialDelaySeconds', 'periodSeconds', 'timeoutSeconds', 'failureThreshold'] as const;

/** One probe; `defaultPort` (the app's PORT) when the check names no port. */
export function probe(values: ProbeValues, defaultPort: number): Record<string, unknown> {
  const port = values.port ?? defaultPort;
  const handler: Record<string, unknown> =
    values.type === 'http'
      ? { httpGet: { path: values.path ?? '/', port } }
      : values.type === 'tcp'
        ? { tcpSocket: { port } }
        : { exec: { command: [...(values.command ?? [])] } };
  for (const timing of TIMINGS) {
    // 0 is left out: the API server drops zero-valued timings, and a field it drops reads as drift.
    const value = values[timing];
    if (value !== undefined && value !== 0) handler[timing] = value;
  }
  return handler;
}

/** startupProbe, readinessProbe and livenessProbe fields of a container, those configured only. */
export function containerProbes(
  checks: HealthcheckValues | undefined,
  defaultPort: number,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (checks?.startup) fields.startupProbe = probe(checks.startup, defaultPort);
  if (checks?.readiness) fields.readinessProbe = probe(checks.readiness, defaultPort);
  if (checks?.liveness) fields.livenessProbe = probe(checks.liveness, defaultPort);
  return fields;
}

/**
 * Before any write, an app may only write objects that are its own, and route only domains no
 * other app routes (docs/apps.md, "Isolation"). Object names are unique across apps by
 * construction (charts/names.ts); this check is what holds when a name meets an object the
 * scheme does not know: one an older version of longshore wrote for another app, or one a
 * person made by hand. Refused:
 * - an object that is live with another app's `app.kubernetes.io/part-of` label;
 * - an object new to its release that is live without any longshore field manager (server-side
 *   apply with force would silently take over what someone else made);
 * - a domain that a live Ingress of another app routes (longshore's Ingresses in every namespace,
 *   from one cluster-wide informer: the routing that is in effect, not what an app record says).
 *   A rename names the app it takes over from (`takeDomainsFrom`): that app's domains move with it.
 * Reads come from the engine's informer caches for objects the release already applied, so a
 * redeploy of an unchanged app costs no request; only objects new to a release are read from the
 * API server.
 */
import type * as k8s from '@kubernetes/client-node';
import { LABEL_PART_OF } from '../../../charts/index.ts';
import { PermanentError } from '../../core/errors.ts';
import type { ReleaseEngine } from '../../releases/index.ts';
import type { ReleaseObject } from '../../storage/types.ts';

/** Objects (or domains) that belong to someone else: the job fails at once, nothing written. */
export class OwnershipError extends PermanentError {
  constructor(readonly conflicts: string[]) {
    super(`refused before any write: ${conflicts.join('; ')}`);
  }
}

export interface ReleaseToWrite {
  release: string;
  objects: readonly ReleaseObject[];
}

export async function checkOwnership(
  engine: ReleaseEngine,
  app: string,
  releases: readonly ReleaseToWrite[],
  domains: readonly string[],
  signal?: AbortSignal,
  takeDomainsFrom?: string,
): Promise<void> {
  const conflicts: string[] = [];
  for (const { release, objects } of releases) {
    const known = knownKeys(engine, release);
    for (const { ref, live } of await engine.observe(release, objects, signal)) {
      if (!live) continue;
      const name = `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
      const owner = live.metadata?.labels?.[LABEL_PART_OF];
      if (owner !== undefined && owner !== app) {
        conflicts.push(`${name} belongs to app ${owner}`);
        continue;
      }
      if (known.has(`${ref.kind}/${ref.namespace ?? ''}/${ref.name}`)) continue;
      const managers = [...new Set((live.metadata?.managedFields ?? []).map((m) => m.manager ?? '?'))];
      if (!managers.includes(engine.fieldManager)) {
        conflicts.push(
          `${name} already exists and is managed by ${managers.join(', ') || 'no field manager'}, not by longshore (delete it or choose another app name)`,
        );
      }
    }
  }
  if (domains.length > 0)
    conflicts.push(...(await domainConflicts(engine, app, domains, signal, takeDomainsFrom)));
  if (conflicts.length > 0) throw new OwnershipError(conflicts);
}

/** Objects of the release's history (kind/namespace/name): longshore's own, whatever their managers say now. */
function knownKeys(engine: ReleaseEngine, release: string): Set<string> {
  const keys = new Set<string>();
  for (const revision of engine.history(release))
    for (const o of revision.objects) keys.add(`${o.kind}/${o.namespace ?? ''}/${o.name}`);
  return keys;
}

async function domainConflicts(
  engine: ReleaseEngine,
  app: string,
  domains: readonly string[],
  signal: AbortSignal | undefined,
  takeDomainsFrom: string | undefined,
): Promise<string[]> {
  const routed = new Map<string, string>();
  for (const ingress of (await engine.managedEverywhere(
    'networking.k8s.io/v1',
    'Ingress',
    signal,
  )) as k8s.V1Ingress[]) {
    const owner = ingress.metadata?.labels?.[LABEL_PART_OF];
    if (
      owner === undefined ||
      owner === app ||
      owner === takeDomainsFrom ||
      ingress.metadata?.deletionTimestamp
    )
      continue;
    const where = `Ingress ${ingress.metadata?.namespace}/${ingress.metadata?.name}`;
    for (const rule of ingress.spec?.rules ?? [])
      if (rule.host) routed.set(rule.host, `app ${owner} (${where})`);
  }
  return domains.filter((d) => routed.has(d)).map((d) => `domain ${d} belongs to ${routed.get(d)}`);
}

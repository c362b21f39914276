/**
 * Which protobuf message a request body of a given apiVersion and kind is: the served kinds
 * (resources.ts), the bodies of their subresources (autoscaling/v1 Scale), and DeleteOptions.
 * Message names are upstream's: package `k8s.io.api.<group>.<version>` of
 * k8s.io/api/<group>/<version>/generated.proto.
 */
import { groupVersion, RESOURCE_TYPES } from '../resources.ts';

/** API group → protobuf package prefix (k8s.io/api/<dir>/<version>/generated.proto). */
const GROUP_PACKAGES: Record<string, string> = {
  '': 'k8s.io.api.core',
  apps: 'k8s.io.api.apps',
  autoscaling: 'k8s.io.api.autoscaling',
  batch: 'k8s.io.api.batch',
  policy: 'k8s.io.api.policy',
  'coordination.k8s.io': 'k8s.io.api.coordination',
  'discovery.k8s.io': 'k8s.io.api.discovery',
  'events.k8s.io': 'k8s.io.api.events',
  'networking.k8s.io': 'k8s.io.api.networking',
  'storage.k8s.io': 'k8s.io.api.storage',
  'rbac.authorization.k8s.io': 'k8s.io.api.rbac',
  'authentication.k8s.io': 'k8s.io.api.authentication',
  'authorization.k8s.io': 'k8s.io.api.authorization',
};

export const DELETE_OPTIONS = 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions';

function messageName(group: string, version: string, kind: string): string | undefined {
  const pkg = GROUP_PACKAGES[group];
  return pkg ? `${pkg}.${version}.${kind}` : undefined;
}

/** `apiVersion kind` → message, for every body kind kube-sim decodes. */
const MESSAGES = new Map<string, string>();
for (const type of RESOURCE_TYPES) {
  const main = messageName(type.group, type.version, type.kind);
  if (main) MESSAGES.set(`${groupVersion(type)} ${type.kind}`, main);
  for (const sub of type.subresources) {
    if (!sub.kind || !sub.version || sub.kind === type.kind) continue;
    const body = messageName(sub.group ?? '', sub.version, sub.kind);
    if (body)
      MESSAGES.set(`${groupVersion({ group: sub.group ?? '', version: sub.version })} ${sub.kind}`, body);
  }
}

/** Served group versions: client-go encodes DeleteOptions in the group version of the client. */
const GROUP_VERSIONS = new Set(['meta.k8s.io/v1', ...RESOURCE_TYPES.map(groupVersion)]);

export function messageFor(apiVersion: string, kind: string): string | undefined {
  if (kind === 'DeleteOptions' && GROUP_VERSIONS.has(apiVersion)) return DELETE_OPTIONS;
  return MESSAGES.get(`${apiVersion} ${kind}`);
}

/** `v1 Secret`, `apps/v1 Deployment`, …: for the 415 that names what is decoded. */
export function decodedKinds(): string[] {
  return [...MESSAGES.keys(), 'DeleteOptions (meta.k8s.io/v1 or any served group version)'];
}

/** Every message a body can be: the roots of the schema (generate-schema.ts). */
export const ROOT_MESSAGES: string[] = [...new Set([...MESSAGES.values(), DELETE_OPTIONS])];

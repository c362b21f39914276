/** The `scale` subresource (autoscaling/v1 Scale) of Deployments and ReplicaSets. */
import { statusErrors } from '../errors.ts';
import type { ResourceType } from '../resources.ts';
import { clone, isPlainObject, type KubeObject } from '../types.ts';

interface WithReplicas {
  replicas?: number;
  selector?: {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key: string; operator: string; values?: string[] }[];
  };
}

/** `app=web,tier in (a,b)`: the selector as a string, as Scale.status.selector carries it. */
function selectorString(selector: WithReplicas['selector']): string {
  const terms = Object.entries(selector?.matchLabels ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`);
  for (const e of selector?.matchExpressions ?? []) {
    if (e.operator === 'In') terms.push(`${e.key} in (${(e.values ?? []).join(',')})`);
    else if (e.operator === 'NotIn') terms.push(`${e.key} notin (${(e.values ?? []).join(',')})`);
    else if (e.operator === 'Exists') terms.push(e.key);
    else if (e.operator === 'DoesNotExist') terms.push(`!${e.key}`);
  }
  return terms.join(',');
}

export function toScale(_type: ResourceType, object: KubeObject): KubeObject {
  const spec = (object.spec ?? {}) as WithReplicas;
  const status = (object.status ?? {}) as { replicas?: number };
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: spec.replicas ?? 0 },
    status: { replicas: status.replicas ?? 0, selector: selectorString(spec.selector) },
  };
}

/** The parent object with the replicas a Scale asks for (its resourceVersion is a precondition). */
export function fromScale(type: ResourceType, old: KubeObject, scale: KubeObject): KubeObject {
  const replicas = isPlainObject(scale.spec) ? scale.spec.replicas : undefined;
  if (
    replicas !== undefined &&
    (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)
  ) {
    throw statusErrors.invalid(
      { ...type, kind: 'Scale', group: 'autoscaling' } as ResourceType,
      old.metadata.name!,
      [
        {
          type: 'FieldValueInvalid',
          field: 'spec.replicas',
          value: replicas,
          detail: 'must be greater than or equal to 0',
        },
      ],
    );
  }
  const next = clone(old);
  next.spec = { ...(next.spec as object), replicas: replicas ?? 0 };
  const rv = isPlainObject(scale.metadata) ? scale.metadata.resourceVersion : undefined;
  if (typeof rv === 'string' && rv) next.metadata.resourceVersion = rv;
  else delete next.metadata.resourceVersion;
  return next;
}

/**
 * A process's rollout and placement: app.json `formation.<type>.max_parallel` and the placement
 * profile attached with `ps:set APP TYPE profile NAME`.
 *
 * max_parallel N becomes `strategy.rollingUpdate` `{ maxSurge: N, maxUnavailable: 0 }`: up to N
 * new pods start at once, and an old pod goes only when a new one is ready. That is what Dokku
 * means by it ("number of instances to deploy in parallel at a given time": its docker-local
 * scheduler starts that many new containers, checks them, then retires old ones). Dokku's
 * Kubernetes scheduler (plugins/scheduler-k3s/templates/chart/deployment.yaml) renders
 * `strategy: {}` and ignores the key, leaving Kubernetes' 25 % / 25 % default. Without
 * max_parallel no strategy is rendered and that default applies here too.
 */
import { sortRecord } from '../records.ts';
import type { ProcessValues } from './values.ts';

export function rolloutStrategy(spec: ProcessValues): Record<string, unknown> {
  if (spec.maxParallel === undefined) return {};
  return {
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: spec.maxParallel, maxUnavailable: 0 } },
  };
}

/** nodeSelector and tolerations of the process's pods (none without a profile), in a fixed order. */
export function placementFields(spec: ProcessValues | undefined): Record<string, unknown> {
  const placement = spec?.placement;
  if (!placement) return {};
  const fields: Record<string, unknown> = {};
  if (Object.keys(placement.nodeSelector).length > 0)
    fields.nodeSelector = sortRecord(placement.nodeSelector);
  if (placement.tolerations.length > 0) {
    fields.tolerations = [...placement.tolerations]
      .map((t) => ({
        key: t.key,
        operator: t.operator,
        ...(t.value !== undefined ? { value: t.value } : {}),
        effect: t.effect,
      }))
      .sort((a, b) => {
        const ka = `${a.key}\u0000${a.effect}\u0000${a.value ?? ''}`;
        const kb = `${b.key}\u0000${b.effect}\u0000${b.value ?? ''}`;
        return ka < kb ? -1 : ka > kb ? 1 : 0;
      });
  }
  return fields;
}

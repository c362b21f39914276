/**
 * The DefaultIngressClass admission plugin (plugin/pkg/admission/network/defaultingressclass):
 * an Ingress created with neither `spec.ingressClassName` nor the legacy
 * `kubernetes.io/ingress.class` annotation gets the IngressClass annotated
 * `ingressclass.kubernetes.io/is-default-class: "true"`; with several, the newest (ties by name),
 * as upstream chooses since it stopped refusing more than one. Creates only: updates are left alone.
 */
import type { KubeObject } from '../types.ts';

export const IS_DEFAULT_CLASS = 'ingressclass.kubernetes.io/is-default-class';
const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

export function admitIngressClass(ingress: KubeObject, ingressClasses: KubeObject[]): void {
  const spec = (ingress.spec ?? {}) as { ingressClassName?: unknown };
  if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) return;
  if (ingress.metadata.annotations?.[LEGACY_CLASS_ANNOTATION] !== undefined) return;
  const defaults = ingressClasses
    .filter((c) => c.metadata.annotations?.[IS_DEFAULT_CLASS] === 'true')
    .sort((a, b) => {
      const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
      const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
      return ta === tb ? (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '') : tb - ta;
    });
  const chosen = defaults[0];
  if (chosen) ingress.spec = { ...spec, ingressClassName: chosen.metadata.name };
}

/**
 * Namespace defaults: the kubernetes.io/metadata.name label (SetDefaults_Namespace, which also
 * overwrites a different value) and, from the strategy, the `kubernetes` finalizer and the
 * Active phase on create; updates keep the stored finalizers and status.
 */
import { clone, type KubeObject } from '../types.ts';
import { type DefaultingContext, ensureObject, type JsonObject } from './context.ts';

export function defaultNamespace(ns: KubeObject, ctx: DefaultingContext): void {
  const name = ns.metadata.name;
  if (name) ns.metadata.labels = { ...(ns.metadata.labels ?? {}), 'kubernetes.io/metadata.name': name };
  const spec = ensureObject(ns, 'spec');
  if (ctx.old) {
    const oldSpec = ctx.old.spec as JsonObject | undefined;
    if (oldSpec?.finalizers !== undefined) spec.finalizers = clone(oldSpec.finalizers);
    else delete spec.finalizers;
    if (ctx.old.status !== undefined && ns.status === undefined) ns.status = clone(ctx.old.status);
    return;
  }
  const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
  if (!finalizers.includes('kubernetes')) spec.finalizers = [...finalizers, 'kubernetes'];
  ns.status = { phase: 'Active' };
}

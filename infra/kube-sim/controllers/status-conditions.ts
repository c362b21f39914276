/**
 * metav1.Condition / HPA condition upkeep shared by the PDB and HPA controllers
 * (apimachinery meta.SetStatusCondition): a condition keeps its lastTransitionTime while its
 * status stays the same.
 */
export interface StatusCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export function setCondition(
  existing: StatusCondition[] | undefined,
  next: StatusCondition,
  now: Date,
): StatusCondition[] {
  const list = [...(existing ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const old = i >= 0 ? list[i] : undefined;
  const lastTransitionTime =
    old && old.status === next.status && old.lastTransitionTime
      ? old.lastTransitionTime
      : `${now.toISOString().slice(0, 19)}Z`;
  const merged = { ...next, lastTransitionTime };
  if (i >= 0) list[i] = merged;
  else list.push(merged);
  return list;
}

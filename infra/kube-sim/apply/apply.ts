/**
 * Server-side apply and managedFields tracking, as kube-apiserver does them: the
 * structured-merge-diff updater (SMD v6 `merge/update.go`, `typed/merge.go`, `typed/remove.go`)
 * wrapped in apimachinery's field-manager chain (`util/managedfields/internal`: versioncheck,
 * lastappliedupdater, lastappliedmanager, skipnonapplied, capmanagers, buildmanagerinfo,
 * managedfieldsupdater, stripmeta, structuredmerge). Pure functions: inputs are never mutated.
 *
 * Where kube-sim departs from upstream:
 * - there is one served version per kind, so version conversion is the identity;
 * - objects are JSON, not Go structs: the nulls a merge or removal leaves (which a Go struct
 *   would turn into absent fields) are dropped from the result, and "zero objects" (what
 *   `scheme.New(kind)` holds before a create) are approximated per kind below.
 */
import { StatusError } from '../errors.ts';
import type { ListType } from '../schema/list-types.ts';
import { clone, isPlainObject, type KubeObject } from '../types.ts';
import {
  atomAt,
  type Comparison,
  compare,
  compareStrings,
  FieldSet,
  field,
  goJson,
  listItemElement,
  type PathElement,
  pathElementString,
  pathElementsEqual,
  SmdError,
  serializePathElement,
  toFieldSet,
  validate,
  valuesEqual,
  zipKeys,
} from './fieldset.ts';
import {
  type Conflict,
  ConflictsError,
  conflictStatusError,
  copyManaged,
  decodeManagedFields,
  emptyManaged,
  isResetManagedFields,
  type Managed,
  managerIdentifier,
  STRIPPED_FIELDS,
  type VersionedSet,
  withManagedFields,
} from './managed-fields.ts';

// ---------------------------------------------------------------------------------------------
// Merge and removal (typed/merge.go with ruleKeepRHS, typed/remove.go).

/** `TypedValue.Merge`: `rhs` (the applied configuration) over `lhs`; undefined means no value. */
function merge(kind: string, l: unknown, r: unknown, spath: string[]): unknown {
  const atom = atomAt(kind, spath, l, r);
  const keepRhs = r !== undefined ? r : l;
  if (atom.type === 'scalar') return keepRhs;
  if (atom.type === 'list') {
    const ll = Array.isArray(l) ? l : [];
    const rl = Array.isArray(r) ? r : [];
    // Both empty or null: a leaf, which keeps the empty/null distinction.
    if (atom.list.type === 'atomic' || (ll.length === 0 && rl.length === 0)) return keepRhs;
    return mergeItems(kind, atom.list, ll, rl, [...spath, '[]']);
  }
  const lm = isPlainObject(l) ? l : {};
  const rm = isPlainObject(r) ? r : {};
  if (atom.atomic || (Object.keys(lm).length === 0 && Object.keys(rm).length === 0)) return keepRhs;
  const out: Record<string, unknown> = {};
  for (const k of zipKeys(lm, rm)) {
    const v = merge(kind, lm[k], rm[k], [...spath, k]);
    if (v !== undefined) out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Items of a list, keyed; duplicates are allowed on the live side only (its copies merge as null). */
function indexItems(list: ListType, items: unknown[], allowDuplicates: boolean) {
  const pes: PathElement[] = [];
  const observed = new Map<string, unknown>();
  items.forEach((item, i) => {
    let pe: PathElement;
    try {
      pe = listItemElement(list, item);
    } catch (err) {
      throw new SmdError([{ path: '', message: `element ${i}: ${(err as Error).message}` }]);
    }
    const key = serializePathElement(pe);
    if (observed.has(key)) {
      if (!allowDuplicates)
        throw new SmdError([{ path: '', message: `duplicate entries for key ${pathElementString(pe)}` }]);
      observed.set(key, null);
    } else observed.set(key, item);
    pes.push(pe);
  });
  return { pes, observed };
}

/**
 * `visitListItems` of the merging walker: live items keep their order, items the configuration
 * adds are inserted where the configuration's order puts them relative to the shared ones.
 */
function mergeItems(kind: string, list: ListType, l: unknown[], r: unknown[], spath: string[]): unknown {
  const rhs = indexItems(list, r, false);
  const lhs = indexItems(list, l, true);
  const k = serializePathElement;
  const sharedOrder = rhs.pes.filter((pe) => lhs.observed.has(k(pe)));
  let nextShared = sharedOrder.shift();
  const mergedRhs = new Set<string>();
  const out: unknown[] = [];
  const push = (v: unknown) => v !== undefined && out.push(v);
  let li = 0;
  let ri = 0;
  while (li < lhs.pes.length || ri < rhs.pes.length) {
    if (li < lhs.pes.length && ri < rhs.pes.length) {
      const pe = lhs.pes[li]!;
      if (pathElementsEqual(pe, rhs.pes[ri]!)) {
        mergedRhs.add(k(pe));
        push(merge(kind, lhs.observed.get(k(pe)), rhs.observed.get(k(pe)), spath));
        li++;
        ri++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (rhs.observed.has(k(pe)) && nextShared !== undefined && !pathElementsEqual(nextShared, pe)) {
        li++; // a shared item, but not the one due in this round
        continue;
      }
    }
    if (li < lhs.pes.length) {
      const pe = lhs.pes[li]!;
      if (!rhs.observed.has(k(pe))) {
        push(merge(kind, l[li], undefined, spath));
        li++;
        continue;
      }
      if (mergedRhs.has(k(pe))) li++; // already merged with its configuration item
    }
    if (ri < rhs.pes.length) {
      const pe = rhs.pes[ri]!;
      mergedRhs.add(k(pe));
      push(merge(kind, lhs.observed.get(k(pe)), rhs.observed.get(k(pe)), spath));
      ri++;
      if (nextShared !== undefined && pathElementsEqual(nextShared, pe)) nextShared = sharedOrder.shift();
    }
  }
  return out.length > 0 ? out : undefined;
}

/**
 * `TypedValue.RemoveItems`: drops every member of `toRemove` with everything under it. A map or
 * list emptied this way becomes null, as upstream's removing walker leaves it.
 */
function removeItems(kind: string, value: unknown, toRemove: FieldSet, spath: string[] = []): unknown {
  const atom = atomAt(kind, spath, value);
  if (atom.type === 'scalar') return value;
  if (atom.type === 'list') {
    if (!Array.isArray(value) || value.length === 0 || atom.list.type === 'atomic') return null;
    const items: unknown[] = [];
    for (const item of value) {
      const pe = listItemElement(atom.list, item);
      if (toRemove.hasMember(pe)) continue;
      const subset = toRemove.withPrefix(pe);
      items.push(subset.isEmpty() ? item : removeItems(kind, item, subset, [...spath, '[]']));
    }
    return items.length > 0 ? items : null;
  }
  if (!isPlainObject(value) || Object.keys(value).length === 0 || atom.atomic) return null;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const pe = field(k);
    if (toRemove.hasMember(pe)) continue;
    const subset = toRemove.withPrefix(pe);
    out[k] = subset.isEmpty() ? v : removeItems(kind, v, subset, [...spath, k]);
  }
  return Object.keys(out).length > 0 ? out : null;
}

// ---------------------------------------------------------------------------------------------
// The updater (merge/update.go). A kind is served in one version, but one storage may be served
// in two shapes (events.k8s.io/v1 and core/v1 Events): managers of the other shape are compared
// in theirs, through `convert`, as upstream's Updater converts to each manager's version.

/** An object of the request's type as another API version shows it; undefined when none does. */
export type VersionConverter = (object: unknown, apiVersion: string) => unknown;

interface Scope {
  kind: string;
  /** The request's group/version: recorded in Update entries. */
  apiVersion: string;
  convert?: VersionConverter;
  subresource?: string;
  now: string;
  /** Fields the strategy resets for this endpoint (`GetResetFields`): never owned, never conflict. */
  reset: FieldSet;
}

type Managers = Map<string, VersionedSet>;

function filterComparison(c: Comparison, reset: FieldSet): Comparison {
  if (reset.isEmpty()) return c;
  return {
    removed: c.removed.recursiveDifference(reset),
    modified: c.modified.recursiveDifference(reset),
    added: c.added.recursiveDifference(reset),
  };
}

function withSet(vs: VersionedSet, set: FieldSet): VersionedSet {
  return { ...vs, set };
}

/**
 * `Updater.update`: every manager but `workflow` loses what the change removed; what it changed
 * or added of theirs is a conflict, reported unless `force`, taken from them otherwise.
 */
function update(
  scope: Scope,
  before: unknown,
  after: unknown,
  managers: Managers,
  workflow: string,
  force: boolean,
) {
  const comparison = filterComparison(compare(scope.kind, before, after), scope.reset);
  // Each manager's fields are paths of its version: the change is compared there.
  const byVersion = new Map<string, Comparison>([[scope.apiVersion, comparison]]);
  const comparisonFor = (apiVersion: string): Comparison => {
    let c = byVersion.get(apiVersion);
    if (!c) {
      const b = scope.convert?.(before, apiVersion);
      const a = scope.convert?.(after, apiVersion);
      c = b !== undefined && a !== undefined ? compare(scope.kind, b, a) : comparison;
      byVersion.set(apiVersion, c);
    }
    return c;
  };
  const conflicts = new Map<string, FieldSet>();
  for (const [id, vs] of managers) {
    if (id === workflow) continue;
    const theirs = comparisonFor(vs.apiVersion);
    const conflict = vs.set.intersection(theirs.modified.union(theirs.added));
    if (!conflict.isEmpty()) conflicts.set(id, conflict);
  }
  if (!force && conflicts.size > 0) {
    // Upstream walks a Go map here (random order); kube-sim lists managers in identifier order.
    const list: Conflict[] = [];
    for (const id of [...conflicts.keys()].sort(compareStrings)) {
      for (const path of conflicts.get(id)!.paths()) list.push({ manager: id, path });
    }
    throw new ConflictsError(list);
  }
  const out: Managers = new Map();
  for (const [id, vs] of managers) {
    let set = vs.set;
    if (id !== workflow) {
      const conflict = conflicts.get(id);
      if (conflict) set = set.difference(conflict);
      set = set.difference(comparisonFor(vs.apiVersion).removed);
    }
    if (!set.isEmpty()) out.set(id, withSet(vs, set));
  }
  return { managers: out, comparison };
}

/** `Updater.Update`: `manager` owns what it changed or added, on top of what it kept. */
function updaterUpdate(
  scope: Scope,
  live: unknown,
  next: unknown,
  managers: Managers,
  manager: string,
): Managers {
  const result = update(scope, live, next, managers, manager, true);
  const c = result.comparison;
  const previous = result.managers.get(manager)?.set ?? FieldSet.EMPTY;
  const set = previous
    .difference(c.removed)
    .union(c.modified)
    .union(c.added)
    .recursiveDifference(scope.reset);
  const out = new Map(result.managers);
  if (set.isEmpty()) out.delete(manager);
  else out.set(manager, { set, apiVersion: scope.apiVersion, applied: false });
  return out;
}

/** `Updater.Apply`: merge, prune what the applier dropped, then settle ownership. */
function updaterApply(
  scope: Scope,
  live: unknown,
  config: unknown,
  managers: Managers,
  manager: string,
  force: boolean,
) {
  const lastSet = managers.get(manager)?.set;
  let merged = merge(scope.kind, live, config, []);
  const set = toFieldSet(scope.kind, config).recursiveDifference(scope.reset);
  const withApplier: Managers = new Map(managers);
  withApplier.set(manager, { set, apiVersion: scope.apiVersion, applied: true });
  merged = prune(scope.kind, merged, withApplier, lastSet);
  const result = update(scope, live, merged, withApplier, manager, force);
  const changed = !valuesEqual(live, merged);
  return { object: changed ? merged : undefined, managers: result.managers };
}

/**
 * `Updater.prune`: removes a field, list item or map entry the applier applied last time and
 * omits now, unless a manager (any applier or updater, or this applier's new configuration) still
 * owns it. Struct fields on the way to owned fields count as owned (`EnsureNamedFieldsAreMembers`),
 * so a struct left with nothing owned in it goes too.
 */
function prune(kind: string, merged: unknown, managers: Managers, lastSet: FieldSet | undefined): unknown {
  if (!lastSet || lastSet.isEmpty()) return merged;
  const named = (v: unknown) => toFieldSet(kind, v).ensureNamedFieldsAreMembers();
  const last = lastSet.ensureNamedFieldsAreMembers();
  let pruned = removeItems(kind, merged, last);
  // addBackOwnedItems: everything somebody owns comes back.
  let managed = FieldSet.EMPTY;
  for (const vs of managers.values()) managed = managed.union(vs.set);
  const mergedSet = named(merged);
  pruned = removeItems(
    kind,
    merged,
    mergedSet.difference(named(pruned).union(managed.ensureNamedFieldsAreMembers())),
  );
  // addBackDanglingItems: only what the applier owned last time may go.
  return removeItems(kind, merged, mergedSet.difference(named(pruned)).intersection(last));
}

// ---------------------------------------------------------------------------------------------
// The field-manager chain (util/managedfields/internal).

function stripManager(managed: Managed, id: string): void {
  const vs = managed.fields.get(id);
  if (!vs) return;
  const set = vs.set.difference(STRIPPED_FIELDS);
  if (set.isEmpty()) managed.fields.delete(id);
  else managed.fields.set(id, withSet(vs, set));
}

/** structuredmerge + stripmeta + managedfieldsupdater for an Update by `id`. */
function trackUpdate(scope: Scope, live: unknown, next: unknown, managed: Managed, id: string): Managed {
  validate(scope.kind, live, true);
  validate(scope.kind, next, true);
  // The change is computed for a placeholder manager so that "did this write change anything
  // of this manager's" is known; its fields then join the manager's earlier ones.
  const self = 'current-operation';
  const out: Managed = {
    fields: updaterUpdate(scope, live, next, managed.fields, self),
    times: new Map(managed.times),
  };
  stripManager(out, self);
  const vs = out.fields.get(self);
  if (vs) {
    out.fields.delete(self);
    const previous = out.fields.get(id);
    out.fields.set(id, previous ? withSet(vs, vs.set.union(previous.set)) : vs);
    out.times.set(id, scope.now);
  }
  return out;
}

const MAX_UPDATE_MANAGERS = 10;

function seconds(time: string | undefined): number {
  const ms = time === undefined ? Number.NaN : Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/**
 * capmanagers.go: beyond ten Update entries, the oldest are merged, per apiVersion, into an
 * `ancient-changes` entry (the first of a version only starts the bucket).
 */
function capUpdateManagers(managed: Managed): Managed {
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return managed;
  updaters.sort(
    (a, b) => seconds(managed.times.get(a)) - seconds(managed.times.get(b)) || compareStrings(a, b),
  );
  const out = copyManaged(managed);
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const id = updaters[i]!;
    const vs = out.fields.get(id)!;
    const bucket = managerIdentifier({
      manager: 'ancient-changes',
      operation: 'Update',
      apiVersion: vs.apiVersion,
    });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!out.fields.has(bucket)) {
      out.fields.set(bucket, out.fields.get(first)!);
      out.fields.delete(first);
    }
    out.fields.set(bucket, withSet(vs, vs.set.union(out.fields.get(bucket)!.set)));
    out.fields.delete(id);
    out.times.set(bucket, managed.times.get(id));
    length--;
  }
  return out;
}

function managerName(manager: string): string {
  return manager === '' ? 'unknown' : manager; // buildmanagerinfo.go
}

/** capmanagers → buildmanagerinfo → managedfieldsupdater for an Update. */
function updateChain(scope: Scope, live: unknown, next: unknown, managed: Managed, manager: string): Managed {
  const id = managerIdentifier({
    manager: managerName(manager),
    operation: 'Update',
    apiVersion: scope.apiVersion,
    subresource: scope.subresource,
  });
  return capUpdateManagers(trackUpdate(scope, live, next, managed, id));
}

/** `metav1.ObjectMeta` without managedFields: they are never part of the typed object here. */
function withoutManagedFields<T>(obj: T): T {
  if (!isPlainObject(obj) || !isPlainObject(obj.metadata) || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata } as T;
}

/** `"<namespace>/<name>; apps/v1, Kind=Deployment"`, as structuredmerge.go names objects in errors. */
function objectGVKNN(obj: unknown): string {
  const meta = isPlainObject(obj) && isPlainObject(obj.metadata) ? obj.metadata : {};
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return `${str(meta.namespace)}/${str(meta.name)}; ${gvkString(obj)}`;
}

/** `schema.GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=Secret`. */
function gvkString(obj: unknown): string {
  const apiVersion = isPlainObject(obj) && typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = isPlainObject(obj) && typeof obj.kind === 'string' ? obj.kind : '';
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  return `${group}/${version}, Kind=${kind}`;
}

/** A plain Go error surfacing from a handler: 500 with an empty reason (`ErrorToAPIStatus`). */
function internalError(message: string): StatusError {
  return new StatusError(500, '', message);
}

/** skipnonapplied → buildmanagerinfo → managedfieldsupdater → stripmeta → structuredmerge for an Apply. */
function applyChain(
  scope: Scope,
  live: unknown,
  applied: unknown,
  managed: Managed,
  manager: string,
  force: boolean,
) {
  let current = managed;
  if (current.fields.size === 0) {
    // An object nobody manages yet: its existing fields go to "before-first-apply" first.
    try {
      current = updateChain(scope, zeroObject(scope), live, current, 'before-first-apply');
    } catch (err) {
      throw internalError(`failed to create manager for existing fields: ${(err as Error).message}`);
    }
  }
  const id = managerIdentifier({
    manager: managerName(manager),
    operation: 'Apply',
    subresource: scope.subresource,
  });
  try {
    validate(scope.kind, applied, false);
  } catch (err) {
    throw internalError(
      `failed to create typed patch object (${objectGVKNN(applied)}): ${(err as Error).message}`,
    );
  }
  try {
    validate(scope.kind, live, true);
  } catch (err) {
    throw internalError(
      `failed to create typed live object (${objectGVKNN(live)}): ${(err as Error).message}`,
    );
  }
  const result = updaterApply(scope, live, applied, current.fields, id, force);
  const out: Managed = { fields: result.managers, times: new Map(current.times) };
  stripManager(out, id);
  if (result.object !== undefined) out.times.set(id, scope.now);
  // A no-op apply leaves the object as it was: only ownership may have moved.
  return { object: result.object ?? live, managed: out };
}

// ---------------------------------------------------------------------------------------------
// Client-side apply interplay, for the manager "kubectl" only (lastappliedmanager.go,
// lastappliedupdater.go, lastapplied.go).

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function annotationsOf(obj: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(obj) || !isPlainObject(obj.metadata)) return undefined;
  return isPlainObject(obj.metadata.annotations) ? obj.metadata.annotations : undefined;
}

/** Fields the last-applied annotation sets to what the live object still holds. */
function allowedFromLastApplied(scope: Scope, live: unknown): FieldSet | undefined {
  const text = annotationsOf(live)?.[LAST_APPLIED];
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    const last: unknown = JSON.parse(text);
    if (!isPlainObject(last) || last.apiVersion !== scope.apiVersion) return undefined;
    validate(scope.kind, last, false);
    const c = compare(scope.kind, last, live);
    return toFieldSet(scope.kind, last).difference(c.modified).difference(c.added).difference(c.removed);
  } catch {
    return undefined;
  }
}

/**
 * lastappliedmanager.go: when kubectl's server-side apply conflicts only on fields its earlier
 * client-side apply set (per the annotation, and still so in the object), it is forced.
 */
function applyWithLastApplied(
  scope: Scope,
  live: unknown,
  applied: unknown,
  managed: Managed,
  manager: string,
  force: boolean,
) {
  try {
    return applyChain(scope, live, applied, managed, manager, force);
  } catch (err) {
    if (manager !== 'kubectl' || !(err instanceof ConflictsError)) throw err;
    const allowed = allowedFromLastApplied(scope, live);
    if (!allowed) throw err;
    const remaining = err.conflicts.filter((c) => !allowed.has(c.path));
    if (remaining.length > 0) throw new ConflictsError(remaining);
    return applyChain(scope, live, applied, managed, manager, true);
  }
}

/** Sum of annotation key and value bytes may not exceed 256 KiB (`ValidateAnnotationsSize`). */
function annotationsSize(annotations: Record<string, unknown>): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations))
    total += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  return total;
}

/** lastappliedupdater.go: kubectl's server-side applies keep an existing annotation current. */
function updateLastApplied(object: unknown, applied: unknown): unknown {
  const annotations = annotationsOf(object);
  if (!isPlainObject(object) || !isPlainObject(object.metadata) || !annotations) return object;
  if (typeof annotations[LAST_APPLIED] !== 'string' || annotations[LAST_APPLIED] === '') return object;
  const config = clone(applied);
  const configAnnotations = annotationsOf(config);
  if (configAnnotations) delete configAnnotations[LAST_APPLIED];
  // runtime.Encode(UnstructuredJSONScheme): encoding/json with its trailing newline.
  const next: Record<string, unknown> = { ...annotations, [LAST_APPLIED]: `${goJson(config)}\n` };
  if (annotationsSize(next) > 256 * 1024) delete next[LAST_APPLIED];
  return { ...object, metadata: { ...object.metadata, annotations: next } };
}

// ---------------------------------------------------------------------------------------------
// Per-kind knowledge: reset fields and zero objects.

/**
 * The strategies' `GetResetFields`: the main endpoint of a kind with a status subresource never
 * owns `status`; `/status` never owns `spec` (plus labels for Deployments, deletionTimestamp and
 * ownerReferences for Pods). Checked upstream for Deployment, ReplicaSet, Job, Namespace and Pod;
 * the other kinds are assumed to follow the same pattern.
 */
export function resetFields(kind: string, subresource: string | undefined, hasStatus: boolean): FieldSet {
  if (subresource === undefined) return hasStatus ? FieldSet.of([field('status')]) : FieldSet.EMPTY;
  if (subresource !== 'status') return FieldSet.EMPTY;
  const paths = [[field('spec')]];
  if (kind === 'Deployment') paths.push([field('metadata'), field('labels')]);
  if (kind === 'Pod')
    paths.push(
      [field('metadata'), field('deletionTimestamp')],
      [field('metadata'), field('ownerReferences')],
    );
  return FieldSet.of(...paths);
}

const KINDS_WITH_STATUS = new Set([
  'Deployment',
  'ReplicaSet',
  'Pod',
  'Service',
  'Namespace',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'Job',
  'CronJob',
  'Ingress',
]);

const POD_TEMPLATE = { metadata: {}, spec: { containers: null } };

/**
 * The containers a zero Go object of each kind already has (non-pointer structs, lists without
 * omitempty as null). Only they matter: a create then owns the containers it *added* as
 * themselves (`".": {}`) and these only through their contents, as upstream records it.
 */
const ZERO_OBJECTS: Record<string, Record<string, unknown>> = {
  Deployment: { spec: { template: POD_TEMPLATE, strategy: {} }, status: {} },
  ReplicaSet: { spec: { template: POD_TEMPLATE }, status: {} },
  Pod: { spec: { containers: null }, status: {} },
  Job: { spec: { template: POD_TEMPLATE }, status: {} },
  CronJob: { spec: { jobTemplate: { metadata: {}, spec: { template: POD_TEMPLATE } } }, status: {} },
  Service: { spec: {}, status: { loadBalancer: {} } },
  Ingress: { spec: {}, status: { loadBalancer: {} } },
  Namespace: { spec: {}, status: {} },
  PersistentVolumeClaim: { spec: { resources: {} }, status: {} },
  PersistentVolume: { spec: {}, status: {} },
  Lease: { spec: {} },
  Event: { involvedObject: {}, source: {} },
  // Kinds two groups share are keyed by `apiVersion kind`.
  'events.k8s.io/v1 Event': { regarding: {}, deprecatedSource: {} },
};

function zeroObject(scope: { kind: string; apiVersion: string }): Record<string, unknown> {
  const zero = ZERO_OBJECTS[`${scope.apiVersion} ${scope.kind}`] ?? ZERO_OBJECTS[scope.kind];
  return clone({ metadata: {}, ...zero });
}

// ---------------------------------------------------------------------------------------------
// Output: JSON objects where upstream has Go structs.

/**
 * Removes the nulls an operation introduced (applied `x: null`, maps emptied by pruning): a Go
 * struct has no null fields, so upstream's stored object lacks them. Nulls the live object
 * already had (`creationTimestamp: null` in templates) stay.
 */
function dropIntroducedNulls(value: unknown, live: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map((item, i) => dropIntroducedNulls(item, Array.isArray(live) ? live[i] : undefined));
  }
  if (!isPlainObject(value)) return value;
  const liveMap = isPlainObject(live) ? live : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null && liveMap[k] !== null) continue;
    out[k] = dropIntroducedNulls(v, liveMap[k]);
  }
  return out;
}

function scopeFor(input: {
  kind: string;
  apiVersion: string;
  now: string;
  subresource?: string;
  convert?: VersionConverter;
}): Scope {
  return {
    kind: input.kind,
    apiVersion: input.apiVersion,
    ...(input.convert ? { convert: input.convert } : {}),
    subresource: input.subresource,
    now: input.now,
    reset: resetFields(input.kind, input.subresource, KINDS_WITH_STATUS.has(input.kind)),
  };
}

function asError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  if (err instanceof ConflictsError) return conflictStatusError(err.conflicts);
  return internalError(err instanceof Error ? err.message : String(err));
}

// ---------------------------------------------------------------------------------------------
// Entry points.

/**
 * Server-side apply of `applied` (an apply-patch body) by `manager`. Returns the object to store,
 * with managedFields updated; for a no-op apply, a copy of `live` (only ownership may differ, so
 * an unchanged result deep-equals `live`). Throws StatusError: 409 Conflict with
 * FieldManagerConflict causes, 400 for a wrong type or a body carrying managedFields, 500 for
 * bodies upstream cannot type (missing or duplicate list keys).
 */
export function serverSideApply(input: {
  kind: string;
  apiVersion: string;
  live: KubeObject | undefined;
  applied: KubeObject;
  manager: string;
  force: boolean;
  now: string;
  subresource?: string;
  convert?: VersionConverter;
}): KubeObject {
  const { applied, live } = input;
  // versioncheck.go
  if (applied.apiVersion !== input.apiVersion || applied.kind !== input.kind)
    throw new StatusError(400, 'BadRequest', `invalid object type: ${gvkString(applied)}`);
  // structuredmerge.go
  if (Array.isArray(applied.metadata?.managedFields))
    throw new StatusError(400, 'BadRequest', 'metadata.managedFields must be nil');
  const scope = scopeFor(input);
  let managed: Managed;
  try {
    managed = live ? decodeManagedFields(live.metadata.managedFields) : emptyManaged();
  } catch (err) {
    throw internalError(`failed to decode managed fields: ${(err as Error).message}`);
  }
  // A create applies onto nothing (upstream: a zero object, whose empty structs vanish again
  // when it becomes a Go struct; kube-sim would keep them, so it starts from {}). The live
  // managedFields ride along untouched, as in upstream's typed live object; nobody owns them.
  const liveValue: unknown = live ?? {};
  let result: { object: unknown; managed: Managed };
  try {
    result = applyWithLastApplied(scope, liveValue, applied, managed, input.manager, input.force);
  } catch (err) {
    throw asError(err);
  }
  let object = result.object;
  if (input.manager === 'kubectl') object = updateLastApplied(object, applied);
  object = dropIntroducedNulls(clone(object), liveValue);
  return withManagedFields(object as KubeObject, result.managed, input.now);
}

/**
 * managedFields for a non-apply write (create, update, patch) by `manager`: it owns what it
 * changed or added, others lose what it removed or changed; never conflicts. Returns `after`
 * with managedFields set. As upstream: managedFields the write itself carries replace the
 * stored ones (`[]` or `[{}]` clears them; ignored on subresources), an existing object nobody
 * manages stays untracked until it is applied to, and a failure keeps the stored managedFields.
 */
export function recordUpdate(input: {
  kind: string;
  apiVersion: string;
  before: KubeObject | undefined;
  after: KubeObject;
  manager: string;
  now: string;
  subresource?: string;
  convert?: VersionConverter;
}): KubeObject {
  const { before, after } = input;
  const scope = scopeFor(input);
  const isCreate = before === undefined || !before.metadata.uid;
  const beforeEntries = before?.metadata.managedFields;
  const decodeOrEmpty = (entries: unknown) => {
    try {
      return decodeManagedFields(entries);
    } catch {
      return emptyManaged();
    }
  };
  // fieldmanager.go decodeLiveOrNew
  let managed: Managed;
  if (input.subresource !== undefined) managed = decodeOrEmpty(beforeEntries);
  else if (isResetManagedFields(after.metadata.managedFields)) managed = emptyManaged();
  else {
    managed = decodeOrEmpty(after.metadata.managedFields);
    if (managed.fields.size === 0) managed = decodeOrEmpty(beforeEntries);
  }
  const next = withoutManagedFields(after);
  // skipnonapplied.go: only creates start tracking.
  if (managed.fields.size === 0 && !isCreate) return clone(next);
  const live = before ? withoutManagedFields(before) : zeroObject(input);
  try {
    managed = updateChain(scope, live, next, managed, input.manager);
  } catch {
    // UpdateNoErrors: keep what was stored.
    const kept = clone(next);
    return beforeEntries
      ? { ...kept, metadata: { ...kept.metadata, managedFields: clone(beforeEntries) } }
      : kept;
  }
  // `after` rather than `next`, so that managedFields keep their place among the metadata keys.
  return withManagedFields(clone(after), managed, input.now);
}

/**
 * The manager of a write without `fieldManager`: the User-Agent up to its first `/`, without
 * unprintable characters, cut to 128 bytes (`prefixFromUserAgent`, handlers/create.go).
 * `kubectl/v1.33.0 (linux/amd64) kubernetes/abc` → `kubectl`. An empty result is recorded as
 * `unknown`.
 */
export function defaultManager(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0]!;
  let out = '';
  let bytes = 0;
  for (const ch of prefix) {
    // unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    const size = Buffer.byteLength(ch);
    if (bytes + size > 128) break;
    out += ch;
    bytes += size;
  }
  return out;
}

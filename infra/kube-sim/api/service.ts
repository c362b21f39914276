/**
 * The verbs of the simulated API server on stored objects: get, list, create, update, patch,
 * delete, deletecollection, for main resources and the status and scale subresources. HTTP
 * concerns (paths, bodies, watch streams) live in ../server; this is the apiserver's registry
 * and admission behaviour.
 */
import { defaultManager, recordUpdate, serverSideApply } from '../apply/apply.ts';
import {
  CUSTOM_RESOURCE_PATCH_TYPES,
  isCustomResource,
  pruneCustomResource,
} from '../crd/custom-resources.ts';
import { applyDefaults, defaultJobSelector } from '../defaulting/index.ts';
import { statusErrors } from '../errors.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import { applyMergePatch } from '../patch/merge-patch.ts';
import { applyStrategicMergePatch } from '../patch/strategic-merge.ts';
import { findByKind, groupVersion, type ResourceType, versionConverter } from '../resources.ts';
import { type DecodeSource, decodeOrRefuse } from '../schema/decode-status.ts';
import { dropFields, unknownFields } from '../schema/known-fields.ts';
import { parseFieldSelector, parseLabelSelector } from '../selectors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { clone, isPlainObject, type KubeObject } from '../types.ts';
import { validateCreate, validateUpdate } from '../validation/index.ts';
import type { ClusterIPAllocator } from './cluster-ip.ts';
import { type DeleteOptions, type DeleteResult, deleteObject } from './deletion.ts';
import { admitIngressClass } from './ingress-class-admission.ts';
import { generateName, normalize, prepareCreate, prepareUpdate } from './metadata.ts';
import { type ApiRequest, writeOptions } from './request.ts';
import { fromScale, toScale } from './scale.ts';
import { foldStringData } from './secret-string-data.ts';
import { admitPodServiceAccount } from './service-account-admission.ts';

export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export interface ListResult {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: KubeObject[];
}

/** Hooks the controllers register: told about every stored change, so they can react asynchronously. */
export interface ServiceHooks {
  afterWrite?(type: ResourceType, object: KubeObject, event: 'created' | 'updated' | 'deleted'): void;
}

export function typeKey(type: ResourceType): string {
  return `${type.group}/${type.plural}`;
}

export class ApiService {
  constructor(
    readonly store: ObjectStore,
    private readonly clusterIPs: ClusterIPAllocator,
    private readonly hooks: ServiceHooks = {},
  ) {}

  // ---------------------------------------------------------------- reads

  get(req: ApiRequest): KubeObject {
    const object = this.mustExist(req);
    if (req.subresource === 'scale') return toScale(req.type, object);
    // Custom resources with conversion None: any served version reads the stored object, with
    // its apiVersion rewritten (apiextensions-apiserver pkg/apiserver/conversion/nop_converter.go).
    if (isCustomResource(req.type)) return { ...object, apiVersion: groupVersion(req.type) };
    return object;
  }

  list(req: ApiRequest): ListResult {
    const { type, query } = req;
    const requestedRv = query.get('resourceVersion');
    if (
      requestedRv &&
      requestedRv !== '0' &&
      /^\d+$/.test(requestedRv) &&
      Number(requestedRv) > this.store.currentRv
    ) {
      throw statusErrors.timeout(
        `Timeout: Too large resource version: ${requestedRv}, current: ${this.store.currentRv}`,
      );
    }
    const labels = parseLabelSelector(query.get('labelSelector'));
    const fields = parseFieldSelector(query.get('fieldSelector'), type);
    let items = this.store.list(typeKey(type), req.namespace);
    if (!labels.empty) items = items.filter((o) => labels.matches(o.metadata.labels));
    if (!fields.empty) items = items.filter((o) => fields.matches(o));
    return this.paginate(type, items, query);
  }

  /**
   * `limit` and `continue`: the token carries the list's revision and the last key served, as
   * upstream's does; pages are cut from the current state (no MVCC snapshot), which is what a
   * client that does not write while paging observes.
   */
  private paginate(type: ResourceType, items: KubeObject[], query: URLSearchParams): ListResult {
    const limit = Number(query.get('limit') ?? 0);
    const token = query.get('continue');
    let rv = this.store.currentRv;
    let start = 0;
    if (token) {
      const decoded = decodeContinue(token);
      if (decoded.rv < this.store.oldestResumableRv) {
        throw statusErrors.expired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
      }
      rv = decoded.rv;
      start = items.findIndex((o) => keyOf(o) > decoded.start);
      if (start < 0) start = items.length;
    }
    const page = limit > 0 ? items.slice(start, start + limit) : items.slice(start);
    const rest = items.length - start - page.length;
    const metadata: ListResult['metadata'] = { resourceVersion: String(rv) };
    if (limit > 0 && rest > 0) {
      metadata.continue = encodeContinue(rv, keyOf(page.at(-1)!));
      metadata.remainingItemCount = rest;
    }
    // Items in a list carry no kind or apiVersion: the list names them.
    const stripped = page.map(({ kind: _k, apiVersion: _a, ...rest }) => rest as KubeObject);
    return { kind: type.listKind, apiVersion: groupVersion(type), metadata, items: stripped };
  }

  // ---------------------------------------------------------------- writes

  create(req: ApiRequest, body: unknown): KubeObject {
    const options = writeOptions(req.query);
    if (options.force) throw patchOptionsInvalid('force', 'may not be specified for non-apply patch');
    const object = this.decode(req, body, options.fieldValidation);
    if (object.metadata.resourceVersion) {
      throw statusErrors.internal('resourceVersion should not be set on objects to be created');
    }
    const requestedName = object.metadata.name || object.metadata.generateName || '';
    if (!object.metadata.name && object.metadata.generateName) {
      object.metadata.name = generateName(object.metadata.generateName);
    }
    this.admitNamespace(req, object);
    this.admitCreate(req.type, object);
    if (req.type.group === '' && req.type.kind === 'Pod' && !req.subresource)
      admitPodServiceAccount(this.store, object, requestedName);
    foldStringData(object);
    prepareCreate(req.type, object, new Date());
    applyDefaults(req.type, object, this.clusterIPs.picker());
    if (req.type.kind === 'Job') defaultJobSelector(object);
    this.throwIfInvalid(req.type, object, validateCreate(req.type, object));
    this.throwIfInvalid(req.type, object, this.clusterIPs.verify(object));
    if (this.store.get(typeKey(req.type), req.namespace, object.metadata.name!)) {
      throw statusErrors.alreadyExists(req.type, object.metadata.name!);
    }
    const manager = options.fieldManager ?? defaultManager(req.userAgent);
    const tracked = recordUpdate({
      kind: req.type.kind,
      apiVersion: groupVersion(req.type),
      convert: versionConverter(req.type),
      before: undefined,
      after: normalize(object),
      manager,
      now: timestampNow(),
    });
    if (options.dryRun) return tracked;
    const stored = this.store.create(typeKey(req.type), tracked);
    this.clusterIPs.reserveFrom(stored);
    this.hooks.afterWrite?.(req.type, stored, 'created');
    return stored;
  }

  update(req: ApiRequest, body: unknown): KubeObject {
    const options = writeOptions(req.query);
    if (options.force) throw patchOptionsInvalid('force', 'may not be specified for non-apply patch');
    const old = this.mustExist(req);
    let incoming: KubeObject;
    if (req.subresource === 'scale') {
      incoming = fromScale(
        req.type,
        old,
        this.decodeScale(body, { from: 'body', numberLiterals: req.numberLiterals }),
      );
    } else {
      // managedFields in the body replace the stored ones (decodeLiveOrNew; see writeUpdate).
      incoming = this.decode(req, body, options.fieldValidation, { keepServerFields: true });
      if (incoming.metadata.name !== req.name) {
        throw statusErrors.badRequest(
          `the name of the object (${incoming.metadata.name}) does not match the name on the URL (${req.name})`,
        );
      }
    }
    return this.writeUpdate(req, old, incoming, options);
  }

  patch(req: ApiRequest, contentType: string, body: unknown): KubeObject {
    const options = writeOptions(req.query);
    const patchType = contentType.split(';')[0]!.trim();
    if (!Object.values(PATCH_TYPES).includes(patchType as (typeof PATCH_TYPES)[keyof typeof PATCH_TYPES])) {
      throw statusErrors.unsupportedMediaType(contentType, Object.values(PATCH_TYPES));
    }
    // Custom resources have no Go struct to take patch strategies from: upstream's
    // customresource_handler.go refuses strategic merge patch with 415.
    if (isCustomResource(req.type) && !CUSTOM_RESOURCE_PATCH_TYPES.includes(patchType)) {
      throw statusErrors.unsupportedMediaType(contentType, CUSTOM_RESOURCE_PATCH_TYPES);
    }
    const isApply = patchType === PATCH_TYPES.apply;
    if (isApply && !options.fieldManager)
      throw patchOptionsInvalid('fieldManager', 'is required for apply patch', 'FieldValueRequired');
    if (!isApply && options.force)
      throw patchOptionsInvalid('force', 'may not be specified for non-apply patch');

    if (isApply) return this.apply(req, body, options);

    const old = this.mustExist(req);
    const current = req.subresource === 'scale' ? (toScale(req.type, old) as KubeObject) : clone(old);
    let patched: unknown;
    if (patchType === PATCH_TYPES.json) patched = applyJsonPatch(current, body);
    else if (patchType === PATCH_TYPES.merge) patched = applyMergePatch(current, body);
    else {
      if (!isPlainObject(body))
        throw statusErrors.badRequest('the strategic merge patch must be a JSON object');
      patched = applyStrategicMergePatch(
        req.subresource === 'scale' ? 'Scale' : req.type.kind,
        current,
        body,
      );
    }
    if (!isPlainObject(patched) || !isPlainObject(patched.metadata))
      throw statusErrors.badRequest('the patch result is not an object');
    let incoming: KubeObject;
    const source: DecodeSource = {
      from: 'patch',
      patchType:
        patchType === PATCH_TYPES.json ? 'json' : patchType === PATCH_TYPES.merge ? 'merge' : 'strategic',
      patch: body,
    };
    if (req.subresource === 'scale') {
      incoming = fromScale(req.type, old, this.decodeScale(patched, source));
    } else {
      incoming = this.decode(req, patched, options.fieldValidation, { keepServerFields: true, source });
      if (incoming.metadata.name !== req.name)
        throw statusErrors.badRequest('metadata.name: Invalid value: the patch may not change the name');
    }
    return this.writeUpdate(req, old, incoming, options);
  }

  /** Server-side apply: creates the object when missing, else merges with field ownership. */
  private apply(req: ApiRequest, body: unknown, options: ReturnType<typeof writeOptions>): KubeObject {
    const applied = this.decode(req, body, options.fieldValidation, { keepServerFields: true });
    if (applied.metadata.name !== req.name) {
      throw statusErrors.badRequest(
        `the name of the object (${applied.metadata.name}) does not match the name on the URL (${req.name})`,
      );
    }
    const old = this.store.get(typeKey(req.type), req.namespace, req.name!);
    const manager = options.fieldManager!;
    if (!old) {
      if (req.subresource) throw statusErrors.notFound(req.type, req.name!);
      this.admitNamespace(req, applied);
      const created = serverSideApply({
        kind: req.type.kind,
        apiVersion: groupVersion(req.type),
        convert: versionConverter(req.type),
        live: undefined,
        applied,
        manager,
        force: options.force,
        now: timestampNow(),
      });
      this.admitCreate(req.type, created);
      foldStringData(created);
      prepareCreate(req.type, created, new Date());
      applyDefaults(req.type, created, this.clusterIPs.picker());
      if (req.type.kind === 'Job') defaultJobSelector(created);
      if (req.type.group === '' && req.type.kind === 'Pod')
        admitPodServiceAccount(this.store, created, req.name!);
      this.throwIfInvalid(req.type, created, validateCreate(req.type, created));
      this.throwIfInvalid(req.type, created, this.clusterIPs.verify(created));
      if (options.dryRun) return created;
      const stored = this.store.create(typeKey(req.type), normalize(created));
      this.clusterIPs.reserveFrom(stored);
      this.hooks.afterWrite?.(req.type, stored, 'created');
      return stored;
    }
    const rv = applied.metadata.resourceVersion;
    if (rv && rv !== old.metadata.resourceVersion) throw statusErrors.conflict(req.type, req.name!);
    const merged = serverSideApply({
      kind: req.type.kind,
      apiVersion: groupVersion(req.type),
      convert: versionConverter(req.type),
      live: clone(old),
      applied,
      manager,
      force: options.force,
      now: timestampNow(),
      ...(req.subresource ? { subresource: req.subresource } : {}),
    });
    return this.write(req, old, merged, options, (_before, after) => after);
  }

  /**
   * The tail of update and patch: a resourceVersion in the body must match the live one (Conflict
   * otherwise), and managedFields record the write as an Update by its manager. As upstream's
   * fieldmanager (decodeLiveOrNew), managedFields the written object carries (sent in a PUT body,
   * or set by a patch) replace the stored ones, `[]`/`[{}]` clears them, and an object without
   * them keeps the stored ones; writes to subresources always keep the stored ones. This is how a
   * client moves field ownership between managers ("Clearing managedFields" and "Transferring
   * ownership" in the Server-Side Apply docs).
   */
  private writeUpdate(
    req: ApiRequest,
    old: KubeObject,
    incoming: KubeObject,
    options: ReturnType<typeof writeOptions>,
  ): KubeObject {
    const rv = incoming.metadata.resourceVersion;
    if (rv && rv !== old.metadata.resourceVersion) throw statusErrors.conflict(req.type, req.name!);
    return this.write(req, old, incoming, options, (before, after) =>
      recordUpdate({
        kind: req.type.kind,
        apiVersion: groupVersion(req.type),
        convert: versionConverter(req.type),
        before,
        after,
        manager: options.fieldManager ?? defaultManager(req.userAgent),
        now: timestampNow(),
        ...(req.subresource ? { subresource: req.subresource } : {}),
      }),
    );
  }

  /** The common tail of update, patch and apply: prepare, default, validate, store. */
  private write(
    req: ApiRequest,
    old: KubeObject,
    incoming: KubeObject,
    options: ReturnType<typeof writeOptions>,
    track: (before: KubeObject, after: KubeObject) => KubeObject,
  ): KubeObject {
    const next = prepareUpdate(
      req.type,
      incoming,
      old,
      req.subresource === 'scale' ? undefined : req.subresource,
    );
    foldStringData(next);
    // With the stored object, defaulting keeps what the server assigned before (clusterIP, finalizers).
    // `/status` and `/finalize` writes take one part of the body onto the stored (defaulted) object.
    if (req.subresource !== 'status' && req.subresource !== 'finalize') {
      applyDefaults(req.type, next, { ...this.clusterIPs.picker(), old });
    }
    // managedFields first, as upstream's fieldmanager runs before validation: a written `[{}]`
    // (reset) is never validated as an entry.
    const tracked = normalize(track(old, next));
    const errors = validateUpdate(
      req.type,
      tracked,
      old,
      req.subresource === 'status' ? 'status' : undefined,
    );
    this.throwIfInvalid(req.type, tracked, errors);
    this.throwIfInvalid(req.type, tracked, this.clusterIPs.verify(tracked));
    if (options.dryRun) {
      // Answered as if written, nothing stored; a `/scale` write answers with the Scale it would
      // make (upstream's scale REST runs the same update under dryRun and converts the result).
      const answer = {
        ...tracked,
        metadata: { ...tracked.metadata, resourceVersion: old.metadata.resourceVersion },
      };
      return req.subresource === 'scale' ? toScale(req.type, answer) : answer;
    }
    // A finalizer-bearing object being deleted goes away when its last finalizer is removed
    // (for a namespace, also the last of spec.finalizers).
    const specFinalizers =
      req.type.kind === 'Namespace'
        ? ((tracked.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [])
        : [];
    if (
      tracked.metadata.deletionTimestamp &&
      !tracked.metadata.finalizers?.length &&
      specFinalizers.length === 0
    ) {
      const deleted = this.store.delete(typeKey(req.type), req.namespace, req.name!);
      if (deleted) {
        this.clusterIPs.releaseFrom(deleted);
        this.hooks.afterWrite?.(req.type, deleted, 'deleted');
      }
      return deleted ?? tracked;
    }
    const { object, changed } = this.store.update(typeKey(req.type), tracked);
    this.clusterIPs.reserveFrom(object);
    if (changed) this.hooks.afterWrite?.(req.type, object, 'updated');
    return req.subresource === 'scale' ? toScale(req.type, object) : object;
  }

  delete(req: ApiRequest, options: DeleteOptions): DeleteResult {
    const existing = this.mustExist(req);
    return deleteObject(this.deletionDeps(), req, existing, options);
  }

  deleteCollection(req: ApiRequest, options: DeleteOptions): ListResult {
    const listed = this.list(req);
    const deleted: KubeObject[] = [];
    for (const item of listed.items) {
      const existing = this.store.get(typeKey(req.type), item.metadata.namespace, item.metadata.name!);
      if (!existing) continue;
      const result = deleteObject(
        this.deletionDeps(),
        { ...req, name: item.metadata.name!, namespace: item.metadata.namespace },
        existing,
        options,
      );
      deleted.push(result.object);
    }
    return { ...listed, items: deleted, metadata: { resourceVersion: String(this.store.currentRv) } };
  }

  private deletionDeps() {
    return {
      store: this.store,
      typeKey,
      onDeleted: (type: ResourceType, object: KubeObject) => {
        this.clusterIPs.releaseFrom(object);
        this.hooks.afterWrite?.(type, object, 'deleted');
      },
      onUpdated: (type: ResourceType, object: KubeObject) => this.hooks.afterWrite?.(type, object, 'updated'),
    };
  }

  // ---------------------------------------------------------------- helpers

  private mustExist(req: ApiRequest): KubeObject {
    const object = this.store.get(typeKey(req.type), req.namespace, req.name!);
    if (!object) throw statusErrors.notFound(req.type, req.name!);
    return object;
  }

  /**
   * Turns a request body into an object of the request's type: checks apiVersion, kind and
   * namespace, and drops fields the type does not declare (reporting them per fieldValidation).
   */
  private decode(
    req: ApiRequest,
    body: unknown,
    validation: 'Strict' | 'Warn' | 'Ignore',
    options: { keepServerFields?: boolean; source?: DecodeSource } = {},
  ): KubeObject {
    if (!isPlainObject(body)) throw statusErrors.badRequest('the body of the request is not a JSON object');
    let object = clone(body) as KubeObject;
    const gv = groupVersion(req.type);
    object.apiVersion ??= gv;
    object.kind ??= req.type.kind;
    if (object.apiVersion !== gv || object.kind !== req.type.kind) {
      const target = findByKind(String(object.apiVersion), String(object.kind));
      throw statusErrors.badRequest(
        target
          ? `the API version in the data (${object.apiVersion}) does not match the expected API version (${gv})`
          : `${req.type.kind} in version "${req.type.version}" cannot be handled as a ${req.type.kind}: no kind "${object.kind}" is registered for version "${object.apiVersion}"`,
      );
    }
    // Into the kind's Go types (strict-decode.ts): wrong JSON types refused, quantities canonical.
    object = decodeOrRefuse(
      req.type,
      object,
      options.source ?? { from: 'body', numberLiterals: req.numberLiterals },
    );
    if (!isPlainObject(object.metadata)) object.metadata = {};
    if (req.type.namespaced) {
      if (object.metadata.namespace && req.namespace && object.metadata.namespace !== req.namespace) {
        throw statusErrors.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      if (req.namespace) object.metadata.namespace = req.namespace;
    } else delete object.metadata.namespace;
    // Custom resources are pruned by their version's structural schema (crd/prune.ts).
    const unknown = isCustomResource(req.type)
      ? pruneCustomResource(req.type, object)
      : unknownFields(req.type, object);
    const problems = [
      ...unknown.map((f) => `unknown field "${f}"`),
      ...(req.duplicateFields ?? []).map((f) => `duplicate field "${f}"`),
    ];
    if (problems.length > 0) {
      if (validation === 'Strict') {
        throw statusErrors.badRequest(
          `${req.type.kind} in version "${req.type.version}" cannot be handled as a ${req.type.kind}: strict decoding error: ${problems.join(', ')}`,
        );
      }
      if (validation === 'Warn') req.warnings.push(...problems);
      dropFields(object, unknown);
    }
    if (!options.keepServerFields) delete object.metadata.managedFields;
    return object;
  }

  private decodeScale(body: unknown, source: DecodeSource): KubeObject {
    if (!isPlainObject(body)) throw statusErrors.badRequest('the body of the request is not a JSON object');
    return decodeOrRefuse({ group: 'autoscaling', version: 'v1', kind: 'Scale' }, body as KubeObject, source);
  }

  /** Mutating admission on create (DefaultIngressClass). */
  private admitCreate(type: ResourceType, object: KubeObject): void {
    if (type.group === 'networking.k8s.io' && type.kind === 'Ingress')
      admitIngressClass(object, this.store.list('networking.k8s.io/ingressclasses'));
  }

  /** Namespaced objects need their namespace to exist and not be terminating. */
  private admitNamespace(req: ApiRequest, object: KubeObject): void {
    if (!req.type.namespaced) return;
    const nsType = findByKind('v1', 'Namespace')!;
    const ns = this.store.get(typeKey(nsType), undefined, req.namespace!);
    if (!ns) throw statusErrors.notFound(nsType, req.namespace!);
    if (ns.metadata.deletionTimestamp) {
      throw statusErrors.forbidden(
        `${req.type.plural} "${object.metadata.name ?? ''}" is forbidden: unable to create new content in namespace ${req.namespace} because it is being terminated`,
        {
          name: object.metadata.name ?? '',
          ...(req.type.group ? { group: req.type.group } : {}),
          kind: req.type.plural,
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${req.namespace} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      );
    }
  }

  private throwIfInvalid(
    type: ResourceType,
    object: KubeObject,
    errors: ReturnType<typeof validateCreate>,
  ): void {
    if (errors.length > 0) throw statusErrors.invalid(type, object.metadata.name ?? '', errors);
  }
}

function timestampNow(): string {
  return `${new Date().toISOString().slice(0, 19)}Z`;
}

function keyOf(object: KubeObject): string {
  return object.metadata.namespace
    ? `${object.metadata.namespace}/${object.metadata.name}`
    : object.metadata.name!;
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      rv?: unknown;
      start?: unknown;
    };
    if (typeof parsed.rv === 'number' && typeof parsed.start === 'string')
      return { rv: parsed.rv, start: parsed.start };
  } catch {
    // fall through
  }
  throw statusErrors.badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}

/** PatchOptions validation errors (fieldManager, force) are 422 on the PatchOptions kind upstream. */
function patchOptionsInvalid(
  field: string,
  detail: string,
  reason: 'FieldValueRequired' | 'FieldValueForbidden' = 'FieldValueForbidden',
) {
  const type = { group: 'meta.k8s.io', kind: 'PatchOptions', plural: 'patchoptions' } as ResourceType;
  return statusErrors.invalid(type, '', [{ type: reason, field, detail }]);
}

/**
 * Containers of a pod spec (pkg/apis/core/validation validateContainers, validateInitContainers,
 * validateContainerCommon, validateContainerPorts, ValidateVolumeMounts, validatePullPolicy,
 * ValidateSecurityContext, AccumulateUniqueHostPorts).
 */
import type { FieldError } from '../errors.ts';
import { bool, type JsonObject, list, num, obj, objOrEmpty, str } from './access.ts';
import { validateEnv, validateEnvFrom } from './env.ts';
import {
  child,
  duplicate,
  forbidden,
  index,
  invalid,
  notFound,
  notSupported,
  type Path,
  required,
} from './field.ts';
import { inclusiveRangeError, isDNS1123Label, isValidPortName, isValidPortNum } from './names.ts';
import { type ProbeKind, validateLifecycle, validateProbeOf } from './probes.ts';
import { validateResourceRequirements } from './resources.ts';
import { type VolumeMap, validateLocalDescendingPath } from './volumes.ts';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROBES: ProbeKind[] = ['livenessProbe', 'readinessProbe', 'startupProbe'];
/** The Unix ID range pods may use (validation.IsValidUserID / IsValidGroupID). */
const MAX_ID = 2147483647;

export interface ContainerContext {
  volumes: VolumeMap;
  claimNames: Set<string>;
  gracePeriod: number | undefined;
  hostUsers: boolean;
}

/** validateContainerPorts. */
function validatePorts(ports: unknown, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list(ports).forEach((raw, i) => {
    const port = objOrEmpty(raw);
    const idxPath = index(path, i);
    const name = str(port.name);
    if (name.length > 0) {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) errs.push(...msgs.map((msg) => invalid(child(idxPath, 'name'), name, msg)));
      else if (names.has(name)) errs.push(duplicate(child(idxPath, 'name'), name));
      else names.add(name);
    }
    const containerPort = num(port.containerPort) ?? 0;
    if (containerPort === 0) errs.push(required(child(idxPath, 'containerPort')));
    else
      errs.push(
        ...isValidPortNum(containerPort).map((msg) =>
          invalid(child(idxPath, 'containerPort'), containerPort, msg),
        ),
      );
    const hostPort = num(port.hostPort) ?? 0;
    if (hostPort !== 0)
      errs.push(...isValidPortNum(hostPort).map((msg) => invalid(child(idxPath, 'hostPort'), hostPort, msg)));
    const protocol = str(port.protocol);
    if (protocol.length === 0) errs.push(required(child(idxPath, 'protocol')));
    else if (!PROTOCOLS.includes(protocol))
      errs.push(notSupported(child(idxPath, 'protocol'), protocol, PROTOCOLS));
  });
  return errs;
}

/**
 * ValidateVolumeMounts. The subPath checks use the list's path rather than the item's
 * (`volumeMounts.subPath`), exactly as upstream does.
 */
function validateVolumeMounts(
  mounts: unknown,
  ctx: ContainerContext,
  container: JsonObject,
  path: Path,
): FieldError[] {
  const errs: FieldError[] = [];
  const mountPoints = new Set<string>();
  list(mounts).forEach((raw, i) => {
    const mount = objOrEmpty(raw);
    const idxPath = index(path, i);
    const name = str(mount.name);
    const mountPath = str(mount.mountPath);
    if (name.length === 0) errs.push(required(child(idxPath, 'name')));
    if (!ctx.volumes.has(name)) errs.push(notFound(child(idxPath, 'name'), name));
    if (mountPath.length === 0) errs.push(required(child(idxPath, 'mountPath')));
    if (mountPoints.has(mountPath))
      errs.push(invalid(child(idxPath, 'mountPath'), mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    const subPath = str(mount.subPath);
    const subPathExpr = str(mount.subPathExpr);
    if (ctx.volumes.get(name)?.image) {
      if (subPath)
        errs.push(invalid(child(idxPath, 'subPath'), subPath, 'not allowed in image volume sources'));
      if (subPathExpr)
        errs.push(invalid(child(idxPath, 'subPathExpr'), subPathExpr, 'not allowed in image volume sources'));
    }
    if (subPath) errs.push(...validateLocalDescendingPath(subPath, child(path, 'subPath')));
    if (subPathExpr) {
      if (subPath)
        errs.push(
          invalid(
            child(idxPath, 'subPathExpr'),
            subPathExpr,
            'subPathExpr and subPath are mutually exclusive',
          ),
        );
      errs.push(...validateLocalDescendingPath(subPathExpr, child(path, 'subPathExpr')));
    }
    const propagation = mount.mountPropagation;
    if (typeof propagation === 'string') {
      const supported = ['Bidirectional', 'HostToContainer', 'None'];
      if (!supported.includes(propagation))
        errs.push(notSupported(child(path, 'mountPropagation'), propagation, supported));
      const privileged = bool(objOrEmpty(container.securityContext).privileged) === true;
      if (propagation === 'Bidirectional' && !privileged) {
        errs.push(
          forbidden(
            child(path, 'mountPropagation'),
            'Bidirectional mount propagation is available only to privileged containers',
          ),
        );
      }
    }
  });
  return errs;
}

function validateId(value: unknown, path: Path): FieldError[] {
  const id = num(value);
  return id !== undefined && (id < 0 || id > MAX_ID)
    ? [invalid(path, id, inclusiveRangeError(0, MAX_ID))]
    : [];
}

/** validateSeccompProfileField. */
export function validateSeccompProfile(value: unknown, path: Path): FieldError[] {
  const profile = obj(value);
  if (!profile) return [];
  const errs: FieldError[] = [];
  const type = str(profile.type);
  const types = ['Localhost', 'RuntimeDefault', 'Unconfined'];
  if (type === '') errs.push(required(child(path, 'type'), 'type is required when seccompProfile is set'));
  else if (!types.includes(type)) errs.push(notSupported(child(path, 'type'), type, types));
  if (type === 'Localhost') {
    if (typeof profile.localhostProfile !== 'string') {
      errs.push(required(child(path, 'localhostProfile'), 'must be set when seccomp type is Localhost'));
    } else {
      errs.push(...validateLocalDescendingPath(profile.localhostProfile, child(path, 'localhostProfile')));
    }
  } else if (typeof profile.localhostProfile === 'string') {
    errs.push(
      invalid(child(path, 'localhostProfile'), profile, 'can only be set when seccomp type is Localhost'),
    );
  }
  return errs;
}

/** ValidateSecurityContext (privileged containers are allowed, as on kubeadm clusters). */
function validateSecurityContext(value: unknown, hostUsers: boolean, path: Path): FieldError[] {
  const sc = obj(value);
  if (!sc) return [];
  const errs = [
    ...validateId(sc.runAsUser, child(path, 'runAsUser')),
    ...validateId(sc.runAsGroup, child(path, 'runAsGroup')),
  ];
  const procMount = sc.procMount;
  if (typeof procMount === 'string') {
    if (procMount !== 'Default' && procMount !== 'Unmasked') {
      errs.push(notSupported(child(path, 'procMount'), procMount, ['Default', 'Unmasked']));
    }
    if (hostUsers && procMount === 'Unmasked') {
      errs.push(invalid(child(path, 'procMount'), procMount, '`hostUsers` must be false to use `Unmasked`'));
    }
  }
  errs.push(...validateSeccompProfile(sc.seccompProfile, child(path, 'seccompProfile')));
  if (bool(sc.allowPrivilegeEscalation) === false) {
    if (bool(sc.privileged) === true) {
      errs.push(invalid(path, sc, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    }
    if (list(objOrEmpty(sc.capabilities).add).includes('CAP_SYS_ADMIN')) {
      errs.push(
        invalid(
          path,
          sc,
          'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN',
        ),
      );
    }
  }
  return errs;
}

/** validateContainerCommon: what regular, init and ephemeral containers share. */
function validateContainerCommon(container: JsonObject, ctx: ContainerContext, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(container.name);
  const namePath = child(path, 'name');
  if (name.length === 0) errs.push(required(namePath));
  else errs.push(...isDNS1123Label(name).map((msg) => invalid(namePath, name, msg)));
  if (str(container.image).length === 0) errs.push(required(child(path, 'image')));
  const policy = str(container.terminationMessagePolicy);
  if (policy === '') errs.push(required(child(path, 'terminationMessagePolicy')));
  else if (policy !== 'File' && policy !== 'FallbackToLogsOnError') {
    errs.push(
      notSupported(child(path, 'terminationMessagePolicy'), policy, ['File', 'FallbackToLogsOnError']),
    );
  }
  errs.push(...validatePorts(container.ports, child(path, 'ports')));
  errs.push(...validateEnv(container.env, child(path, 'env')));
  errs.push(...validateEnvFrom(container.envFrom, child(path, 'envFrom')));
  errs.push(...validateVolumeMounts(container.volumeMounts, ctx, container, child(path, 'volumeMounts')));
  const pullPolicy = str(container.imagePullPolicy);
  if (pullPolicy === '') errs.push(required(child(path, 'imagePullPolicy')));
  else if (!PULL_POLICIES.includes(pullPolicy)) {
    errs.push(notSupported(child(path, 'imagePullPolicy'), pullPolicy, PULL_POLICIES));
  }
  errs.push(...validateResourceRequirements(container.resources, ctx.claimNames, child(path, 'resources')));
  errs.push(
    ...validateSecurityContext(container.securityContext, ctx.hostUsers, child(path, 'securityContext')),
  );
  return errs;
}

/** AccumulateUniqueHostPorts over the given containers. */
function checkHostPortConflicts(containers: JsonObject[], firstIndex: number, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((container, ci) => {
    list(container.ports).forEach((raw, pi) => {
      const port = objOrEmpty(raw);
      const hostPort = num(port.hostPort) ?? 0;
      if (hostPort === 0) return;
      const k = `${str(port.protocol)}/${str(port.hostIP)}/${hostPort}`;
      const p = child(index(child(index(path, firstIndex + ci), 'ports'), pi), 'hostPort');
      if (seen.has(k)) errs.push(duplicate(p, k));
      else seen.add(k);
    });
  });
  return errs;
}

function probesAndLifecycle(container: JsonObject, ctx: ContainerContext, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (obj(container.lifecycle))
    errs.push(...validateLifecycle(container.lifecycle, ctx.gracePeriod, child(path, 'lifecycle')));
  for (const kind of PROBES)
    errs.push(...validateProbeOf(kind, container[kind], ctx.gracePeriod, child(path, kind)));
  return errs;
}

/** validateContainers: at least one; names unique among regular containers. */
export function validateContainers(value: unknown, ctx: ContainerContext, path: Path): FieldError[] {
  const containers = list(value).map(objOrEmpty);
  if (containers.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((container, i) => {
    const p = index(path, i);
    errs.push(...validateContainerCommon(container, ctx, p));
    const name = str(container.name);
    if (names.has(name)) errs.push(duplicate(child(p, 'name'), name));
    else names.add(name);
    errs.push(...probesAndLifecycle(container, ctx, p));
    if (container.restartPolicy !== undefined && container.restartPolicy !== null) {
      errs.push(forbidden(child(p, 'restartPolicy'), 'may not be set for non-init containers'));
    }
  });
  errs.push(...checkHostPortConflicts(containers, 0, path));
  return errs;
}

/** validateInitContainers: restartable (sidecar) init containers may have probes and hooks. */
export function validateInitContainers(
  value: unknown,
  regular: unknown,
  ctx: ContainerContext,
  path: Path,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(list(regular).map((c) => str(objOrEmpty(c).name)));
  list(value)
    .map(objOrEmpty)
    .forEach((container, i) => {
      const p = index(path, i);
      errs.push(...validateContainerCommon(container, ctx, p));
      const restartPolicy = container.restartPolicy;
      let restartable = false;
      if (typeof restartPolicy === 'string') {
        if (restartPolicy !== 'Always')
          errs.push(notSupported(child(p, 'restartPolicy'), restartPolicy, ['Always']));
        restartable = restartPolicy === 'Always';
      }
      const name = str(container.name);
      if (names.has(name)) errs.push(duplicate(child(p, 'name'), name));
      else if (name.length > 0) names.add(name);
      errs.push(...checkHostPortConflicts([container], i, path));
      if (restartable) {
        errs.push(...probesAndLifecycle(container, ctx, p));
      } else {
        for (const f of ['lifecycle', ...PROBES]) {
          if (obj(container[f]))
            errs.push(
              forbidden(child(p, f), 'may not be set for init containers without restartPolicy=Always'),
            );
        }
      }
    });
  return errs;
}

/** validateContainerOnlyForPod: whitespace around the image is tolerated in templates only. */
export function validateImageWhitespace(containers: unknown, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  list(containers).forEach((raw, i) => {
    const image = str(objOrEmpty(raw).image);
    if (image !== image.trim())
      errs.push(
        invalid(child(index(path, i), 'image'), image, 'must not have leading or trailing whitespace'),
      );
  });
  return errs;
}

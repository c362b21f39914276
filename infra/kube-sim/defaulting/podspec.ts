/**
 * Pod spec defaults (pkg/apis/core/v1/defaults.go SetDefaults_PodSpec, SetDefaults_Container,
 * SetDefaults_Probe, SetDefaults_HTTPGetAction, SetDefaults_Volume and the volume-source
 * defaults, plus the `+default` markers of k8s.io/api: port protocol TCP, grpc service "").
 * SetDefaults_Pod's pod-only defaults are in defaultPod.
 */
import { ensureObject, type JsonObject, objectAt, objectsAt, setDefault } from './context.ts';

const DEFAULT_MODE = 0o644;

/**
 * The tag parsers.ParseImageName finds: "latest" when neither tag nor digest is given, "" when the
 * reference does not parse (empty, whitespace, upper case outside the registry host).
 */
export function imageTag(image: string): string {
  if (image.length === 0 || /\s/.test(image)) return '';
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const tag = colon > slash ? name.slice(colon + 1) : '';
  const components = (colon > slash ? name.slice(0, colon) : name).split('/');
  const hasHost = components.length > 1 && /[.:]|^localhost$/.test(components[0] ?? '');
  if ((hasHost ? components.slice(1) : components).some((c) => /[A-Z]/.test(c))) return '';
  return tag === '' && at < 0 ? 'latest' : tag;
}

function defaultHTTPGet(handler: JsonObject | undefined): void {
  const httpGet = handler && objectAt(handler, 'httpGet');
  if (!httpGet) return;
  setDefault(httpGet, 'path', '/');
  setDefault(httpGet, 'scheme', 'HTTP');
}

function defaultProbe(probe: JsonObject | undefined): void {
  if (!probe) return;
  setDefault(probe, 'timeoutSeconds', 1);
  setDefault(probe, 'periodSeconds', 10);
  setDefault(probe, 'successThreshold', 1);
  setDefault(probe, 'failureThreshold', 3);
  defaultHTTPGet(probe);
  const grpc = objectAt(probe, 'grpc');
  if (grpc && grpc.service === undefined) grpc.service = '';
}

/** SetDefaults_Container and the defaults of what a container holds. */
export function defaultContainer(container: JsonObject): void {
  if (container.imagePullPolicy === undefined || container.imagePullPolicy === '') {
    container.imagePullPolicy =
      imageTag(typeof container.image === 'string' ? container.image : '') === 'latest'
        ? 'Always'
        : 'IfNotPresent';
  }
  setDefault(container, 'terminationMessagePath', '/dev/termination-log');
  setDefault(container, 'terminationMessagePolicy', 'File');
  for (const port of objectsAt(container, 'ports')) setDefault(port, 'protocol', 'TCP');
  for (const env of objectsAt(container, 'env')) {
    const fieldRef = objectAt(objectAt(env, 'valueFrom') ?? {}, 'fieldRef');
    if (fieldRef) setDefault(fieldRef, 'apiVersion', 'v1');
  }
  for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe'])
    defaultProbe(objectAt(container, kind));
  const lifecycle = objectAt(container, 'lifecycle');
  if (lifecycle) for (const hook of ['postStart', 'preStop']) defaultHTTPGet(objectAt(lifecycle, hook));
}

const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
];

function defaultDownwardAPIItems(source: JsonObject): void {
  for (const item of objectsAt(source, 'items')) {
    const fieldRef = objectAt(item, 'fieldRef');
    if (fieldRef) setDefault(fieldRef, 'apiVersion', 'v1');
  }
}

/** SetDefaults_Volume and the per-source defaults of the generated defaulters. */
function defaultVolume(volume: JsonObject): void {
  if (!VOLUME_SOURCES.some((s) => volume[s] !== undefined && volume[s] !== null)) volume.emptyDir = {};
  const hostPath = objectAt(volume, 'hostPath');
  if (hostPath && hostPath.type === undefined) hostPath.type = '';
  for (const kind of ['secret', 'configMap']) {
    const source = objectAt(volume, kind);
    if (source) setDefault(source, 'defaultMode', DEFAULT_MODE);
  }
  const downwardAPI = objectAt(volume, 'downwardAPI');
  if (downwardAPI) {
    setDefault(downwardAPI, 'defaultMode', DEFAULT_MODE);
    defaultDownwardAPIItems(downwardAPI);
  }
  const projected = objectAt(volume, 'projected');
  if (projected) {
    setDefault(projected, 'defaultMode', DEFAULT_MODE);
    for (const source of objectsAt(projected, 'sources')) {
      const api = objectAt(source, 'downwardAPI');
      if (api) defaultDownwardAPIItems(api);
      const token = objectAt(source, 'serviceAccountToken');
      if (token) setDefault(token, 'expirationSeconds', 3600);
    }
  }
  const iscsi = objectAt(volume, 'iscsi');
  if (iscsi) setDefault(iscsi, 'iscsiInterface', 'default');
  const rbd = objectAt(volume, 'rbd');
  if (rbd) {
    setDefault(rbd, 'pool', 'rbd');
    setDefault(rbd, 'user', 'admin');
    setDefault(rbd, 'keyring', '/etc/ceph/keyring');
  }
  const azureDisk = objectAt(volume, 'azureDisk');
  if (azureDisk) {
    setDefault(azureDisk, 'cachingMode', 'ReadWrite');
    setDefault(azureDisk, 'fsType', 'ext4');
    setDefault(azureDisk, 'readOnly', false);
    setDefault(azureDisk, 'kind', 'Shared');
  }
  const scaleIO = objectAt(volume, 'scaleIO');
  if (scaleIO) {
    setDefault(scaleIO, 'storageMode', 'ThinProvisioned');
    setDefault(scaleIO, 'fsType', 'xfs');
  }
  const claimSpec = objectAt(
    objectAt(objectAt(volume, 'ephemeral') ?? {}, 'volumeClaimTemplate') ?? {},
    'spec',
  );
  if (claimSpec) setDefault(claimSpec, 'volumeMode', 'Filesystem');
}

/** SetDefaults_PodSpec and everything a pod spec contains. */
export function defaultPodSpec(spec: JsonObject): void {
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'restartPolicy', 'Always');
  if (spec.securityContext === undefined || spec.securityContext === null) spec.securityContext = {};
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'schedulerName', 'default-scheduler');
  for (const volume of objectsAt(spec, 'volumes')) defaultVolume(volume);
  for (const kind of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const container of objectsAt(spec, kind)) defaultContainer(container);
  }
}

/** Defaults of a PodTemplateSpec (Deployments, ReplicaSets, Jobs, CronJobs). */
export function defaultPodTemplate(owner: JsonObject, key = 'template'): void {
  const template = objectAt(owner, key);
  if (!template) return;
  defaultPodSpec(ensureObject(template, 'spec'));
}

/** SetDefaults_Pod: requests from limits, service links, host-network ports; then the spec. */
export function defaultPod(pod: JsonObject): void {
  const spec = ensureObject(pod, 'spec');
  for (const kind of ['containers', 'initContainers']) {
    for (const container of objectsAt(spec, kind)) {
      const resources = objectAt(container, 'resources');
      const limits = resources && objectAt(resources, 'limits');
      if (!resources || !limits) continue;
      const requests = ensureObject(resources, 'requests');
      for (const [name, value] of Object.entries(limits)) if (!(name in requests)) requests[name] = value;
    }
  }
  setDefault(spec, 'enableServiceLinks', true);
  if (spec.hostNetwork === true) {
    for (const kind of ['containers', 'initContainers']) {
      for (const container of objectsAt(spec, kind)) {
        for (const port of objectsAt(container, 'ports')) {
          if (port.hostPort === undefined || port.hostPort === 0) port.hostPort = port.containerPort;
        }
      }
    }
  }
  defaultPodSpec(spec);
}

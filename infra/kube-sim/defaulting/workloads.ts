/**
 * Defaults of the issue-16 workload kinds: apps/v1 StatefulSet and DaemonSet
 * (pkg/apis/apps/v1/defaults.go SetDefaults_StatefulSet, SetDefaults_DaemonSet, with the
 * StatefulSetAutoDeletePVC gate GA since 1.32 so persistentVolumeClaimRetentionPolicy is always
 * defaulted), the PVC defaults of volumeClaimTemplates (SetDefaults_PersistentVolumeClaimSpec),
 * and the port protocol of Endpoints and EndpointSlices (SetDefaults_EndpointPort,
 * pkg/apis/discovery/v1/defaults.go SetDefaults_EndpointPort).
 */
import { ensureObject, type JsonObject, objectsAt, setDefault } from './context.ts';
import { defaultPodTemplate } from './podspec.ts';

export function defaultStatefulSet(sts: JsonObject): void {
  const spec = ensureObject(sts, 'spec');
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = ensureObject(spec, 'updateStrategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') setDefault(ensureObject(strategy, 'rollingUpdate'), 'partition', 0);
  setDefault(spec, 'revisionHistoryLimit', 10);
  const retention = ensureObject(spec, 'persistentVolumeClaimRetentionPolicy');
  setDefault(retention, 'whenDeleted', 'Retain');
  setDefault(retention, 'whenScaled', 'Retain');
  for (const claim of objectsAt(spec, 'volumeClaimTemplates')) {
    // Templates are PVCs: TypeMeta is not defaulted, the spec is (volumeMode), status.phase Pending.
    setDefault(ensureObject(claim, 'spec'), 'volumeMode', 'Filesystem');
    setDefault(ensureObject(claim, 'status'), 'phase', 'Pending');
  }
  defaultPodTemplate(spec);
}

export function defaultDaemonSet(ds: JsonObject): void {
  const spec = ensureObject(ds, 'spec');
  const strategy = ensureObject(spec, 'updateStrategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rolling = ensureObject(strategy, 'rollingUpdate');
    setDefault(rolling, 'maxUnavailable', 1);
    // MaxSurge defaults to 0 (the DaemonSetUpdateSurge gate is GA).
    setDefault(rolling, 'maxSurge', 0);
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(spec);
}

export function defaultEndpoints(endpoints: JsonObject): void {
  for (const subset of objectsAt(endpoints, 'subsets'))
    for (const port of objectsAt(subset, 'ports')) setDefault(port, 'protocol', 'TCP');
}

export function defaultEndpointSlice(slice: JsonObject): void {
  for (const port of objectsAt(slice, 'ports')) {
    if (port.name === undefined || port.name === null) port.name = '';
    setDefault(port, 'protocol', 'TCP');
  }
}

/**
 * apps/v1 defaults (pkg/apis/apps/v1/defaults.go SetDefaults_Deployment, SetDefaults_ReplicaSet)
 * and the pod template defaults their generated defaulters apply.
 */
import { ensureObject, type JsonObject, setDefault } from './context.ts';
import { defaultPodTemplate } from './podspec.ts';

export function defaultDeployment(deployment: JsonObject): void {
  const spec = ensureObject(deployment, 'spec');
  setDefault(spec, 'replicas', 1);
  const strategy = ensureObject(spec, 'strategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rolling = ensureObject(strategy, 'rollingUpdate');
    setDefault(rolling, 'maxUnavailable', '25%');
    setDefault(rolling, 'maxSurge', '25%');
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplate(spec);
}

export function defaultReplicaSet(rs: JsonObject): void {
  const spec = ensureObject(rs, 'spec');
  setDefault(spec, 'replicas', 1);
  defaultPodTemplate(spec);
}

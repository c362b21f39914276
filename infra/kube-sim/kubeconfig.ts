/**
 * A kubeconfig for the simulator that the real clients accept. The simulator serves plain HTTP on
 * loopback: kubectl and helm take an http:// server as it is; @kubernetes/client-node 1.4 needs
 * `insecure-skip-tls-verify: true` on the cluster to accept one (see docs/kube-sim.md).
 */
import { stringify } from 'yaml';

export const SIM_CONTEXT = 'kube-sim';

/** `caPem`: the CA of an HTTPS simulator (auth/root-ca.ts), which clients then verify it with. */
export function kubeconfigYaml(server: string, namespace = 'default', caPem?: string): string {
  const cluster = caPem
    ? { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') }
    : { server, 'insecure-skip-tls-verify': true };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: SIM_CONTEXT, cluster }],
    users: [{ name: SIM_CONTEXT, user: { token: 'kube-sim' } }],
    contexts: [{ name: SIM_CONTEXT, context: { cluster: SIM_CONTEXT, user: SIM_CONTEXT, namespace } }],
    'current-context': SIM_CONTEXT,
    preferences: {},
  });
}

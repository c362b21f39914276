/**
 * The simulated cluster's Nodes as their kubelets register them (pkg/kubelet/kubelet_node_status.go
 * initialNode and the setters of pkg/kubelet/nodestatus): the well-known labels, capacity and
 * allocatable (cpu, memory, pods, ephemeral-storage), the four conditions with the kubelet's
 * reasons and messages, addresses, daemonEndpoints and nodeInfo. Names: `kube-sim-node` (the
 * one node kube-sim always had, which Pods name in spec.nodeName), then `kube-sim-node-2`, ….
 */
import { timestamp } from '../api/metadata.ts';
import { KUBERNETES_VERSION } from '../server/discovery-common.ts';
import type { KubeObject } from '../types.ts';

export const FIRST_NODE = 'kube-sim-node';

/** The name of the i-th node (1-based). */
export function nodeName(i: number): string {
  return i === 1 ? FIRST_NODE : `${FIRST_NODE}-${i}`;
}

/** Its ordinal, or undefined for a Node kube-sim did not register. */
export function nodeOrdinal(name: string): number | undefined {
  if (name === FIRST_NODE) return 1;
  const m = /^kube-sim-node-([1-9][0-9]*)$/.exec(name);
  return m && Number(m[1]) >= 2 ? Number(m[1]) : undefined;
}

/** The node's InternalIP: kind's nodes have 172.18.0.2, .3, … */
export function nodeInternalIP(i: number): string {
  return `172.18.0.${i + 1}`;
}

const condition = (type: string, status: string, reason: string, message: string, now: string) => ({
  type,
  status,
  lastHeartbeatTime: now,
  lastTransitionTime: now,
  reason,
  message,
});

export function nodeObject(i: number, now = new Date()): KubeObject {
  const name = nodeName(i);
  const at = timestamp(now);
  const resources = {
    cpu: '4',
    'ephemeral-storage': '102626232Ki',
    'hugepages-2Mi': '0',
    memory: '16384Mi',
    pods: '110',
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: {
      podCIDR: `10.244.${i - 1}.0/24`,
      podCIDRs: [`10.244.${i - 1}.0/24`],
      providerID: `kube-sim://${name}`,
    },
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [
        condition(
          'MemoryPressure',
          'False',
          'KubeletHasSufficientMemory',
          'kubelet has sufficient memory available',
          at,
        ),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure', at),
        condition(
          'PIDPressure',
          'False',
          'KubeletHasSufficientPID',
          'kubelet has sufficient PID available',
          at,
        ),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', at),
      ],
      addresses: [
        { type: 'InternalIP', address: nodeInternalIP(i) },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: `kube-sim-machine-${i}`,
        systemUUID: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
        bootID: `00000000-0000-0000-0001-${String(i).padStart(12, '0')}`,
        kernelVersion: '6.8.0-kube-sim',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        containerRuntimeVersion: 'containerd://2.0.3',
        kubeletVersion: KUBERNETES_VERSION.gitVersion,
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

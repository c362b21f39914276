/**
 * client-node's generic object API with its discovery lookup made public: the engine needs a
 * kind's plural and scope to build informer paths and to normalise namespaces, and
 * `KubernetesObjectApi.resource()` (cached per group-version) is protected.
 */
import * as k8s from '@kubernetes/client-node';

export class DiscoveringObjectApi extends k8s.KubernetesObjectApi {
  static forConfig(kc: k8s.KubeConfig): DiscoveringObjectApi {
    const api = kc.makeApiClient(DiscoveringObjectApi);
    api.setDefaultNamespace(kc);
    return api;
  }

  /** Plural name and scope of a kind, or undefined when the server does not serve it. */
  async discover(
    apiVersion: string,
    kind: string,
  ): Promise<{ plural: string; namespaced: boolean } | undefined> {
    const resource = await this.resource(apiVersion, kind);
    return resource ? { plural: resource.name, namespaced: resource.namespaced } : undefined;
  }
}

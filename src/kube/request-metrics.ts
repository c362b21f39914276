/**
 * Latency of every request the Kubernetes clients send (informers' watches aside: a watch lasts
 * as long as it is open), reported to one observer the worker installs (its Prometheus
 * histogram, src/workers/metrics.ts). The kube layer knows no metrics library: it measures around
 * client-node's HTTP library, which every generated and generic API client sends through.
 */
import * as k8s from '@kubernetes/client-node';
import { KeepAliveAgents } from './keep-alive-agents.ts';

export interface KubeRequest {
  /** The HTTP method: GET, POST, PUT, PATCH, DELETE. */
  verb: string;
  /** The response status, or `error` when none came (connection refused, reset, timeout). */
  code: string;
  seconds: number;
}

let observer: ((request: KubeRequest) => void) | undefined;

/** Reports each request of the clients made from then on; one observer per process. */
export function observeKubeRequests(fn: ((request: KubeRequest) => void) | undefined): void {
  observer = fn;
}

/** One process-wide set: every API client of the process shares its connections (keep-alive-agents.ts). */
const agents = new KeepAliveAgents();

class MeasuredHttpLibrary implements k8s.HttpLibrary {
  private readonly inner = new k8s.IsomorphicFetchHttpLibrary();

  send(request: k8s.RequestContext): k8s.Observable<k8s.ResponseContext> {
    const agent = request.getAgent();
    if (agent) request.setAgent(agents.reuse(agent));
    const started = process.hrtime.bigint();
    const verb = request.getHttpMethod().toString();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    const response = this.inner
      .send(request)
      .toPromise()
      .then(
        (r) => {
          observer?.({ verb, code: String(r.httpStatusCode), seconds: seconds() });
          return r;
        },
        (err: unknown) => {
          observer?.({ verb, code: 'error', seconds: seconds() });
          throw err;
        },
      );
    return new k8s.Observable(response);
  }
}

/** A KubeConfig whose API clients send through the measured HTTP library; otherwise client-node's own. */
export class MeasuredKubeConfig extends k8s.KubeConfig {
  override makeApiClient<T extends k8s.ApiType>(apiClientType: k8s.ApiConstructor<T>): T {
    const cluster = this.getCurrentCluster();
    if (!cluster) throw new Error('No active cluster!');
    const configuration = k8s.createConfiguration({
      baseServer: new k8s.ServerConfiguration(cluster.server, {}),
      authMethods: { default: this },
      httpApi: new MeasuredHttpLibrary(),
    });
    return new apiClientType(configuration);
  }
}

/**
 * One Ingress per domain (Dokku's per-domain method), all routing `/` to the web Service's primary
 * port. TLS is cert-manager's: the issuer annotation makes it issue a certificate into the named
 * Secret, one per domain so adding a domain never re-issues the others.
 */

import type { PortMap } from '../../rules/port-maps.ts';
import { processLabels } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import { ingressName } from '../names.ts';
import { mergeUnder } from '../records.ts';
import type { RenderedObject } from '../types.ts';
import { type AppContext, WEB_PROCESS } from './context.ts';
import { webServiceName } from './service.ts';
import { annotationsFor, labelsFor } from './user-metadata.ts';
import type { AppChartValues } from './values.ts';

/** Ingress name per domain: `{app}-web-{slug}-{hash of app and domain}` (charts/names.ts). */
export function ingressNames(app: string, domains: readonly string[]): Map<string, string> {
  return new Map([...new Set(domains)].sort().map((d) => [d, ingressName(app, d)]));
}

/** Annotations the chart sets for TLS and gRPC backends, per ingress controller. */
function controllerAnnotations(values: AppChartValues, primary: PortMap): Record<string, string> {
  const annotations: Record<string, string> = {};
  if (values.tls) {
    const key =
      values.tls.issuerKind === 'ClusterIssuer' ? 'cert-manager.io/cluster-issuer' : 'cert-manager.io/issuer';
    annotations[key] = values.tls.issuer;
    if (values.ingressClass === 'nginx')
      annotations['nginx.ingress.kubernetes.io/force-ssl-redirect'] = 'true';
    else annotations['traefik.ingress.kubernetes.io/router.tls'] = 'true';
  }
  // nginx proxies HTTP/1.1 unless told the backend speaks gRPC.
  if (values.ingressClass === 'nginx' && (primary.scheme === 'grpc' || primary.scheme === 'grpcs')) {
    annotations['nginx.ingress.kubernetes.io/backend-protocol'] = primary.scheme.toUpperCase();
  }
  return annotations;
}

/** Ingresses by domain, or none without a web process, a domain or a routable port map. */
export function ingresses(ctx: AppContext): RenderedObject[] {
  const { values, primary } = ctx;
  if (!ctx.hasWeb || primary === undefined) return [];
  const labels = processLabels(values.app, WEB_PROCESS, labelsFor(values, 'ingress', WEB_PROCESS));
  const annotations = mergeUnder(
    controllerAnnotations(values, primary),
    annotationsFor(values, 'ingress', WEB_PROCESS),
  );
  return [...ingressNames(values.app, values.domains)].map(([host, name]) => {
    const spec: Record<string, unknown> = { ingressClassName: values.ingressClass };
    // Unique because the Ingress name is, and within a DNS label (INGRESS_NAME_MAX).
    if (values.tls) spec.tls = [{ hosts: [host], secretName: `${name}-tls` }];
    spec.rules = [
      {
        host,
        http: {
          paths: [
            {
              path: '/',
              pathType: 'Prefix',
              backend: { service: { name: webServiceName(values.app), port: { number: primary.host } } },
            },
          ],
        },
      },
    ];
    return {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: objectMeta(name, values.namespace, labels, annotations),
      spec,
    };
  });
}

/**
 * One Ingress per domain (Dokku's per-domain method), all routing `/` to the web Service's primary
 * port. TLS is cert-manager's: the issuer annotation makes it issue a certificate into the named
 * Secret, one per domain so adding a domain never re-issues the others.
 */
import { processLabels } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import { DNS_LABEL_MAX, domainSlug, fitName, shortHash } from '../names.ts';
import { mergeUnder } from '../records.ts';
import type { RenderedObject } from '../types.ts';
import { type AppContext, WEB_PROCESS } from './context.ts';
import type { PortMap } from './ports.ts';
import { webServiceName } from './service.ts';
import type { AppChartValues } from './values.ts';

/**
 * Ingress name per domain: `{app}-web-{slug}`, fitted to 63. Slugs are not unique (`a-b.com`,
 * `a.b.com`, `wildcard.x.com` and `*.x.com` meet), so domains sharing a slug each get a hash of
 * the domain appended; a domain whose slug is its own keeps the plain, readable name.
 */
export function ingressNames(app: string, domains: readonly string[]): Map<string, string> {
  const distinct = [...new Set(domains)].sort();
  const slugCount = new Map<string, number>();
  for (const d of distinct) slugCount.set(domainSlug(d), (slugCount.get(domainSlug(d)) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const d of distinct) {
    const slug = domainSlug(d);
    const base = `${app}-${WEB_PROCESS}-${slug}`;
    names.set(d, fitName(slugCount.get(slug)! > 1 ? `${base}-${shortHash(d)}` : base, DNS_LABEL_MAX));
  }
  return names;
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
  const labels = processLabels(values.app, WEB_PROCESS, values.labels);
  const annotations = mergeUnder(controllerAnnotations(values, primary), values.annotations);
  return [...ingressNames(values.app, values.domains)].map(([host, name]) => {
    const spec: Record<string, unknown> = { ingressClassName: values.ingressClass };
    if (values.tls) spec.tls = [{ hosts: [host], secretName: fitName(`${name}-tls`, DNS_LABEL_MAX) }];
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

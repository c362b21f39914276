/** The web Service: one port per port map, so tcp/udp maps are reachable in-cluster too. */
import { processLabels, processSelector } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import { DNS_LABEL_MAX, fitName } from '../names.ts';
import type { RenderedObject } from '../types.ts';
import { type AppContext, WEB_PROCESS } from './context.ts';
import { protocolOf } from './ports.ts';
import { annotationsFor, labelsFor } from './user-metadata.ts';

export function webServiceName(app: string): string {
  return fitName(`${app}-${WEB_PROCESS}`, DNS_LABEL_MAX);
}

/** The Service, or undefined without a web process or without port maps. */
export function webService(ctx: AppContext): RenderedObject | undefined {
  const { values } = ctx;
  if (!ctx.hasWeb || ctx.portMaps.length === 0) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: objectMeta(
      webServiceName(values.app),
      values.namespace,
      processLabels(values.app, WEB_PROCESS, labelsFor(values, 'service', WEB_PROCESS)),
      annotationsFor(values, 'service', WEB_PROCESS),
    ),
    spec: {
      type: 'ClusterIP',
      selector: processSelector(values.app, WEB_PROCESS),
      // Canonical map order; names are unique because maps are distinct and ≤ 19 characters.
      ports: ctx.portMaps.map((m) => ({
        name: `${m.scheme}-${m.host}-${m.container}`,
        port: m.host,
        targetPort: m.container,
        protocol: protocolOf(m),
      })),
    },
  };
}

/**
 * What several objects of the app chart derive from the values, computed once per render: the
 * port maps in canonical order, the primary map and the port the app listens on.
 */
import type { PortMap } from '../../rules/port-maps.ts';
import { primaryPortMap, sortedPortMaps, webContainerPort } from './ports.ts';
import type { AppChartValues } from './values.ts';

export const WEB_PROCESS = 'web';

export interface AppContext {
  values: AppChartValues;
  /** Distinct port maps, canonical order. */
  portMaps: PortMap[];
  /** The map Ingresses route to, if any map is routable. */
  primary: PortMap | undefined;
  /** Every process's PORT, and the default port of its probes. */
  port: number;
  /** Whether a `web` process exists: only it gets ports, a Service and Ingresses. */
  hasWeb: boolean;
}

export function appContext(values: AppChartValues): AppContext {
  const portMaps = sortedPortMaps(values.ports);
  return {
    values,
    portMaps,
    primary: primaryPortMap(portMaps),
    port: webContainerPort(portMaps),
    hasWeb: Object.hasOwn(values.processes, WEB_PROCESS),
  };
}

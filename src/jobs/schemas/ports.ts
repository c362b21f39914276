import type { z } from 'zod';
import { defineContract } from '../contract.ts';
import { portMap } from './common.ts';
import { listChangePayload } from './list-change.ts';

export const portsPayload = listChangePayload('ports', portMap, 'port map', 50);

export type PortsPayload = z.infer<typeof portsPayload>;

export const portsContract = defineContract<PortsPayload>({
  type: 'ports',
  summary: "Add, remove, set or clear an app's port maps (scheme:host:container)",
  payload: portsPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `ports ${p.action} ${p.app} ${p.ports.join(' ')}`.trim(),
});

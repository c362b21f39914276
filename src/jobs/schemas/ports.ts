import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName, portMap } from './common.ts';

export const portsPayload = z
  .object({
    app: appName,
    action: z.enum(['add', 'remove', 'set', 'clear']),
    ports: z.array(portMap).max(50, 'must name at most 50 port maps').default([]),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.action === 'clear' && p.ports.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['ports'], message: 'clear takes no port maps' });
    }
    if ((p.action === 'add' || p.action === 'remove') && p.ports.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['ports'],
        message: `name at least one port map to ${p.action} (e.g. http:80:5000)`,
      });
    }
  });

export type PortsPayload = z.infer<typeof portsPayload>;

export const portsContract = defineContract<PortsPayload>({
  type: 'ports',
  summary: "Add, remove, set or clear an app's port maps (scheme:host:container)",
  payload: portsPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `ports ${p.action} ${p.app} ${p.ports.join(' ')}`.trim(),
});

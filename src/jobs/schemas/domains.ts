import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName, domainName } from './common.ts';

export const domainsPayload = z
  .object({
    app: appName,
    action: z.enum(['add', 'remove', 'set', 'clear']),
    domains: z.array(domainName).max(100, 'must name at most 100 domains').default([]),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.action === 'clear' && p.domains.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['domains'], message: 'clear takes no domains' });
    }
    if ((p.action === 'add' || p.action === 'remove') && p.domains.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['domains'], message: `name at least one domain to ${p.action}` });
    }
  });

export type DomainsPayload = z.infer<typeof domainsPayload>;

export const domainsContract = defineContract<DomainsPayload>({
  type: 'domains',
  summary: "Add, remove, set or clear an app's domains (one Ingress per domain)",
  payload: domainsPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `domains ${p.action} ${p.app} ${p.domains.join(' ')}`.trim(),
});

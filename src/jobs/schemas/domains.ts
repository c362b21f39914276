import type { z } from 'zod';
import { defineContract } from '../contract.ts';
import { domainName } from './common.ts';
import { listChangePayload } from './list-change.ts';

export const domainsPayload = listChangePayload('domains', domainName, 'domain', 100);

export type DomainsPayload = z.infer<typeof domainsPayload>;

export const domainsContract = defineContract<DomainsPayload>({
  type: 'domains',
  summary: "Add, remove, set or clear an app's domains (one Ingress per domain)",
  payload: domainsPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `domains ${p.action} ${p.app} ${p.domains.join(' ')}`.trim(),
});

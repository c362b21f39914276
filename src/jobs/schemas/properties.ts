import { z } from 'zod';
import { userAnnotations, userLabels } from '../../../rules/labels.ts';
import { dns1123Subdomain } from '../../../rules/name-schemas.ts';
import { defineContract } from '../contract.ts';
import { appName, namespaceName } from './common.ts';

/** App properties (Dokku's `scheduler-k3s:set`). `null` resets a property to its default. */
export const propertyValues = z
  .object({
    namespace: namespaceName.nullable(),
    deployTimeoutSeconds: z.number().int().min(1).max(3600).nullable(),
    /** How long the release task (Procfile `release`) may run: its Job's activeDeadlineSeconds. */
    releaseTimeoutSeconds: z.number().int().min(1).max(86_400).nullable(),
    rollbackOnFailure: z.boolean().nullable(),
    /** A Secret's name. */
    imagePullSecrets: dns1123Subdomain().nullable(),
    ingressClass: z.enum(['nginx', 'traefik']).nullable(),
    /** A cert-manager Issuer's or ClusterIssuer's name. */
    tlsIssuer: dns1123Subdomain().nullable(),
    tlsIssuerKind: z.enum(['Issuer', 'ClusterIssuer']).nullable(),
    labels: userLabels.nullable(),
    annotations: userAnnotations.nullable(),
  })
  .partial()
  .strict();

export type PropertyValues = z.infer<typeof propertyValues>;

export const propertiesPayload = z
  .object({
    app: appName,
    set: propertyValues.refine((s) => Object.keys(s).length > 0, 'set at least one property'),
  })
  .strict();

export type PropertiesPayload = z.infer<typeof propertiesPayload>;

/**
 * Property names as typed on the command line (`properties:set APP deploy-timeout 600`) and how a
 * string becomes the payload value. Validation of the value itself stays in `propertyValues`.
 */
export const PROPERTY_NAMES = {
  namespace: { field: 'namespace', parse: (v: string) => v },
  'deploy-timeout': {
    field: 'deployTimeoutSeconds',
    parse: (v: string) => (/^\d+$/.test(v) ? Number(v) : v),
  },
  'release-timeout': {
    field: 'releaseTimeoutSeconds',
    parse: (v: string) => (/^\d+$/.test(v) ? Number(v) : v),
  },
  'rollback-on-failure': {
    field: 'rollbackOnFailure',
    parse: (v: string) => (v === 'true' ? true : v === 'false' ? false : v),
  },
  'image-pull-secrets': { field: 'imagePullSecrets', parse: (v: string) => v },
  'ingress-class': { field: 'ingressClass', parse: (v: string) => v },
  'tls-issuer': { field: 'tlsIssuer', parse: (v: string) => v },
  'tls-issuer-kind': { field: 'tlsIssuerKind', parse: (v: string) => v },
  labels: { field: 'labels', parse: parseJsonObject },
  annotations: { field: 'annotations', parse: parseJsonObject },
} as const satisfies Record<string, { field: keyof PropertyValues; parse: (v: string) => unknown }>;

export type PropertyName = keyof typeof PROPERTY_NAMES;

function parseJsonObject(v: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export const propertiesContract = defineContract<PropertiesPayload>({
  type: 'properties',
  summary: 'Set or reset app properties (namespace, deploy timeout, rollback on failure…)',
  payload: propertiesPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `properties ${p.app} ${Object.keys(p.set).join(',')}`,
});

/**
 * Upstream Kubernetes schemas for rendered objects: kubernetes-models' OpenAPI validators (types,
 * required fields, formats) plus the declared-field walk kube-sim uses for fieldValidation=Strict
 * (the validators accept unknown fields, so a misspelt field would otherwise pass).
 */

import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { CronJob, Job } from 'kubernetes-models/batch/v1';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import {
  PersistentVolume,
  PersistentVolumeClaim,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-models/v1';
import type { RenderedObject } from '../../../charts/index.ts';
import { unknownFields } from '../../../infra/kube-sim/schema/known-fields.ts';

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/CronJob': CronJob,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'v1/PersistentVolume': PersistentVolume,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
};

/** Throws with the object's identity and the schema's complaint when `object` is not valid. */
export function validateObject(object: RenderedObject): void {
  const id = `${object.apiVersion}/${object.kind}`;
  const Model = MODELS[id];
  if (!Model) throw new Error(`no schema for ${id}`);
  try {
    new Model(structuredClone(object) as never).validate();
  } catch (err) {
    throw new Error(`${id} ${object.metadata.name}: ${(err as Error).message}`);
  }
  const [group, version] = object.apiVersion.includes('/')
    ? (object.apiVersion.split('/', 2) as [string, string])
    : ['', object.apiVersion];
  const unknown = unknownFields({ group, version, kind: object.kind }, object);
  if (unknown.length > 0)
    throw new Error(`${id} ${object.metadata.name}: unknown fields ${unknown.join(', ')}`);
}

/**
 * How the simulator's controllers talk to the API service: the same verbs clients use (so
 * deletion, finalizers, validation and watch events behave the same), without HTTP.
 */
import type { ApiService } from '../api/service.ts';
import { typeKey } from '../api/service.ts';
import { findByKind, type ResourceType } from '../resources.ts';
import type { KubeObject } from '../types.ts';

export class SimClient {
  constructor(
    readonly service: ApiService,
    private readonly manager: string,
  ) {}

  private request(
    type: ResourceType,
    namespace: string | undefined,
    name: string | undefined,
    subresource?: string,
  ) {
    return {
      type,
      ...(namespace !== undefined && type.namespaced ? { namespace } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(subresource ? { subresource } : {}),
      query: new URLSearchParams({ fieldManager: this.manager }),
      userAgent: `${this.manager}/sim`,
      warnings: [],
    };
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.service.store.get(typeKey(type), type.namespaced ? namespace : undefined, name);
  }

  update(type: ResourceType, object: KubeObject, subresource?: string): KubeObject {
    return this.service.update(
      this.request(type, object.metadata.namespace, object.metadata.name, subresource),
      object,
    );
  }

  create(type: ResourceType, object: KubeObject): KubeObject {
    return this.service.create(this.request(type, object.metadata.namespace, undefined), object);
  }

  delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    propagationPolicy: 'Background' | 'Foreground' | 'Orphan' = 'Background',
    gracePeriodSeconds?: number,
  ): void {
    this.service.delete(this.request(type, namespace, name), {
      propagationPolicy,
      ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}),
    });
  }
}

export function typeOf(object: KubeObject): ResourceType | undefined {
  return findByKind(object.apiVersion, object.kind);
}

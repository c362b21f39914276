/**
 * What defaulting may need from the server, and small helpers shared by the per-kind defaulters.
 */
import { isPlainObject, type KubeObject } from '../types.ts';

export interface DefaultingContext {
  /** Next free address of the service CIDR, for Services that need a clusterIP. */
  allocateClusterIP(): string;
  /** Next free node port; without it NodePort/LoadBalancer ports keep `nodePort` unset. */
  allocateNodePort?(): number;
  /**
   * The stored object, on updates. Services then keep their allocated clusterIPs and node ports
   * when the new object omits them (upstream's patchAllocatedValues), Namespaces their finalizers.
   */
  old?: KubeObject;
  /** Clock for server-set timestamps (PersistentVolume status); defaults to now. */
  now?(): Date;
}

export type JsonObject = Record<string, unknown>;

/** Sets `key` when it is absent or null (a nil pointer / empty string is what Go defaulting fills). */
export function setDefault(target: JsonObject, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null || target[key] === '') target[key] = value;
}

/** The object at `target[key]`, created when absent, for nested defaults. */
export function ensureObject(target: JsonObject, key: string): JsonObject {
  const value = target[key];
  if (isPlainObject(value)) return value;
  const created: JsonObject = {};
  target[key] = created;
  return created;
}

/** The object at `target[key]` if there is one. */
export function objectAt(target: JsonObject, key: string): JsonObject | undefined {
  const value = target[key];
  return isPlainObject(value) ? value : undefined;
}

/** The objects of the list at `target[key]`. */
export function objectsAt(target: JsonObject, key: string): JsonObject[] {
  const value = target[key];
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/** RFC 3339 with seconds, as metav1.Time serializes. */
export function timestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

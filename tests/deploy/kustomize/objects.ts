/**
 * Kubernetes objects as plain data, and the few accessors the renderer and the checks share. The
 * objects come from YAML, so everything below `metadata` is typed loosely and read defensively.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    [key: string]: Json | undefined;
  };
  [key: string]: Json | undefined | K8sObject['metadata'];
}

/** True for a JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of plain data. */
export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** "Deployment/lookup" or "Deployment/tix/lookup": how problems name an object. */
export function objectRef(object: K8sObject): string {
  const namespace = object.metadata.namespace ? `${object.metadata.namespace}/` : '';
  return `${object.kind}/${namespace}${object.metadata.name}`;
}

/** Parses every YAML document of `file` into Kubernetes objects; throws on a non-object document. */
export function readObjects(file: string): K8sObject[] {
  const documents = parseAllDocuments(readFileSync(file, 'utf8'));
  const objects: K8sObject[] = [];
  for (const document of documents) {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    if (!isObject(value) || typeof value.kind !== 'string' || !isObject(value.metadata)) {
      throw new Error(`${file}: a document is not a Kubernetes object (kind and metadata)`);
    }
    if (typeof value.metadata.name !== 'string')
      throw new Error(`${file}: a ${value.kind} has no metadata.name`);
    objects.push(value as unknown as K8sObject);
  }
  return objects;
}

/** The value at `path` (property names and array indexes), or undefined. */
export function get(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof key === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[key];
    } else {
      if (!isObject(current)) return undefined;
      current = current[key];
    }
  }
  return current;
}

/** Kinds that hold a pod template, with the path to it. */
export const POD_TEMPLATE_PATHS: Record<string, string[]> = {
  Deployment: ['spec', 'template'],
  StatefulSet: ['spec', 'template'],
  DaemonSet: ['spec', 'template'],
  ReplicaSet: ['spec', 'template'],
  Job: ['spec', 'template'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template'],
};

/** The pod template of a workload, or undefined for other kinds. */
export function podTemplate(object: K8sObject): JsonObject | undefined {
  const path = POD_TEMPLATE_PATHS[object.kind];
  if (!path) return undefined;
  const template = get(object, ...path);
  return isObject(template) ? template : undefined;
}

/** The containers and init containers of a pod spec. */
export function containersOf(podSpec: unknown): JsonObject[] {
  const all = [
    ...((get(podSpec, 'initContainers') as Json[] | undefined) ?? []),
    ...((get(podSpec, 'containers') as Json[] | undefined) ?? []),
  ];
  return all.filter(isObject);
}

/** Kinds that live outside namespaces (the namespace transformer leaves them alone). */
export const CLUSTER_SCOPED_KINDS = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'IngressClass',
  'PersistentVolume',
  'PriorityClass',
  'StorageClass',
]);

/** A value as message text: strings as they are, anything else as JSON. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? 'undefined' : JSON.stringify(value);
}

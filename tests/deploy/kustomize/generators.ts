/**
 * configMapGenerator (create, merge, replace; env files and literals) and, at the end of a build,
 * kustomize's content-hash name suffix with every pod-spec reference to the ConfigMap following it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { configMapHash } from './config-map-hash.js';
import { addResource, type Kustomization, type Resource } from './kustomization.js';
import {
  containersOf,
  get,
  isObject,
  podTemplate,
  type Json,
  type JsonObject,
  type K8sObject,
} from './objects.js';

function parseEnvLines(text: string, origin: string): [string, string][] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const equals = line.indexOf('=');
      if (equals <= 0) throw new Error(`${origin}: expected KEY=VALUE, got ${JSON.stringify(line)}`);
      return [line.slice(0, equals), line.slice(equals + 1)];
    });
}

/** Creates, merges into or replaces the generated ConfigMaps of one kustomization. */
export function runConfigMapGenerators(
  dir: string,
  kustomization: Kustomization,
  resources: Resource[],
): void {
  for (const generator of kustomization.configMapGenerator ?? []) {
    const data: Record<string, string> = {};
    for (const envFile of generator.envs ?? []) {
      for (const [key, value] of parseEnvLines(readFileSync(path.join(dir, envFile), 'utf8'), envFile)) {
        data[key] = value;
      }
    }
    for (const [key, value] of parseEnvLines(
      (generator.literals ?? []).join('\n'),
      `${generator.name} literals`,
    )) {
      data[key] = value;
    }
    const behavior = generator.behavior ?? 'create';
    const existing = resources.find(
      (resource) =>
        resource.generated &&
        resource.object.kind === 'ConfigMap' &&
        resource.object.metadata.name === generator.name,
    );
    if (behavior === 'create') {
      const object: K8sObject = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: generator.name },
        data,
      };
      if (generator.namespace) object.metadata.namespace = generator.namespace;
      addResource(
        resources,
        { object, generated: true, hashSuffix: !kustomization.generatorOptions?.disableNameSuffixHash },
        dir,
      );
    } else {
      if (!existing)
        throw new Error(
          `${dir}: configMapGenerator ${generator.name} (${behavior}) has nothing to ${behavior}`,
        );
      existing.object.data =
        behavior === 'merge' ? { ...(existing.object.data as JsonObject), ...data } : data;
    }
  }
}

function configMapReferences(podSpec: unknown): [JsonObject, string][] {
  const references: [JsonObject, string][] = [];
  for (const container of containersOf(podSpec)) {
    for (const source of (container.envFrom as Json[] | undefined) ?? []) {
      const ref = get(source, 'configMapRef');
      if (isObject(ref)) references.push([ref, 'name']);
    }
    for (const variable of (container.env as Json[] | undefined) ?? []) {
      const ref = get(variable, 'valueFrom', 'configMapKeyRef');
      if (isObject(ref)) references.push([ref, 'name']);
    }
  }
  for (const volume of (get(podSpec, 'volumes') as Json[] | undefined) ?? []) {
    const ref = get(volume, 'configMap');
    if (isObject(ref)) references.push([ref, 'name']);
    for (const source of (get(volume, 'projected', 'sources') as Json[] | undefined) ?? []) {
      const projected = get(source, 'configMap');
      if (isObject(projected)) references.push([projected, 'name']);
    }
  }
  return references;
}

/** Appends the hash suffix to every generated ConfigMap and renames the references to it. */
export function applyHashSuffixes(resources: Resource[]): void {
  for (const resource of resources.filter((item) => item.hashSuffix)) {
    const { object } = resource;
    const original = object.metadata.name;
    const hashed = `${original}-${configMapHash({ name: original, data: object.data as Json, binaryData: object.binaryData as Json })}`;
    object.metadata.name = hashed;
    resource.hashSuffix = false;
    for (const other of resources) {
      if ((other.object.metadata.namespace ?? '') !== (object.metadata.namespace ?? '')) continue;
      for (const [holder, property] of configMapReferences(podTemplate(other.object)?.spec)) {
        if (holder[property] === original) holder[property] = hashed;
      }
    }
  }
}

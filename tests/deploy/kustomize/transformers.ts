/**
 * The transformers of one kustomization, applied in kustomize's order by render.ts: strategic-merge
 * patches, namespace, labels (metadata and pod templates, never selectors) and images.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { Kustomization, PatchEntry, Resource } from './kustomization.js';
import {
  CLUSTER_SCOPED_KINDS,
  clone,
  containersOf,
  get,
  isObject,
  podTemplate,
  readObjects,
  type Json,
  type JsonObject,
  type K8sObject,
} from './objects.js';
import { strategicMerge } from './strategic-merge.js';

function loadPatches(dir: string, entry: PatchEntry): JsonObject[] {
  const text = entry.path ? readFileSync(path.join(dir, entry.path), 'utf8') : entry.patch;
  if (text === undefined) throw new Error(`${dir}: a patch needs path or patch`);
  const origin = entry.path ?? 'inline patch';
  const documents = entry.path ? readObjects(path.join(dir, entry.path)) : [parse(text) as unknown];
  return documents.map((document) => {
    if (Array.isArray(document)) throw new Error(`${dir}/${origin}: JSON 6902 patches are not supported`);
    if (!isObject(document)) throw new Error(`${dir}/${origin}: a patch must be a mapping`);
    return document;
  });
}

/** Applies each strategic-merge patch to its targets; throws when a patch matches nothing. */
export function runPatches(dir: string, kustomization: Kustomization, resources: Resource[]): void {
  for (const entry of kustomization.patches ?? []) {
    for (const patch of loadPatches(dir, entry)) {
      const kind = entry.target?.kind ?? (patch.kind as string | undefined);
      const name = entry.target?.name ?? (get(patch, 'metadata', 'name') as string | undefined);
      const namespace =
        entry.target?.namespace ?? (get(patch, 'metadata', 'namespace') as string | undefined);
      const targets = resources.filter(
        (resource) =>
          (kind === undefined || resource.object.kind === kind) &&
          (name === undefined || resource.object.metadata.name === name) &&
          (namespace === undefined || resource.object.metadata.namespace === namespace),
      );
      if (targets.length === 0) {
        throw new Error(`${dir}: patch ${entry.path ?? ''} matches nothing (${kind ?? '*'}/${name ?? '*'})`);
      }
      for (const target of targets) {
        const body = clone(patch);
        if (isObject(body.metadata)) delete body.metadata.name;
        target.object = strategicMerge(target.object as unknown as Json, body) as unknown as K8sObject;
      }
    }
  }
}

/** Sets the namespace of every namespaced object. */
export function runNamespace(kustomization: Kustomization, resources: Resource[]): void {
  if (!kustomization.namespace) return;
  for (const resource of resources) {
    if (!CLUSTER_SCOPED_KINDS.has(resource.object.kind))
      resource.object.metadata.namespace = kustomization.namespace;
  }
}

/** Adds the label pairs to every object and, with includeTemplates, to pod templates. */
export function runLabels(dir: string, kustomization: Kustomization, resources: Resource[]): void {
  for (const entry of kustomization.labels ?? []) {
    if (entry.includeSelectors) {
      throw new Error(
        `${dir}: labels with includeSelectors are not supported (selectors are immutable; keep them stable)`,
      );
    }
    for (const resource of resources) {
      resource.object.metadata.labels = { ...resource.object.metadata.labels, ...entry.pairs };
      const template = podTemplate(resource.object);
      if (entry.includeTemplates && template) {
        const metadata = isObject(template.metadata) ? template.metadata : (template.metadata = {});
        metadata.labels = { ...(isObject(metadata.labels) ? metadata.labels : {}), ...entry.pairs };
      }
    }
  }
}

/** Splits "registry:5000/team/app:1.2@sha256:..." into name, tag and digest. */
export function parseImage(image: string): { name: string; tag?: string; digest?: string } {
  const [withoutDigest, digest] = image.split('@') as [string, string | undefined];
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  if (colon > lastSlash) {
    return {
      name: withoutDigest.slice(0, colon),
      tag: withoutDigest.slice(colon + 1),
      ...(digest ? { digest } : {}),
    };
  }
  return { name: withoutDigest, ...(digest ? { digest } : {}) };
}

/** Rewrites container images by name: new name, new tag or digest. */
export function runImages(kustomization: Kustomization, resources: Resource[]): void {
  for (const rule of kustomization.images ?? []) {
    for (const resource of resources) {
      for (const container of containersOf(podTemplate(resource.object)?.spec)) {
        if (typeof container.image !== 'string') continue;
        const image = parseImage(container.image);
        if (image.name !== rule.name) continue;
        const name = rule.newName ?? image.name;
        if (rule.digest) container.image = `${name}@${rule.digest}`;
        else if (rule.newTag) container.image = `${name}:${rule.newTag}`;
        else
          container.image = `${name}${image.tag ? `:${image.tag}` : ''}${image.digest ? `@${image.digest}` : ''}`;
      }
    }
  }
}

/** Every place a pod spec names a ConfigMap, as [holder, property] pairs that can be rewritten. */

/**
 * A renderer for the part of kustomize that k8s/ uses, so the overlays can be built and checked on
 * machines without kustomize or kubectl. Supported, in kustomize's order within one kustomization:
 * resources (files and kustomization folders) -> components -> configMapGenerator (create, merge,
 * replace; literals and env files) -> patches (strategic merge, by kind and name or `target`) ->
 * namespace -> labels (metadata and pod templates; not selectors) -> images (newName, newTag,
 * digest); at the end, generated ConfigMaps get kustomize's content-hash suffix and every
 * reference to them follows. Anything else in a kustomization is refused with an error instead of
 * being silently ignored, so the checks never pass on a build kustomize would do differently.
 */ import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { applyHashSuffixes, runConfigMapGenerators } from './generators.js';
import { addResource, readKustomization, type Resource } from './kustomization.js';
import { readObjects, type K8sObject } from './objects.js';
import { runImages, runLabels, runNamespace, runPatches } from './transformers.js';

export { parseImage } from './transformers.js';
export { readKustomization } from './kustomization.js';

function applyKustomization(
  dir: string,
  inherited: Resource[],
  expectedKind: 'Kustomization' | 'Component',
): Resource[] {
  const kustomization = readKustomization(dir);
  const kind = kustomization.kind ?? 'Kustomization';
  if (kind !== expectedKind) throw new Error(`${dir}: expected a ${expectedKind}, found a ${kind}`);
  const resources = inherited;
  for (const entry of kustomization.resources ?? []) {
    const target = path.resolve(dir, entry);
    if (!existsSync(target)) throw new Error(`${dir}: resource ${entry} does not exist`);
    if (statSync(target).isDirectory()) {
      for (const resource of applyKustomization(target, [], 'Kustomization'))
        addResource(resources, resource, dir);
    } else {
      for (const object of readObjects(target))
        addResource(resources, { object, generated: false, hashSuffix: false }, dir);
    }
  }
  for (const entry of kustomization.components ?? [])
    applyKustomization(path.resolve(dir, entry), resources, 'Component');
  runConfigMapGenerators(dir, kustomization, resources);
  runPatches(dir, kustomization, resources);
  runNamespace(kustomization, resources);
  runLabels(dir, kustomization, resources);
  runImages(kustomization, resources);
  return resources;
}

/** Builds the kustomization in `dir` like `kustomize build dir` (for the subset described above). */
export function renderKustomization(dir: string): K8sObject[] {
  const resources = applyKustomization(path.resolve(dir), [], 'Kustomization');
  applyHashSuffixes(resources);
  return resources.map((resource) => resource.object);
}

/**
 * The kustomization file as this renderer understands it: the fields it implements (anything else
 * is refused when read), and the build's unit, a Resource, with the objects-defined-once rule.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { isObject, objectRef, type K8sObject } from './objects.js';

export interface LabelsEntry {
  pairs: Record<string, string>;
  includeSelectors?: boolean;
  includeTemplates?: boolean;
}

export interface ImageEntry {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

export interface PatchEntry {
  path?: string;
  patch?: string;
  target?: { kind?: string; name?: string; namespace?: string };
}

export interface ConfigMapGeneratorEntry {
  name: string;
  namespace?: string;
  behavior?: 'create' | 'merge' | 'replace';
  literals?: string[];
  envs?: string[];
}

export interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  components?: string[];
  namespace?: string;
  labels?: LabelsEntry[];
  images?: ImageEntry[];
  patches?: PatchEntry[];
  configMapGenerator?: ConfigMapGeneratorEntry[];
  generatorOptions?: { disableNameSuffixHash?: boolean };
}

const SUPPORTED_FIELDS = new Set([
  'apiVersion',
  'kind',
  'resources',
  'components',
  'namespace',
  'labels',
  'images',
  'patches',
  'configMapGenerator',
  'generatorOptions',
]);

/** One object of the build, and whether it is a generated ConfigMap awaiting its hash suffix. */
export interface Resource {
  object: K8sObject;
  generated: boolean;
  hashSuffix: boolean;
}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** Reads the kustomization file of `dir`, refusing fields this renderer does not implement. */
export function readKustomization(dir: string): Kustomization {
  const file = KUSTOMIZATION_FILES.map((name) => path.join(dir, name)).find((candidate) =>
    existsSync(candidate),
  );
  if (!file) throw new Error(`${dir}: no kustomization.yaml`);
  const value: unknown = parse(readFileSync(file, 'utf8'));
  if (!isObject(value)) throw new Error(`${file}: not a mapping`);
  const unsupported = Object.keys(value).filter((key) => !SUPPORTED_FIELDS.has(key));
  if (unsupported.length > 0) {
    throw new Error(`${file}: fields not supported by this renderer: ${unsupported.join(', ')}`);
  }
  return value;
}

/** The identity kustomize keys objects by: kind, namespace, name. */
export function idOf(object: K8sObject): string {
  return `${object.kind}|${object.metadata.namespace ?? ''}|${object.metadata.name}`;
}

/** Adds `resource` to the build; throws when an object with the same identity is already there. */
export function addResource(resources: Resource[], resource: Resource, origin: string): void {
  if (resources.some((existing) => idOf(existing.object) === idOf(resource.object))) {
    throw new Error(`${origin}: ${objectRef(resource.object)} is defined twice`);
  }
  resources.push(resource);
}

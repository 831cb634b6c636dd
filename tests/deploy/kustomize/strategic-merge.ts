/**
 * The strategic-merge-patch subset kustomize applies to the built-in kinds, as far as Tix's overlays
 * need it: maps merge recursively (null deletes a key), lists with a merge key merge item by item
 * (containers and env by name, volume mounts by mountPath, ...), other lists are replaced, and the
 * `$patch: delete | replace` directives work on maps and on list items. Other directives
 * ($setElementOrder, $retainKeys, $deleteFromPrimitiveList) are refused rather than ignored.
 */
import { clone, isObject, type Json, type JsonObject } from './objects.js';

/** Merge keys by field name, as the Kubernetes API declares them for the fields Tix patches. */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
};

/** The merge key of list field `field` whose items look like `items`, if it has one. */
export function mergeKeyOf(field: string, items: Json[]): string | undefined {
  if (field === 'ports') {
    // Container ports merge by containerPort, Service ports by port.
    return items.some((item) => isObject(item) && 'containerPort' in item) ? 'containerPort' : 'port';
  }
  return MERGE_KEYS[field];
}

function directive(value: Json): string | undefined {
  return isObject(value) && typeof value.$patch === 'string' ? value.$patch : undefined;
}

/** `value` without `$patch` keys, at any depth. */
function withoutDirectives(value: Json): Json {
  if (Array.isArray(value))
    return value.filter((item) => directive(item) === undefined).map(withoutDirectives);
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === '$patch') continue;
    result[key] = withoutDirectives(item);
  }
  return result;
}

function mergeList(field: string, target: Json[], patch: Json[], key: string): Json[] {
  if (patch.some((item) => directive(item) === 'replace')) return withoutDirectives(patch) as Json[];
  const result = clone(target);
  for (const item of patch) {
    if (!isObject(item) || !(key in item))
      throw new Error(`${field}: every patch item needs its merge key "${key}"`);
    const index = result.findIndex((existing) => isObject(existing) && existing[key] === item[key]);
    if (directive(item) === 'delete') {
      if (index !== -1) result.splice(index, 1);
    } else if (index === -1) {
      result.push(withoutDirectives(item));
    } else {
      result[index] = strategicMerge(result[index]!, item);
    }
  }
  return result;
}

/**
 * `target` with `patch` applied (neither is modified). Throws on a directive this subset does not
 * implement, and on a keyed list item that lacks its key.
 */
export function strategicMerge(target: Json, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const mode = directive(patch);
  if (mode === 'replace') return withoutDirectives(patch);
  if (mode !== undefined && mode !== 'merge') throw new Error(`unsupported $patch: ${mode} on a map`);
  const result: JsonObject = isObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch') continue;
    if (key.startsWith('$')) throw new Error(`unsupported strategic merge directive ${key}`);
    if (value === null || directive(value) === 'delete') {
      delete result[key];
    } else if (Array.isArray(value)) {
      const mergeKey = mergeKeyOf(key, value);
      const current = result[key];
      result[key] =
        mergeKey && Array.isArray(current)
          ? mergeList(key, current, value, mergeKey)
          : withoutDirectives(value);
    } else if (isObject(value)) {
      result[key] = strategicMerge(result[key] ?? {}, value);
    } else {
      result[key] = value;
    }
  }
  return result;
}

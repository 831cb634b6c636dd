/**
 * The guardrails document the admin form edits (docs/assistant.md "Reading the guardrails"), and the
 * pure rules the form needs: reading and setting a value by dotted path (the paths the server's 422
 * names), and the partial update of what the admin changed (objects by key; lists and values whole),
 * so that a 409 can re-apply exactly those changes on top of someone else's.
 */
import { READ_ONLY_KEYS } from '@tix/contract';
import type { components } from '../../generated/api';

/** The guardrails as GET shows them (the contract's schema, through the OpenAPI document). */
export type Guardrails = components['schemas']['Guardrails'];
export { ACTION_MODES as MODES, TICKET_PRIORITIES as PRIORITIES } from '@tix/contract';

/** Keys GET shows that an update ignores. */
const READ_ONLY = new Set<string>(READ_ONLY_KEYS);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function getAt(document: unknown, path: string): unknown {
  let value: unknown = document;
  for (const key of path.split('.')) value = isObject(value) ? value[key] : undefined;
  return value;
}

/** A copy of `document` with `value` at `path` (the objects on the way copied, the rest shared). */
export function setAt<T>(document: T, path: string, value: unknown): T {
  const [key, ...rest] = path.split('.');
  const source = (isObject(document) ? document : {}) as Record<string, unknown>;
  return {
    ...source,
    [key!]: rest.length === 0 ? value : setAt(source[key!], rest.join('.'), value),
  } as T;
}

/** The dotted paths of the leaves (values, lists and null) of the editable part, in document order. */
export function leafPaths(document: unknown, prefix = ''): string[] {
  if (!isObject(document)) return prefix ? [prefix] : [];
  return Object.entries(document).flatMap(([key, value]) =>
    prefix === '' && READ_ONLY.has(key) ? [] : leafPaths(value, prefix ? `${prefix}.${key}` : key),
  );
}

/** The paths whose value differs between `original` and `edited`. */
export function changedPaths(original: unknown, edited: unknown): string[] {
  const paths = new Set([...leafPaths(original), ...leafPaths(edited)]);
  return [...paths].filter(
    (path) => JSON.stringify(getAt(original, path)) !== JSON.stringify(getAt(edited, path)),
  );
}

/** The partial update holding `paths` of `edited` (the PUT body, before `version`). */
export function patchOf(edited: unknown, paths: string[]): Record<string, unknown> {
  let patch: Record<string, unknown> = {};
  for (const path of paths) patch = setAt(patch, path, getAt(edited, path));
  return patch;
}

/** `theirs` with my changes (`paths` of `mine`) on top: what "apply mine on top" saves. */
export function reapply<T>(theirs: T, mine: unknown, paths: string[]): T {
  let merged = theirs;
  for (const path of paths) merged = setAt(merged, path, getAt(mine, path));
  return merged;
}

/** The `changes` of an event (envelope v1.1): which public fields one write altered, from and to. */
import type { FieldChange } from '@tix/protos';

/** Deep equality for JSON values (what a presented resource is made of). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every(
    (key) =>
      Object.hasOwn(b, key) &&
      sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/**
 * `{ field: { from, to } }` for each of `fields` whose value differs between the two presentations
 * of a resource (the public JSON, so names and values are the API's); unchanged fields are left out.
 */
export function fieldChanges<T extends object>(
  before: T,
  after: T,
  fields: readonly (keyof T & string)[],
): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  for (const field of fields) {
    const from = before[field] ?? null;
    const to = after[field] ?? null;
    if (!sameJson(from, to)) changes[field] = { from, to };
  }
  return changes;
}

/**
 * The ai service's rules of a project's autonomy guardrails (docs/assistant.md, "Reading the
 * guardrails"): merging a partial update (objects key by key, arrays and scalars replace), validating
 * the whole result with the contract's schema (@tix/contract guardrails.ts declares the document, its
 * bounds and defaults), and the dotted changes between two documents. The store keeps version,
 * updated_at and updated_by beside the document.
 */
import { FieldErrors } from '@tix/kit';
import {
  AUTONOMY_ACTION_TYPES,
  type AutonomyActionType,
  guardrailProblems,
  type GuardrailsDocument,
  type ProjectVocabulary,
  READ_ONLY_KEYS,
} from '@tix/protos';

export { defaultGuardrails, type GuardrailsDocument, type ProjectVocabulary } from '@tix/protos';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `patch` merged over `base`: objects merge key by key; arrays, scalars and null replace. */
export function mergeGuardrails(base: unknown, patch: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(patch)) return patch;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch))
    // defineProperty: a `__proto__` key of the JSON stays an own key (refused as unknown), not a prototype.
    Object.defineProperty(merged, key, {
      value: mergeGuardrails(Object.hasOwn(base, key) ? base[key] : undefined, value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return merged;
}

/** The update's own keys, without the read-only ones a client may echo back from GET. */
export function withoutReadOnlyKeys(patch: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...patch };
  for (const key of READ_ONLY_KEYS) delete rest[key];
  return rest;
}

/**
 * The whole document checked against the contract's schema, with the project's statuses and ticket
 * types (every problem at once, by dotted path: 422 with `actions.send_reply.threshold: ["must be
 * between 0.9 and 0.99"]`, `scope.statuses: ["unknown status: done"]`); returns it typed when valid.
 */
export function validateGuardrails(document: unknown, project: ProjectVocabulary): GuardrailsDocument {
  const errors = new FieldErrors();
  errors.addAll(guardrailProblems(document, project) ?? {});
  errors.throwIfAny();
  return document as GuardrailsDocument;
}

// ---- changes ---------------------------------------------------------------------------------------

/** Dotted path -> { from, to } for every leaf (scalar or list) that differs. */
export function guardrailChanges(
  before: unknown,
  after: unknown,
  path = '',
): Record<string, { from: unknown; to: unknown }> {
  if (isPlainObject(before) && isPlainObject(after)) {
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)]))
      Object.assign(changes, guardrailChanges(before[key], after[key], path === '' ? key : `${path}.${key}`));
    return changes;
  }
  return JSON.stringify(before ?? null) === JSON.stringify(after ?? null)
    ? {}
    : { [path]: { from: before ?? null, to: after ?? null } };
}

/** Action types whose mode is suggest or auto (none: autonomy is disabled for the project). */
export function enabledActionTypes(document: GuardrailsDocument): AutonomyActionType[] {
  return AUTONOMY_ACTION_TYPES.filter((type) => document.actions[type].mode !== 'off');
}

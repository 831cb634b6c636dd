/**
 * The guardrails document the admin form edits (docs/assistant.md "Reading the guardrails"), and the
 * pure rules the form needs: reading and setting a value by dotted path (the paths the server's 422
 * names), and the partial update of what the admin changed (objects by key; lists and values whole),
 * so that a 409 can re-apply exactly those changes on top of someone else's.
 */
import type { ActionType } from './format';

export type Mode = 'off' | 'suggest' | 'auto';
export const MODES: Mode[] = ['off', 'suggest', 'auto'];
export { TICKET_PRIORITIES as PRIORITIES } from '@tix/contract';

interface ActionBase {
  mode: Mode;
  threshold: number;
}

export interface Guardrails {
  version: number;
  actions: {
    set_priority: ActionBase & { allowed_values: string[]; never_downgrade: boolean };
    assign: ActionBase & { allowed_user_ids: number[] | null; max_open_per_user: number };
    add_tags: ActionBase & { allowed_tags: string[] | null };
    close_duplicate: ActionBase & { max_age_days: number; require_same_type: boolean };
    post_internal_note: ActionBase;
    send_reply: ActionBase;
  } & Record<ActionType, ActionBase>;
  scope: {
    ticket_type_ids: number[] | null;
    statuses: string[] | null;
    exclude_tags: string[];
    exclude_priorities: string[];
  };
  limits: { max_actions_per_hour: number; max_actions_per_ticket: number };
  review: { sample_rate: number; always_review_below: number };
  auto_pause: { revert_rate: number; min_actions: number; window_hours: number };
  updated_at?: string | null;
  updated_by?: { id: number; name: string } | null;
}

/** Keys GET shows that an update ignores. */
const READ_ONLY = new Set(['version', 'updated_at', 'updated_by']);

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

/**
 * A project's autonomy guardrails (docs/assistant.md, "Reading the guardrails") as one JSON
 * document: per action type a mode and a threshold (plus that type's own limits), the scope of
 * tickets acted on, the hourly and per-ticket caps, review sampling and auto-pause. Pure rules: the
 * defaults, merging a partial update (objects key by key, arrays and scalars replace), validating
 * the whole result with dotted field paths, and the dotted changes between two documents. The store
 * keeps version, updated_at and updated_by beside the document.
 */
import { FieldErrors } from '@tix/kit';
import {
  isTicketPriority,
  TICKET_LIMITS,
  TICKET_PRIORITIES,
  type TicketPriority,
  AUTONOMY_ACTION_TYPES,
  type AutonomyActionType,
} from '@tix/protos';

export const ACTION_MODES = ['off', 'suggest', 'auto'] as const;
export type ActionMode = (typeof ACTION_MODES)[number];

/** Thresholds an admin may set; send_reply (a public comment) has a higher floor. */
export const THRESHOLD_RANGE = { min: 0.5, max: 0.99, sendReplyMin: 0.9 } as const;

/** The sane maxima of the numeric settings (a cap beyond these is no cap). */
export const GUARDRAIL_LIMITS = {
  maxActionsPerHour: 10_000,
  maxActionsPerTicket: 20,
  maxOpenPerUser: 1_000,
  maxAgeDays: 90,
  windowHours: 24 * 30,
  minActions: 10_000,
  /** Items of any list (tags, user ids, statuses, ticket type ids). */
  listItems: 100,
} as const;

interface ActionBase {
  mode: ActionMode;
  threshold: number;
}

export interface GuardrailsDocument {
  actions: {
    set_priority: ActionBase & { allowed_values: TicketPriority[]; never_downgrade: boolean };
    assign: ActionBase & { allowed_user_ids: number[] | null; max_open_per_user: number };
    add_tags: ActionBase & { allowed_tags: string[] | null };
    close_duplicate: ActionBase & { max_age_days: number; require_same_type: boolean };
    post_internal_note: ActionBase;
    send_reply: ActionBase;
  };
  scope: {
    ticket_type_ids: number[] | null;
    statuses: string[] | null;
    exclude_tags: string[];
    exclude_priorities: TicketPriority[];
  };
  limits: { max_actions_per_hour: number; max_actions_per_ticket: number };
  review: { sample_rate: number; always_review_below: number };
  auto_pause: { revert_rate: number; min_actions: number; window_hours: number };
}

/**
 * Shadow mode: every action type off (predictions are recorded, nothing is done), the default
 * thresholds (docs/assistant.md), critical tickets out of scope, every action reviewed.
 * docs/decisions.md says why.
 */
export function defaultGuardrails(): GuardrailsDocument {
  return {
    actions: {
      set_priority: {
        mode: 'off',
        threshold: 0.85,
        allowed_values: ['low', 'medium', 'high'],
        never_downgrade: true,
      },
      assign: { mode: 'off', threshold: 0.9, allowed_user_ids: null, max_open_per_user: 25 },
      add_tags: { mode: 'off', threshold: 0.8, allowed_tags: null },
      close_duplicate: { mode: 'off', threshold: 0.95, max_age_days: 14, require_same_type: true },
      post_internal_note: { mode: 'off', threshold: 0.6 },
      send_reply: { mode: 'off', threshold: 0.97 },
    },
    scope: { ticket_type_ids: null, statuses: null, exclude_tags: [], exclude_priorities: ['critical'] },
    limits: { max_actions_per_hour: 60, max_actions_per_ticket: 3 },
    review: { sample_rate: 1.0, always_review_below: 0.9 },
    auto_pause: { revert_rate: 0.2, min_actions: 10, window_hours: 24 },
  };
}

/** Keys of the guardrails object that are read-only (shown by GET, ignored in an update). */
export const READ_ONLY_KEYS = ['version', 'updated_at', 'updated_by'] as const;

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

/** What the project offers to check the scope against (from lookup). */
export interface ProjectVocabulary {
  statuses: readonly string[];
  ticketTypeIds: readonly number[];
}

// ---- validation ------------------------------------------------------------------------------------

type Check = (value: unknown, path: string, errors: FieldErrors) => void;

const between = (min: number, max: number): Check => {
  return (value, path, errors) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
      errors.add(path, `must be between ${min} and ${max}`);
  };
};

const integerFrom = (min: number, max: number): Check => {
  return (value, path, errors) => {
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
      errors.add(path, `must be an integer from ${min} to ${max}`);
  };
};

const booleanValue: Check = (value, path, errors) => {
  if (typeof value !== 'boolean') errors.add(path, 'must be true or false');
};

const modeValue: Check = (value, path, errors) => {
  if (typeof value !== 'string' || !(ACTION_MODES as readonly string[]).includes(value))
    errors.add(path, `must be one of ${ACTION_MODES.join(', ')}`);
};

/** A list of at most listItems distinct items, each checked by `item` (its message names the item). */
const listOf = (
  item: (value: unknown) => string | null,
  options: { nullable: boolean; what: string },
): Check => {
  return (value, path, errors) => {
    if (value === null && options.nullable) return;
    if (!Array.isArray(value)) {
      errors.add(
        path,
        options.nullable ? `must be a list of ${options.what} or null` : `must be a list of ${options.what}`,
      );
      return;
    }
    if (value.length > GUARDRAIL_LIMITS.listItems)
      errors.add(path, `must have at most ${GUARDRAIL_LIMITS.listItems} items`);
    if (new Set(value.map((entry) => JSON.stringify(entry))).size !== value.length)
      errors.add(path, 'must not repeat an item');
    for (const entry of value) {
      const problem = item(entry);
      if (problem !== null) errors.add(path, problem);
    }
  };
};

const priorityItem = (value: unknown) =>
  typeof value === 'string' && isTicketPriority(value)
    ? null
    : `unknown priority: ${String(value)} (one of ${TICKET_PRIORITIES.join(', ')})`;

const tagItem = (value: unknown) =>
  typeof value === 'string' && value.trim() !== '' && [...value].length <= TICKET_LIMITS.tag
    ? null
    : `a tag must be text of 1 to ${TICKET_LIMITS.tag} characters`;

const positiveIdItem = (value: unknown) =>
  Number.isInteger(value) && (value as number) > 0 && (value as number) <= 2_147_483_647
    ? null
    : `${JSON.stringify(value)} is not an id`;

/** The expected shape: an object of checks or nested shapes; every other key is refused. */
interface Shape {
  [key: string]: Check | Shape;
}

function actionShape(floor: number, extra: Shape = {}): Shape {
  return { mode: modeValue, threshold: between(floor, THRESHOLD_RANGE.max), ...extra };
}

function guardrailsShape(project: ProjectVocabulary): Shape {
  return {
    actions: {
      set_priority: actionShape(THRESHOLD_RANGE.min, {
        allowed_values: listOf(priorityItem, { nullable: false, what: 'priorities' }),
        never_downgrade: booleanValue,
      }),
      assign: actionShape(THRESHOLD_RANGE.min, {
        allowed_user_ids: listOf(positiveIdItem, { nullable: true, what: 'user ids' }),
        max_open_per_user: integerFrom(1, GUARDRAIL_LIMITS.maxOpenPerUser),
      }),
      add_tags: actionShape(THRESHOLD_RANGE.min, {
        allowed_tags: listOf(tagItem, { nullable: true, what: 'tags' }),
      }),
      close_duplicate: actionShape(THRESHOLD_RANGE.min, {
        max_age_days: integerFrom(1, GUARDRAIL_LIMITS.maxAgeDays),
        require_same_type: booleanValue,
      }),
      post_internal_note: actionShape(THRESHOLD_RANGE.min),
      send_reply: actionShape(THRESHOLD_RANGE.sendReplyMin),
    },
    scope: {
      ticket_type_ids: listOf(
        (value) =>
          positiveIdItem(value) ??
          (project.ticketTypeIds.includes(value as number) ? null : `unknown ticket type: ${String(value)}`),
        { nullable: true, what: 'ticket type ids' },
      ),
      statuses: listOf(
        (value) =>
          typeof value === 'string' && project.statuses.includes(value)
            ? null
            : `unknown status: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
        { nullable: true, what: 'status slugs' },
      ),
      exclude_tags: listOf(tagItem, { nullable: false, what: 'tags' }),
      exclude_priorities: listOf(priorityItem, { nullable: false, what: 'priorities' }),
    },
    limits: {
      max_actions_per_hour: integerFrom(1, GUARDRAIL_LIMITS.maxActionsPerHour),
      max_actions_per_ticket: integerFrom(1, GUARDRAIL_LIMITS.maxActionsPerTicket),
    },
    review: { sample_rate: between(0, 1), always_review_below: between(0, 1) },
    auto_pause: {
      revert_rate: between(0, 1),
      min_actions: integerFrom(1, GUARDRAIL_LIMITS.minActions),
      window_hours: integerFrom(1, GUARDRAIL_LIMITS.windowHours),
    },
  };
}

function checkShape(value: unknown, shape: Shape, path: string, errors: FieldErrors): void {
  if (!isPlainObject(value)) {
    errors.add(path, 'must be an object');
    return;
  }
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(shape, key)) continue;
    // A field path cannot be `__proto__` (an errors object would take it as its prototype).
    if (key === '__proto__') errors.add(path === '' ? 'guardrails' : path, 'unknown key: __proto__');
    else errors.add(path === '' ? key : `${path}.${key}`, 'unknown key');
  }
  for (const [key, check] of Object.entries(shape)) {
    const keyPath = path === '' ? key : `${path}.${key}`;
    if (!Object.hasOwn(value, key)) errors.add(keyPath, 'is required');
    else if (typeof check === 'function') check(value[key], keyPath, errors);
    else checkShape(value[key], check, keyPath, errors);
  }
}

/**
 * The whole document checked against the shape (every problem at once, by dotted path: 422 with
 * `actions.send_reply.threshold: ["must be between 0.9 and 0.99"]`, `scope.statuses: ["unknown
 * status: done"]`); returns it typed when valid.
 */
export function validateGuardrails(document: unknown, project: ProjectVocabulary): GuardrailsDocument {
  const errors = new FieldErrors();
  checkShape(document, guardrailsShape(project), '', errors);
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

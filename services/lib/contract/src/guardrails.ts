/**
 * A project's autonomy guardrails (docs/assistant.md, "Reading the guardrails"), declared once: per
 * action type a mode and a threshold (plus that type's own limits), the scope of tickets acted on,
 * the hourly and per-ticket caps, review sampling and auto-pause. The ai service validates every
 * update with guardrailsDocumentSchema (guardrailProblems gives its 422 by dotted path), the gateway's
 * OpenAPI document names guardrailsSchema `Guardrails`, and the console's form takes each setting's
 * range, step and default from here.
 */
import { z } from 'zod';
import {
  AUTONOMY_ACTION_TYPES,
  type AutonomyActionType,
  fitsCodePoints,
  MAX_INT32,
  TICKET_LIMITS,
  TICKET_PRIORITIES,
} from './vocabulary.js';

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

/** A numeric setting: its inclusive range, whether it is a whole number, and the step a form offers. */
export interface NumberBound {
  min: number;
  max: number;
  integer: boolean;
  step: number;
}

const count = (max: number): NumberBound => ({ min: 1, max, integer: true, step: 1 });
const share = (step: number): NumberBound => ({ min: 0, max: 1, integer: false, step });

/** The range of an action type's threshold (a confidence, in hundredths). */
export function thresholdBound(type: AutonomyActionType): NumberBound {
  const min = type === 'send_reply' ? THRESHOLD_RANGE.sendReplyMin : THRESHOLD_RANGE.min;
  return { min, max: THRESHOLD_RANGE.max, integer: false, step: 0.01 };
}

/** Every numeric setting but the thresholds, by dotted path. */
export const GUARDRAIL_BOUNDS = {
  'actions.assign.max_open_per_user': count(GUARDRAIL_LIMITS.maxOpenPerUser),
  'actions.close_duplicate.max_age_days': count(GUARDRAIL_LIMITS.maxAgeDays),
  'limits.max_actions_per_hour': count(GUARDRAIL_LIMITS.maxActionsPerHour),
  'limits.max_actions_per_ticket': count(GUARDRAIL_LIMITS.maxActionsPerTicket),
  'review.sample_rate': share(0.05),
  'review.always_review_below': share(0.01),
  'auto_pause.revert_rate': share(0.05),
  'auto_pause.min_actions': count(GUARDRAIL_LIMITS.minActions),
  'auto_pause.window_hours': count(GUARDRAIL_LIMITS.windowHours),
} as const satisfies Record<string, NumberBound>;

/** The bound of the numeric setting at `path` (`actions.send_reply.threshold`), or undefined. */
export function guardrailBound(path: string): NumberBound | undefined {
  const threshold = /^actions\.(\w+)\.threshold$/.exec(path)?.[1];
  if (threshold !== undefined)
    return (AUTONOMY_ACTION_TYPES as readonly string[]).includes(threshold)
      ? thresholdBound(threshold as AutonomyActionType)
      : undefined;
  return Object.hasOwn(GUARDRAIL_BOUNDS, path)
    ? GUARDRAIL_BOUNDS[path as keyof typeof GUARDRAIL_BOUNDS]
    : undefined;
}

/** What a threshold preview may be asked: a threshold in the admin's range, and up to 180 days back. */
export const PREVIEW_LIMITS = {
  minThreshold: THRESHOLD_RANGE.min,
  maxThreshold: THRESHOLD_RANGE.max,
  maxWindowDays: 180,
  windowDays: 30,
} as const;

/** Keys of the guardrails object that are read-only (shown by GET, ignored in an update). */
export const READ_ONLY_KEYS = ['version', 'updated_at', 'updated_by'] as const;

/** What the project offers to check the scope against (from lookup). */
export interface ProjectVocabulary {
  statuses: readonly string[];
  ticketTypeIds: readonly number[];
}

// ---- the schema ------------------------------------------------------------------------------------
// Each value answers one message (the API's, docs/assistant.md); an absent key answers `is required`.

const REQUIRED = 'is required';
type Issue = { input?: unknown };
const orRequired = (message: string) => (issue: Issue) => (issue.input === undefined ? REQUIRED : message);

function numberSetting(bound: NumberBound) {
  const message = bound.integer
    ? `must be an integer from ${bound.min} to ${bound.max}`
    : `must be between ${bound.min} and ${bound.max}`;
  const number = z.number({ error: orRequired(message) });
  return (bound.integer ? number.int({ error: message }) : number)
    .min(bound.min, { error: message })
    .max(bound.max, { error: message });
}

const booleanSetting = () => z.boolean({ error: orRequired('must be true or false') });

const object = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.strictObject(shape, { error: orRequired('must be an object') });

/**
 * A list of at most listItems distinct items, each checked by `item` (its message names the item and
 * is given at the list's path); `nullable` lets null mean "any".
 */
function listSetting<Item extends z.ZodType>(
  item: Item,
  what: string,
  options: { nullable: true },
): z.ZodNullable<z.ZodArray<Item>>;
function listSetting<Item extends z.ZodType>(item: Item, what: string): z.ZodArray<Item>;
function listSetting(item: z.ZodType, what: string, options = { nullable: false }) {
  const isList = (payload: { value: unknown }) => Array.isArray(payload.value);
  const list = z
    .array(item, {
      error: orRequired(options.nullable ? `must be a list of ${what} or null` : `must be a list of ${what}`),
    })
    // refinements, not .max(): a long list still has each of its items checked.
    .refine((value) => value.length <= GUARDRAIL_LIMITS.listItems, {
      error: `must have at most ${GUARDRAIL_LIMITS.listItems} items`,
      when: isList,
    })
    .refine((value) => new Set(value.map((entry) => JSON.stringify(entry))).size === value.length, {
      error: 'must not repeat an item',
      when: isList,
    })
    .meta({ maxItems: GUARDRAIL_LIMITS.listItems, uniqueItems: true });
  return options.nullable ? list.nullable() : list;
}

const priorityItem = () =>
  z.enum(TICKET_PRIORITIES, {
    error: (issue) => `unknown priority: ${String(issue.input)} (one of ${TICKET_PRIORITIES.join(', ')})`,
  });

const tagItem = () => {
  const message = `a tag must be text of 1 to ${TICKET_LIMITS.tag} characters`;
  return z
    .string({ error: message })
    .refine((value) => value.trim() !== '' && fitsCodePoints(value, TICKET_LIMITS.tag), { error: message });
};

const idItem = () => {
  const message = (issue: Issue) => `${JSON.stringify(issue.input)} is not an id`;
  // Not .int(): its failure would stop the list's own checks (too many items, a repeat).
  return z
    .number({ error: message })
    .min(1, { error: message })
    .max(MAX_INT32, { error: message })
    .refine(Number.isInteger, { error: message })
    .meta({ type: 'integer', minimum: 1, maximum: MAX_INT32 });
};

/** Passes when the item had no problem yet and `known` holds it (the project's own vocabulary). */
const knownTo = <Item extends z.ZodType>(
  item: Item,
  known: ((value: z.output<Item>) => boolean) | undefined,
  message: (value: z.output<Item>) => string,
) =>
  known === undefined
    ? item
    : item.refine(known, {
        error: (issue) => message(issue.input as z.output<Item>),
        when: (payload) => payload.issues.length === 0,
      });

function actionSetting<Extra extends z.ZodRawShape>(type: AutonomyActionType, extra: Extra) {
  return object({
    mode: z.enum(ACTION_MODES, { error: orRequired(`must be one of ${ACTION_MODES.join(', ')}`) }),
    threshold: numberSetting(thresholdBound(type)),
    ...extra,
  });
}

/**
 * The whole guardrails document, every key required and no other allowed. With `project`, the
 * scope's statuses and ticket type ids must be the project's (the ai service's check); without, any
 * slug and id (what the OpenAPI document shows).
 */
export function guardrailsDocumentSchema(project?: ProjectVocabulary) {
  const bound = (path: keyof typeof GUARDRAIL_BOUNDS) => numberSetting(GUARDRAIL_BOUNDS[path]);
  const statusItem = z.string({ error: (issue) => `unknown status: ${JSON.stringify(issue.input)}` });
  return object({
    actions: object({
      set_priority: actionSetting('set_priority', {
        allowed_values: listSetting(priorityItem(), 'priorities'),
        never_downgrade: booleanSetting(),
      }),
      assign: actionSetting('assign', {
        allowed_user_ids: listSetting(idItem(), 'user ids', { nullable: true }),
        max_open_per_user: bound('actions.assign.max_open_per_user'),
      }),
      add_tags: actionSetting('add_tags', {
        allowed_tags: listSetting(tagItem(), 'tags', { nullable: true }),
      }),
      close_duplicate: actionSetting('close_duplicate', {
        max_age_days: bound('actions.close_duplicate.max_age_days'),
        require_same_type: booleanSetting(),
      }),
      post_internal_note: actionSetting('post_internal_note', {}),
      send_reply: actionSetting('send_reply', {}),
    }),
    scope: object({
      ticket_type_ids: listSetting(
        knownTo(
          idItem(),
          project && ((id) => project.ticketTypeIds.includes(id)),
          (id) => `unknown ticket type: ${String(id)}`,
        ),
        'ticket type ids',
        { nullable: true },
      ),
      statuses: listSetting(
        knownTo(
          statusItem,
          project && ((slug) => project.statuses.includes(slug)),
          (slug) => `unknown status: ${slug}`,
        ),
        'status slugs',
        { nullable: true },
      ),
      exclude_tags: listSetting(tagItem(), 'tags'),
      exclude_priorities: listSetting(priorityItem(), 'priorities'),
    }),
    limits: object({
      max_actions_per_hour: bound('limits.max_actions_per_hour'),
      max_actions_per_ticket: bound('limits.max_actions_per_ticket'),
    }),
    review: object({
      sample_rate: bound('review.sample_rate'),
      always_review_below: bound('review.always_review_below'),
    }),
    auto_pause: object({
      revert_rate: bound('auto_pause.revert_rate'),
      min_actions: bound('auto_pause.min_actions'),
      window_hours: bound('auto_pause.window_hours'),
    }),
  });
}

/** The guardrails document (what an update must make whole). */
export type GuardrailsDocument = z.output<ReturnType<typeof guardrailsDocumentSchema>>;

/**
 * The guardrails as GET answers them: the version first, the document, then who saved it when.
 * Built in a pure call so that a bundle using only the bounds (the console) leaves zod out.
 */
export const guardrailsSchema = /* @__PURE__ */ (() =>
  z
    .strictObject({
      version: z.number().int().meta({ description: 'Starts at 1, +1 on each saved change.' }),
      ...guardrailsDocumentSchema().shape,
      updated_at: z
        .string()
        .meta({ description: 'When they were last saved (ISO 8601).', format: 'date-time' }),
      updated_by: z
        .object({ id: z.number().int(), name: z.string() })
        .nullable()
        .meta({ description: 'Who saved them last, with the name lookup has now; null for the defaults.' }),
    })
    .meta({ description: "A project's autonomy guardrails (docs/assistant.md)." }))();

export type Guardrails = z.output<typeof guardrailsSchema>;

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

// ---- problems by dotted path -------------------------------------------------------------------------

/**
 * Every problem of `document` by dotted path (`actions.send_reply.threshold: ["must be between 0.9
 * and 0.99"]`, `scope.statuses: ["unknown status: done"]`, an unknown key as `<path>.<key>: ["unknown
 * key"]`), a list's own problems before its items'; null when it is a valid document.
 */
export function guardrailProblems(
  document: unknown,
  project: ProjectVocabulary,
): Record<string, string[]> | null {
  const result = guardrailsDocumentSchema(project).safeParse(document);
  if (result.success) return null;
  const problems: Record<string, string[]> = {};
  const seen = new Set<string>();
  const add = (path: string, message: string, once = `${path}\n${message}`) => {
    if (seen.has(once)) return;
    seen.add(once);
    (problems[path] ??= []).push(message);
  };
  const dotted = (path: readonly PropertyKey[]) => path.filter((key) => typeof key === 'string').join('.');
  const isItem = (issue: z.core.$ZodIssue) => typeof issue.path.at(-1) === 'number';
  for (const issue of [
    ...result.error.issues.filter((i) => !isItem(i)),
    ...result.error.issues.filter(isItem),
  ]) {
    const path = dotted(issue.path);
    if (issue.code !== 'unrecognized_keys') {
      // A value answers once: an item its first problem, at the list's path.
      add(path, issue.message, isItem(issue) ? issue.path.join('\n') : undefined);
      continue;
    }
    for (const key of issue.keys)
      // A field path cannot be `__proto__` (an errors object would take it as its prototype).
      if (key === '__proto__') add(path === '' ? 'guardrails' : path, 'unknown key: __proto__');
      else add(path === '' ? key : `${path}.${key}`, 'unknown key');
  }
  return problems;
}

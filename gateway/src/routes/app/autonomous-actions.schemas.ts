/**
 * The request and response schemas of the autonomous actions, the audit queue and the threshold
 * preview (docs/assistant.md, "Reviewing and reverting"). The gateway checks shapes and bounds;
 * what an action did, whether it can be reverted and what a threshold would have done are the ai
 * service's to say.
 */
import { z } from 'zod';
import {
  AUTONOMOUS_ACTION_STATUSES,
  AUTONOMY_ACTION_TYPES,
  AUTONOMY_TEXT_LIMITS,
  MAX_INT32,
  PREVIEW_LIMITS,
} from '@tix/protos';
import {
  enumParam,
  idParam,
  integerParam,
  pageParams,
  textField,
  timeParam,
} from '../../http/schema-fields.js';
import { aiProviderSchema, confidenceFields, paginationSchema } from '../../resources/components.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';

export const INVALID_ACTION_ID_MESSAGE = 'Invalid action id';

// ---- pieces ---------------------------------------------------------------------------------------

/** A query parameter holding a decimal number in [min, max]. */
function decimalParam(doc: {
  min: number;
  max: number;
  message: string;
  description: string;
  example: number;
}) {
  return z
    .string({ error: doc.message })
    .regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/, doc.message)
    .transform(Number)
    .pipe(z.number().min(doc.min, doc.message).max(doc.max, doc.message))
    .meta({ description: doc.description, example: doc.example });
}

const confidenceParam = (bound: 'min' | 'max') =>
  decimalParam({
    min: 0,
    max: 1,
    message: `${bound}_confidence must be a number from 0 to 1`,
    description: `Only actions with confidence ${bound === 'min' ? 'at least' : 'at most'} this, 0 to 1.`,
    example: bound === 'min' ? 0.8 : 0.95,
  }).optional();

const actionFilters = {
  ticket_id: integerParam({
    min: 1,
    max: MAX_INT32,
    message: 'ticket_id must be a ticket id (a positive integer)',
    description: "Only this ticket's actions.",
    example: 42,
  }).optional(),
  action_type: enumParam(AUTONOMY_ACTION_TYPES, {
    message: `action_type must be one of ${AUTONOMY_ACTION_TYPES.join(', ')}`,
    description: 'Only actions of this type.',
    example: 'set_priority',
  }).optional(),
  ...pageParams('Actions'),
};

function checkTimeRange(query: { since?: string; until?: string }, context: z.core.$RefinementCtx): void {
  if (query.since !== undefined && query.until !== undefined && query.until <= query.since)
    context.addIssue({ code: 'custom', path: ['until'], message: 'until must be later than since' });
}

// ---- the routes -----------------------------------------------------------------------------------

/** GET /ai/autonomous-actions. */
export const listActionsQuery = z
  .object({
    ...actionFilters,
    status: enumParam(AUTONOMOUS_ACTION_STATUSES, {
      message: `status must be one of ${AUTONOMOUS_ACTION_STATUSES.join(', ')}`,
      description: 'Only actions in this state.',
      example: 'pending_review',
    }).optional(),
    since: timeParam('since', {
      description: 'Only actions taken at or after this time (ISO 8601).',
      example: '2026-05-01T00:00:00Z',
    }).optional(),
    until: timeParam('until', {
      description: 'Only actions taken before this time (ISO 8601).',
      example: '2026-06-01T00:00:00Z',
    }).optional(),
  })
  .superRefine(checkTimeRange);

const QUEUE_STATUSES = [...AUTONOMOUS_ACTION_STATUSES, 'all'] as const;
const QUEUE_SORTS = ['created_at', '-created_at', 'confidence'] as const;

/** GET /ai/audit-queue. */
export const auditQueueQuery = z.object({
  ...actionFilters,
  status: enumParam(QUEUE_STATUSES, {
    message: `status must be one of ${QUEUE_STATUSES.join(', ')}`,
    description: 'Actions in this state (default `pending_review`, the queue itself); `all` for every one.',
    example: 'pending_review',
  }).default('pending_review'),
  min_confidence: confidenceParam('min'),
  max_confidence: confidenceParam('max'),
  sort: enumParam(QUEUE_SORTS, {
    message: `sort must be one of ${QUEUE_SORTS.join(', ')}`,
    description:
      '`created_at` (oldest first, the default: a queue), `-created_at`, or `confidence` (lowest first).',
    example: 'created_at',
  }).default('created_at'),
});

/** POST /ai/audit-queue/{id}/acknowledge and /revert. */
export const actionIdParams = z.object({
  id: idParam({ message: INVALID_ACTION_ID_MESSAGE, description: 'Autonomous action id.', example: 981 }),
});

export const acknowledgeBody = z.object(
  {
    note: textField('Note', {
      max: AUTONOMY_TEXT_LIMITS.review,
      description: `What the reviewer noted, at most ${AUTONOMY_TEXT_LIMITS.review} characters.`,
      example: 'Right call.',
    }).optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

export const revertBody = z.object(
  {
    reason: textField('Reason', {
      max: AUTONOMY_TEXT_LIMITS.review,
      description: `Why it is reverted, at most ${AUTONOMY_TEXT_LIMITS.review} characters.`,
      example: 'Not urgent: a known issue.',
    }).optional(),
    force: z
      .boolean({ error: 'Force must be true or false' })
      .meta({
        description:
          'Admins only: revert even though a touched field changed since (the later change is lost).',
        example: false,
      })
      .default(false),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

/** GET /ai/autonomy/threshold-preview. */
export const thresholdPreviewQuery = z.object({
  action_type: enumParam(AUTONOMY_ACTION_TYPES, {
    message: `action_type must be one of ${AUTONOMY_ACTION_TYPES.join(', ')}`,
    description: 'The action type to preview.',
    example: 'set_priority',
  }),
  threshold: decimalParam({
    min: PREVIEW_LIMITS.minThreshold,
    max: PREVIEW_LIMITS.maxThreshold,
    message: `threshold must be a number from ${PREVIEW_LIMITS.minThreshold} to ${PREVIEW_LIMITS.maxThreshold}`,
    description: 'The threshold to preview; absent: the current one.',
    example: 0.8,
  }).optional(),
  window_days: integerParam({
    min: 1,
    max: PREVIEW_LIMITS.maxWindowDays,
    message: `window_days must be an integer from 1 to ${PREVIEW_LIMITS.maxWindowDays}`,
    description: 'How many days of recorded predictions to look back on.',
    example: 30,
  }).default(PREVIEW_LIMITS.windowDays),
});

// ---- responses ------------------------------------------------------------------------------------

const userRefSchema = z.object({ id: z.number().int(), name: z.string() }).nullable();

export const autonomousActionSchema = z
  .object({
    id: z.number().int(),
    project_id: z.number().int(),
    ticket_id: z.number().int(),
    ticket_number: z.string(),
    action_type: z
      .string()
      .meta({ description: `${AUTONOMY_ACTION_TYPES.join(', ')}; tolerate new values.` }),
    status: z.string().meta({ description: `${AUTONOMOUS_ACTION_STATUSES.join(', ')}.` }),
    ...confidenceFields,
    threshold: z.number().meta({ description: 'The threshold it passed.' }),
    before: z.record(z.string(), z.unknown()).meta({ description: 'The touched fields before the action.' }),
    after: z.record(z.string(), z.unknown()).meta({ description: 'The touched fields after it.' }),
    rationale: z.string(),
    sources: z.array(
      z.object({
        ticket_id: z.number().int(),
        ticket_number: z.string(),
        title: z.string(),
        similarity: z.number(),
      }),
    ),
    ticket_version_before: z.number().int(),
    ticket_version_after: z.number().int().nullable(),
    conflict: z
      .object({ message: z.string(), fields: z.record(z.string(), z.unknown()).optional() })
      .nullable()
      .meta({ description: 'Why it changed nothing (skipped_conflict, failed); null otherwise.' }),
    provider: aiProviderSchema,
    guardrails_version: z.number().int(),
    created_at: z.string().meta({ format: 'date-time' }),
    reviewed_by: userRefSchema,
    reviewed_at: z.string().nullable().meta({ format: 'date-time' }),
    review_note: z.string().nullable(),
    reverted_by: userRefSchema,
    reverted_at: z.string().nullable().meta({ format: 'date-time' }),
    revert_reason: z.string().nullable(),
    irreversible_effects: z.array(z.string()).meta({ description: 'What a revert cannot undo.' }),
  })
  .openapi('AutonomousAction', {
    description: 'What the assistant did to a ticket on its own, and what became of it.',
  });

export const actionPageSchema = z.object({
  actions: z.array(autonomousActionSchema),
  pagination: paginationSchema,
});

export const auditQueueSchema = actionPageSchema.extend({
  counts: z
    .object({ pending_review: z.number().int(), acknowledged: z.number().int(), reverted: z.number().int() })
    .meta({ description: 'Actions by review state, over the same filters but the status.' }),
});

const figuresSchema = z.object({
  threshold: z.number(),
  would_apply: z.number().int(),
  coverage: z.number(),
  precision: z.number().nullable(),
  precision_ci95: z.tuple([z.number(), z.number()]).nullable(),
});

export const thresholdPreviewSchema = z
  .object({
    action_type: z.string(),
    source: z.enum(['recorded', 'backtest']),
    window: z.object({ from: z.string(), to: z.string(), days: z.number().int() }),
    sample: z.object({
      predictions: z.number().int(),
      labelled: z.number().int(),
      min_labelled: z.number().int(),
    }),
    at_threshold: figuresSchema.extend({
      expected_errors: z.number().int(),
      expected_errors_per_week: z.number(),
    }),
    current: figuresSchema,
    curve: z.array(
      z.object({ threshold: z.number(), coverage: z.number(), precision: z.number().nullable() }),
    ),
    by_value: z.array(
      z.object({ value: z.string(), would_apply: z.number().int(), precision: z.number().nullable() }),
    ),
  })
  .openapi('ThresholdPreview', {
    description:
      'What a threshold would have done: from recorded outcomes, or a backtest when too few exist.',
  });

/**
 * The request and response schemas of the autonomy routes (docs/assistant.md, "Changing them"): the
 * guardrails update (any subset of the guardrails object, plus the version read) and the reason of a
 * kill or a clear. The gateway checks shapes; the values of the guardrails (modes, thresholds, the
 * project's statuses and types, unknown keys) are the ai service's to judge, by dotted path.
 */
import { z } from 'zod';
import { AUTONOMY_TEXT_LIMITS, THRESHOLD_RANGE } from '@tix/protos';
import { integerField, requiredTextField } from '../../http/schema-fields.js';
import { z as openapi } from '../../resources/zod-openapi.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';
import { guardrailsSchema } from '../../resources/components.js';

/** Characters of the reason given for a kill or a clear (the ai service checks the same bound). */

const guardrailsPart = (description: string) => z.unknown().meta({ description }).optional();

/** PUT /ai/autonomy/guardrails: a partial guardrails object, merged key by key, and `version`. */
export const updateGuardrailsBody = z.looseObject(
  {
    version: integerField('Version', {
      min: 1,
      description: 'The guardrails version you read; a stale version answers 409.',
      example: 7,
    }).optional(),
    actions: guardrailsPart(
      'Per action type (`set_priority`, `assign`, `add_tags`, `close_duplicate`, `post_internal_note`, ' +
        '`send_reply`): `mode` (`off`, `suggest`, `auto`), `threshold` ' +
        `(${THRESHOLD_RANGE.min} to ${THRESHOLD_RANGE.max}; send_reply from ${THRESHOLD_RANGE.sendReplyMin}) ` +
        'and its own limits.',
    ),
    scope: guardrailsPart(
      'Which tickets are acted on: `ticket_type_ids` and `statuses` (null: any), `exclude_tags`, ' +
        '`exclude_priorities`.',
    ),
    limits: guardrailsPart('`max_actions_per_hour` and `max_actions_per_ticket`.'),
    review: guardrailsPart('`sample_rate` (0 to 1) and `always_review_below` (a confidence).'),
    auto_pause: guardrailsPart('`revert_rate`, `min_actions`, `window_hours`.'),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

/** POST /ai/autonomy/kill and /ai/autonomy/clear-kill. */
export const killSwitchBody = z.object(
  {
    reason: requiredTextField('Reason', {
      max: AUTONOMY_TEXT_LIMITS.reason,
      description: `Why, 1 to ${AUTONOMY_TEXT_LIMITS.reason} characters; kept with the switch and its event.`,
      example: 'Tags applied to billing tickets look wrong',
    }),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

export type UpdateGuardrailsBody = z.output<typeof updateGuardrailsBody>;

// ---- responses (documentation only) ---------------------------------------------------------------

const userRefSchema = openapi
  .object({ id: openapi.number().int(), name: openapi.string() })
  .nullable()
  .meta({ description: 'Who, with the name lookup has now; null when nobody.' });

const timestampOrNull = (description: string) =>
  openapi
    .string()
    .nullable()
    .meta({ description: `${description} (ISO 8601); null when none.`, format: 'date-time' });

export const autonomySchema = openapi.object({
  project_id: openapi.number().int().nullable().meta({
    description: 'The project; null for the global kill switch alone (a kill or clear without a project).',
  }),
  kill_switch: openapi.object({
    active: openapi
      .boolean()
      .meta({ description: "True while autonomy is stopped (the global switch or the project's)." }),
    scope: openapi
      .string()
      .nullable()
      .meta({ description: '`global` or `project` while active; null otherwise.' }),
    reason: openapi.string().nullable().meta({ description: 'Why it was activated, while active.' }),
    activated_at: timestampOrNull('When it was activated, while active'),
    activated_by: userRefSchema,
    cleared_at: timestampOrNull('When autonomy was last resumed, while not active'),
    cleared_by: userRefSchema,
  }),
  status: openapi.object({
    effective: openapi.string().meta({
      description:
        '`killed` (a kill switch is active), `disabled` (no action type is `suggest` or `auto`: shadow mode), ' +
        '`paused` or `active`.',
    }),
    paused_actions: openapi
      .array(openapi.string())
      .meta({ description: 'Action types auto-paused for their revert rate.' }),
  }),
  guardrails: openapi
    .union([guardrailsSchema, openapi.null()])
    .meta({ description: "The project's guardrails; null without a project." }),
  stats_24h: openapi
    .object({
      predictions: openapi.number().int(),
      executed: openapi.number().int(),
      acknowledged: openapi.number().int(),
      reverted: openapi.number().int(),
      pending_review: openapi.number().int(),
    })
    .nullable()
    .meta({
      description:
        'The last 24 hours (predictions recorded; actions once they exist); null without a project.',
    }),
});

/**
 * The prose of the assistant's operations (routes/app/assistant.ts, autonomous-actions.ts,
 * autonomy.ts) in the API description, by operationId.
 */
import { ERROR_MESSAGES, SOURCE_LIMITS } from '@tix/protos';

const scopeRule =
  "With a project (`project_id` or `project`) the project's switch; without one the global switch, which " +
  'stops autonomy in every project.';

export const ASSISTANT_DESCRIPTIONS = {
  suggestReply:
    'A reply composed from the customer-visible answers of resolved tickets like this one (never from ' +
    'internal notes), with those tickets as `sources` and personal data replaced by `[redacted]`. ' +
    'Below `min_confidence` there is no suggestion: `suggestion` is null and `reason` says why. ' +
    '30 per hour per caller (429 with Retry-After beyond); GET /ai/suggest-reply/availability shows what is left.',
  getSuggestReplyAvailability:
    'Whether POST /ai/suggest-reply would suggest for the project (or ticket) now, by which provider, on how ' +
    'many resolved tickets, and what is left of your hourly quota. Not counted against that quota.',
  searchTickets:
    'Tickets whose title, description or comments match `q`, best first, with the matching passage; a ticket ' +
    'number (`ACME-17`) finds that ticket. Without a project: every project. Internal notes are searched for ' +
    'callers who may read comments. 10 per minute per caller.',
  answerQuestion:
    'A short answer to a question in plain words, composed from the most relevant resolved tickets, which ' +
    `come as \`sources\` (at most \`max_sources\`, ${SOURCE_LIMITS.default} by default). Without a project: ` +
    'every project. `answer` is null, with a `reason`, when nothing relevant enough was found. 60 per hour per caller.',
  listPredictions:
    'What the assistant predicted for the ticket when it arrived (priority, assignee, tags, a duplicate), with ' +
    'confidence and sources. Nothing was applied: apply one as any change, then POST /ai/predictions/{id}/accept.',
  acceptPrediction:
    'Records the prediction as `accepted` once you applied it (the change itself is made as any other), so ' +
    `its track record counts it. 404 \`${ERROR_MESSAGES.predictionNotFound}\` for a prediction outside the project; ` +
    '404 `Ticket not found` when its ticket was deleted (the answer says whether the prediction is held back ' +
    'on the ticket as it is now, which needs the ticket).',
  listAutonomousActions:
    'What the assistant did on its own, newest first, in the project named or every project you may see: ' +
    'the fields it touched before and after, why, and what became of it.',
  listAuditQueue:
    'The actions waiting for a review (oldest first), or any state with `status`; with the counts by ' +
    'review state. Acknowledge one, or revert it.',
  acknowledgeAutonomousAction: `Marks it reviewed; again changes nothing. 409 \`Action was reverted\` for a reverted one; 404 \`${ERROR_MESSAGES.actionNotFound}\`.`,
  revertAutonomousAction:
    'Restores exactly the fields the action touched (a new version; later changes of other fields stay). ' +
    '409 `Ticket was changed after this action` names each touched field changed since, by whom and when ' +
    '(admins may send `force`); 409 `Action was already reverted`; 422 `This action cannot be reverted` for ' +
    'one that changed nothing.',
  previewAutonomyThreshold:
    'Coverage, precision with its 95% Wilson interval and expected errors at a threshold and at the current ' +
    'one, the curve from 0.5 to 0.99 and a per-value breakdown, from the predictions recorded over ' +
    '`window_days` and their outcomes; `source: "backtest"` when fewer than 50 are labelled.',
  getAutonomy:
    "The project's guardrails (the defaults until an admin changes them: every action type `off`, shadow " +
    'mode), the kill switch that applies to it (the global one first), what autonomy effectively does ' +
    'now, and the last 24 hours in numbers.',
  updateGuardrails:
    'Any subset of the guardrails object, merged into the current one (objects key by key; lists and ' +
    'values replace), then the whole checked: 422 names each problem by its dotted path ' +
    '(`actions.send_reply.threshold`, `scope.statuses`). With `version`, 409 ' +
    `\`${ERROR_MESSAGES.guardrailsModified}\` when someone changed them since you read them. \`version\`, ` +
    '`updated_at` and `updated_by` are read-only (ignored when sent back). `warnings` name each action type ' +
    'turned to `auto` on too few labelled decisions.',
  activateKillSwitch:
    `${scopeRule} Once this returns, no new autonomous action starts; suggestions stay available. ` +
    'Idempotent: an active switch stays as it is (`already_active`, the first reason kept).',
  clearKillSwitch: `${scopeRule} 409 \`${ERROR_MESSAGES.killSwitchNotActive}\` when that switch is not active.`,
};

/**
 * The assistant's autonomous actions on the session host (docs/assistant.md, "Reviewing and
 * reverting"): the actions list (agents), the audit queue with acknowledge and revert (team leads;
 * a forced revert admins only), and the threshold preview (admins). Validated by
 * autonomous-actions.schemas.ts, then AiService calls; the ai service checks the roles again and
 * writes reverts through the ticket service's compare-and-set, so a later change is never lost
 * silently.
 */
import { AppError } from '@tix/kit';
import type { ai, TicketJson } from '@tix/protos';
import { givenFields } from '../../http/validate.js';
import { RawJson } from '../../http/envelope.js';
import { ticketSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { json } from '../../resources/responses.js';
import { z } from '../../resources/zod-openapi.js';
import { defineOperation, operationGroup, type Operation } from '../operation.js';
import { searchedProjectIds } from './assistant.js';
import {
  acknowledgeBody,
  actionIdParams,
  actionPageSchema,
  auditQueueQuery,
  auditQueueSchema,
  autonomousActionSchema,
  listActionsQuery,
  revertBody,
  thresholdPreviewQuery,
  thresholdPreviewSchema,
} from './autonomous-actions.schemas.js';

const AGENT = { scope: 'tickets:read', role: 'agent' } as const;
const TEAM_LEAD = { scope: 'tickets:read', role: 'team_lead' } as const;
const ADMIN = { scope: null, role: 'admin' } as const;

const userRef = (user: ai.UserRef__Output | null | undefined) =>
  user ? { id: user.id, name: user.name } : null;

/** An AutonomousAction message as the API's JSON. */
export function presentAction(message: ai.AutonomousAction__Output | null) {
  if (!message?.provider) throw AppError.internal('the ai service answered an action without its provider');
  return {
    id: Number(message.id),
    project_id: message.project_id,
    ticket_id: message.ticket_id,
    ticket_number: message.ticket_number,
    action_type: message.action_type,
    status: message.status,
    confidence: message.confidence,
    confidence_label: message.confidence_label as 'high' | 'medium' | 'low',
    threshold: message.threshold,
    before: JSON.parse(message.before_json) as Record<string, unknown>,
    after: JSON.parse(message.after_json) as Record<string, unknown>,
    rationale: message.rationale,
    sources: message.sources.map((source) => ({
      ticket_id: source.ticket_id,
      ticket_number: source.ticket_number,
      title: source.title,
      similarity: source.similarity,
    })),
    ticket_version_before: message.ticket_version_before,
    ticket_version_after: message.ticket_version_after ?? null,
    conflict:
      message.conflict_json === undefined
        ? null
        : (JSON.parse(message.conflict_json) as { message: string; fields?: Record<string, unknown> }),
    provider: {
      kind: message.provider.kind,
      model: message.provider.model,
      external: message.provider.external,
    },
    guardrails_version: message.guardrails_version,
    created_at: message.created_at,
    reviewed_by: userRef(message.reviewed_by),
    reviewed_at: message.reviewed_at ?? null,
    review_note: message.review_note ?? null,
    reverted_by: userRef(message.reverted_by),
    reverted_at: message.reverted_at ?? null,
    revert_reason: message.revert_reason ?? null,
    irreversible_effects: message.irreversible_effects,
  };
}

const ACTION_EXAMPLE = {
  id: 981,
  project_id: 1,
  ticket_id: 42,
  ticket_number: 'ACME-42',
  action_type: 'set_priority',
  status: 'pending_review',
  confidence: 0.91,
  confidence_label: 'high' as const,
  threshold: 0.85,
  before: { priority: 'medium' },
  after: { priority: 'high' },
  rationale: '9 of 11 similar closed tickets were high priority',
  sources: [
    { ticket_id: 17, ticket_number: 'ACME-17', title: 'Checkout fails with card declined', similarity: 0.88 },
  ],
  ticket_version_before: 1,
  ticket_version_after: 2,
  conflict: null,
  provider: { kind: 'retrieval', model: 'tix-retrieval-1', external: false },
  guardrails_version: 7,
  created_at: '2025-03-14T10:00:01.000Z',
  reviewed_by: null,
  reviewed_at: null,
  review_note: null,
  reverted_by: null,
  reverted_at: null,
  revert_reason: null,
  irreversible_effects: [],
};

const PAGE_EXAMPLE = { page: 1, per_page: 50, total: 1, total_pages: 1 };

const actionOperation = operationGroup({ hosts: ['app'], project: 'optional', tag: 'Assistant' });

export const AUTONOMOUS_ACTION_OPERATIONS: Operation[] = [
  actionOperation({
    method: 'get',
    path: '/ai/autonomous-actions',
    access: AGENT,
    request: { query: listActionsQuery },
    operationId: 'listAutonomousActions',
    summary: "The assistant's autonomous actions",
    success: json(200, 'A page of actions.', actionPageSchema, {
      actions: [ACTION_EXAMPLE],
      pagination: PAGE_EXAMPLE,
    }),
    errors: [],
    async handle({ query, services, call, project, principal }) {
      const page = await services.ai.ListActions(
        {
          project_ids: await searchedProjectIds({ project, principal, call, services }),
          ...givenFields(query, 'ticket_id', 'action_type', 'status', 'since', 'until'),
          sort: '-created_at',
          page: { page: query.page, per_page: query.per_page },
        },
        call,
      );
      return { data: { actions: page.actions.map(presentAction), pagination: page.pagination } };
    },
  }),

  actionOperation({
    method: 'get',
    path: '/ai/audit-queue',
    access: TEAM_LEAD,
    request: { query: auditQueueQuery },
    operationId: 'listAuditQueue',
    summary: 'Autonomous actions to review',
    success: json(200, 'A page of the queue, with counts.', auditQueueSchema, {
      actions: [ACTION_EXAMPLE],
      pagination: PAGE_EXAMPLE,
      counts: { pending_review: 10, acknowledged: 30, reverted: 2 },
    }),
    errors: [],
    async handle({ query, services, call, project, principal }) {
      const page = await services.ai.ListActions(
        {
          project_ids: await searchedProjectIds({ project, principal, call, services }),
          ...givenFields(query, 'ticket_id', 'action_type'),
          ...(query.status === 'all' ? {} : { status: query.status }),
          ...givenFields(query, 'min_confidence', 'max_confidence'),
          sort: query.sort,
          page: { page: query.page, per_page: query.per_page },
        },
        call,
      );
      return {
        data: {
          actions: page.actions.map(presentAction),
          pagination: page.pagination,
          counts: page.counts,
        },
      };
    },
  }),

  actionOperation({
    method: 'post',
    path: '/ai/audit-queue/:id/acknowledge',
    access: TEAM_LEAD,
    request: { params: actionIdParams, body: acknowledgeBody },
    bodyExample: { note: 'Right call.' },
    operationId: 'acknowledgeAutonomousAction',
    summary: 'Acknowledge an autonomous action',
    success: json(200, 'The action, acknowledged.', z.object({ action: autonomousActionSchema }), {
      action: { ...ACTION_EXAMPLE, status: 'acknowledged' },
    }),
    errors: [404, 409],
    async handle({ params, body, services, call, project, principal }) {
      const action = await services.ai.AcknowledgeAction(
        {
          project_ids: await searchedProjectIds({ project, principal, call, services }),
          id: params.id,
          ...givenFields(body, 'note'),
        },
        call,
      );
      return { data: { action: presentAction(action) } };
    },
  }),

  actionOperation({
    method: 'post',
    path: '/ai/audit-queue/:id/revert',
    access: TEAM_LEAD,
    request: { params: actionIdParams, body: revertBody },
    bodyExample: { reason: 'Not urgent: a known issue.' },
    operationId: 'revertAutonomousAction',
    summary: 'Revert an autonomous action exactly',
    success: json(
      200,
      'The action, reverted, and the ticket after the revert.',
      z.object({ action: autonomousActionSchema, ticket: ticketSchema }),
      { action: { ...ACTION_EXAMPLE, status: 'reverted' }, ticket: EXAMPLES.ticket },
    ),
    errors: [404, 409, 422],
    async handle({ params, body, services, call, project, principal }) {
      const result = await services.ai.RevertAction(
        {
          project_ids: await searchedProjectIds({ project, principal, call, services }),
          id: params.id,
          force: body.force,
          ...givenFields(body, 'reason'),
        },
        call,
      );
      if (!result.ticket) throw AppError.internal('the ai service answered a revert without the ticket');
      return {
        spliced: {
          action: presentAction(result.action),
          ticket: new RawJson<TicketJson>(result.ticket.json),
        },
      };
    },
  }),

  defineOperation({
    method: 'get',
    path: '/ai/autonomy/threshold-preview',
    hosts: ['app'],
    access: ADMIN,
    project: 'required',
    request: { query: thresholdPreviewQuery },
    operationId: 'previewAutonomyThreshold',
    tag: 'Assistant',
    summary: 'What a threshold would have done',
    success: json(200, 'The preview.', z.object({ preview: thresholdPreviewSchema }), {
      preview: {
        action_type: 'set_priority',
        source: 'recorded',
        window: { from: '2025-02-12T00:00:00.000Z', to: '2025-03-14T00:00:00.000Z', days: 30 },
        sample: { predictions: 412, labelled: 380, min_labelled: 50 },
        at_threshold: {
          threshold: 0.8,
          would_apply: 190,
          coverage: 0.46,
          precision: 0.94,
          precision_ci95: [0.9, 0.97],
          expected_errors: 11,
          expected_errors_per_week: 2.6,
        },
        current: {
          threshold: 0.85,
          would_apply: 151,
          coverage: 0.37,
          precision: 0.96,
          precision_ci95: [0.92, 0.98],
        },
        curve: [{ threshold: 0.5, coverage: 0.81, precision: 0.79 }],
        by_value: [{ value: 'high', would_apply: 40, precision: 0.9 }],
      },
    }),
    errors: [],
    async handle({ query, services, project, call }) {
      const { preview_json: preview } = await services.ai.PreviewThreshold(
        {
          project_id: project.id,
          action_type: query.action_type,
          ...givenFields(query, 'threshold'),
          window_days: query.window_days,
        },
        call,
      );
      return { data: { preview: JSON.parse(preview) as unknown } };
    },
  }),
];

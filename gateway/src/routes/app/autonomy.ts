/**
 * Autonomy on the session host (docs/assistant.md, "Autonomy"): a project's guardrails, the kill
 * switch (global without a project, else the project's) and what autonomy effectively does now.
 * Admins only, here and in the ai service, whatever a client shows. Validated by
 * autonomy.schemas.ts, then AiService calls; the service merges and judges guardrails, versions
 * them and writes their events.
 */
import { AppError } from '@tix/kit';
import type { ai } from '@tix/protos';
import { EXAMPLES } from '../../resources/examples.js';
import { json } from '../../resources/responses.js';
import { z } from '../../resources/zod-openapi.js';
import { operationGroup, type Operation } from '../operation.js';
import { autonomySchema, killSwitchBody, updateGuardrailsBody } from './autonomy.schemas.js';

export const AUTONOMY_PATH = '/ai/autonomy';

const ADMIN = { scope: null, role: 'admin' } as const;

const userRef = (user: ai.UserRef__Output | null | undefined) =>
  user ? { id: user.id, name: user.name } : null;

/** An Autonomy message as the API's JSON: absent optionals null, the guardrails object parsed. */
export function presentAutonomy(message: ai.Autonomy__Output | null) {
  if (!message?.kill_switch || !message.status)
    throw AppError.internal('the ai service answered without the kill switch or the status');
  const kill = message.kill_switch;
  return {
    project_id: message.project_id ?? null,
    kill_switch: {
      active: kill.active,
      scope: kill.scope ?? null,
      reason: kill.reason ?? null,
      activated_at: kill.activated_at ?? null,
      activated_by: userRef(kill.activated_by),
      cleared_at: kill.cleared_at ?? null,
      cleared_by: userRef(kill.cleared_by),
    },
    status: { effective: message.status.effective, paused_actions: message.status.paused_actions },
    guardrails:
      message.guardrails_json === undefined
        ? null
        : (JSON.parse(message.guardrails_json) as Record<string, unknown>),
    stats_24h: message.stats_24h
      ? {
          predictions: message.stats_24h.predictions,
          executed: message.stats_24h.executed,
          acknowledged: message.stats_24h.acknowledged,
          reverted: message.stats_24h.reverted,
          pending_review: message.stats_24h.pending_review,
        }
      : null,
  };
}

const AUTONOMY_EXAMPLE = {
  project_id: 1,
  kill_switch: {
    active: false,
    scope: null,
    reason: null,
    activated_at: null,
    activated_by: null,
    cleared_at: '2025-03-14T09:00:00.000Z',
    cleared_by: { id: 3, name: 'Ada' },
  },
  status: { effective: 'active', paused_actions: [] },
  guardrails: EXAMPLES.guardrails,
  stats_24h: { predictions: 140, executed: 0, acknowledged: 0, reverted: 0, pending_review: 0 },
};

const KILLED_EXAMPLE = {
  ...AUTONOMY_EXAMPLE,
  kill_switch: {
    active: true,
    scope: 'project',
    reason: 'Tags applied to billing tickets look wrong',
    activated_at: '2025-03-14T10:00:00.000Z',
    activated_by: { id: 3, name: 'Ada' },
    cleared_at: null,
    cleared_by: null,
  },
  status: { effective: 'killed', paused_actions: [] },
};

/** A project's autonomy and guardrails; the kill switch, global without a project, else the project's. */
const projectAutonomyOperation = operationGroup({ hosts: ['app'], project: 'required', tag: 'Assistant' });
const autonomyOperation = operationGroup({ hosts: ['app'], project: 'optional', tag: 'Assistant' });

export const AUTONOMY_OPERATIONS: Operation[] = [
  projectAutonomyOperation({
    method: 'get',
    path: AUTONOMY_PATH,
    access: ADMIN,
    operationId: 'getAutonomy',
    summary: "A project's autonomy",
    success: json(200, 'The autonomy of the project.', z.object({ autonomy: autonomySchema }), {
      autonomy: AUTONOMY_EXAMPLE,
    }),
    errors: [],
    async handle({ services, project, call }) {
      const autonomy = await services.ai.GetAutonomy({ project_id: project.id }, call);
      return { data: { autonomy: presentAutonomy(autonomy) } };
    },
  }),

  projectAutonomyOperation({
    method: 'put',
    path: `${AUTONOMY_PATH}/guardrails`,
    access: ADMIN,
    request: { body: updateGuardrailsBody },
    bodyExample: {
      version: 7,
      actions: { set_priority: { mode: 'suggest' } },
      scope: { statuses: ['open'] },
    },
    operationId: 'updateGuardrails',
    summary: "Change a project's guardrails",
    success: json(
      200,
      'The autonomy with the new guardrails, and warnings.',
      z.object({
        autonomy: autonomySchema,
        warnings: z.array(z.string()).meta({ description: 'Advice that did not refuse the change.' }),
      }),
      {
        autonomy: AUTONOMY_EXAMPLE,
        warnings: ['set_priority: only 12 labelled decisions; preview uses a backtest'],
      },
    ),
    errors: [409],
    async handle({ body, services, project, call }) {
      const { version, ...guardrails } = body;
      const result = await services.ai.UpdateGuardrails(
        {
          project_id: project.id,
          guardrails_json: JSON.stringify(guardrails),
          ...(version === undefined ? {} : { version }),
        },
        call,
      );
      return { data: { autonomy: presentAutonomy(result.autonomy), warnings: result.warnings } };
    },
  }),

  autonomyOperation({
    method: 'post',
    path: `${AUTONOMY_PATH}/kill`,
    access: ADMIN,
    request: { body: killSwitchBody },
    bodyExample: { reason: 'Tags applied to billing tickets look wrong' },
    operationId: 'activateKillSwitch',
    summary: 'Stop autonomous actions',
    success: json(
      200,
      'The autonomy, stopped.',
      z.object({
        autonomy: autonomySchema,
        cancelled_actions: z.number().int().meta({ description: 'Queued actions cancelled by this kill.' }),
        already_active: z.boolean().meta({ description: 'True when the switch was already active.' }),
      }),
      { autonomy: KILLED_EXAMPLE, cancelled_actions: 0, already_active: false },
    ),
    errors: [],
    async handle({ body, services, project, call }) {
      const result = await services.ai.ActivateKillSwitch(
        { reason: body.reason, ...(project ? { project_id: project.id } : {}) },
        call,
      );
      return {
        data: {
          autonomy: presentAutonomy(result.autonomy),
          cancelled_actions: result.cancelled_actions,
          already_active: result.already_active,
        },
      };
    },
  }),

  autonomyOperation({
    method: 'post',
    path: `${AUTONOMY_PATH}/clear-kill`,
    access: ADMIN,
    request: { body: killSwitchBody },
    bodyExample: { reason: 'Tag predictions checked; resuming' },
    operationId: 'clearKillSwitch',
    summary: 'Resume autonomous actions',
    success: json(200, 'The autonomy, resumed.', z.object({ autonomy: autonomySchema }), {
      autonomy: AUTONOMY_EXAMPLE,
    }),
    errors: [409],
    async handle({ body, services, project, call }) {
      const autonomy = await services.ai.ClearKillSwitch(
        { reason: body.reason, ...(project ? { project_id: project.id } : {}) },
        call,
      );
      return { data: { autonomy: presentAutonomy(autonomy) } };
    },
  }),
];

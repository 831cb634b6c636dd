/**
 * Autonomy's use cases (docs/assistant.md, "Autonomy"): read a project's autonomy (guardrails, kill
 * switch, effective status, the last day's counts), update its guardrails (merge, validate,
 * version, event), and activate or clear a kill switch (global, or one project's). Every change and
 * its event are one transaction (the outbox). Only admins change anything, whatever a client shows.
 */
import type pg from 'pg';
import {
  actorOf,
  AppError,
  fieldError,
  inTransaction,
  newDomainEvent,
  requirePrincipal,
  type Caller,
  type ServiceClient,
} from '@tix/kit';
import {
  codePointLength,
  type Principal,
  AUTONOMY_ACTION_TYPES,
  AUTONOMY_TEXT_LIMITS,
  hasControlCharacters,
  hasLoneSurrogate,
  ERROR_MESSAGES,
} from '@tix/protos';
import {
  activateSwitch,
  clearSwitch,
  ensureProjectRows,
  insertEvents,
  lockSwitch,
  lastDay,
  readGuardrails,
  readSwitches,
  writeGuardrails,
  type GuardrailsRow,
  type KillSwitchRow,
  type LastDay,
} from './autonomy-store.js';
import { pausedActionTypes } from '../actions/action-store.js';
import { labelledPredictions } from '../preview/labels.js';
import { MIN_LABELLED, PREVIEW_WINDOW_DAYS } from '../preview/threshold-preview.js';
import { userNames } from '../peers/users.js';
import { GLOBAL_SWITCH, type KillScope } from './gate.js';
import {
  enabledActionTypes,
  guardrailChanges,
  mergeGuardrails,
  validateGuardrails,
  withoutReadOnlyKeys,
  type ProjectVocabulary,
} from './guardrails.js';

export const GUARDRAILS_MODIFIED = ERROR_MESSAGES.guardrailsModified;
export const KILL_SWITCH_NOT_ACTIVE = ERROR_MESSAGES.killSwitchNotActive;
export const ADMIN_ONLY = 'Only admins may change autonomy';
export const REASON_LIMITS = { min: 1, max: AUTONOMY_TEXT_LIMITS.reason } as const;
const REASON_MESSAGE = `must be ${REASON_LIMITS.min} to ${REASON_LIMITS.max} characters`;

export interface AutonomyDeps {
  pool: pg.Pool;
  lookup: Pick<ServiceClient<'lookup'>, 'GetUsers' | 'ResolveProject' | 'ListTicketTypes'>;
}

export interface UserRef {
  id: number;
  name: string;
}

export interface KillSwitchView {
  active: boolean;
  scope: KillScope | null;
  reason: string | null;
  activated_at: string | null;
  activated_by: UserRef | null;
  cleared_at: string | null;
  cleared_by: UserRef | null;
}

export type EffectiveStatus = 'active' | 'killed' | 'paused' | 'disabled';

export interface AutonomyView {
  project_id: number | null;
  kill_switch: KillSwitchView;
  status: { effective: EffectiveStatus; paused_actions: string[] };
  /** The guardrails object of the API; null without a project. */
  guardrails: Record<string, unknown> | null;
  /** The last 24 hours; null without a project. */
  stats_24h: LastDay | null;
}

function requireAdmin(principal: Principal | null): Principal {
  const caller = requirePrincipal(principal);
  if (caller.role !== 'admin') throw AppError.permissionDenied(ADMIN_ONLY);
  return caller;
}

/** The reason of a kill or a clear, trimmed: 1 to 500 characters without control characters (422 otherwise). */
export function checkReason(reason: string): string {
  const trimmed = reason.trim();
  const length = codePointLength(trimmed);
  if (length < REASON_LIMITS.min || length > REASON_LIMITS.max) throw fieldError('reason', REASON_MESSAGE);
  // PostgreSQL cannot store NUL, and no reason needs a control character (line breaks may stay).
  if (hasControlCharacters(trimmed, true) || hasLoneSurrogate(trimmed))
    throw fieldError('reason', 'must not contain control characters');
  return trimmed;
}

/**
 * The switch a project's autonomy obeys: the global one while it is active, else the project's while
 * it is; when neither is, the one cleared last (who resumed autonomy, and when).
 */
function shownSwitch(switches: KillSwitchRow[]): { row: KillSwitchRow | null; scope: KillScope | null } {
  const global = switches.find((row) => row.project_id === GLOBAL_SWITCH) ?? null;
  const project = switches.find((row) => row.project_id !== GLOBAL_SWITCH) ?? null;
  if (global?.active) return { row: global, scope: 'global' };
  if (project?.active) return { row: project, scope: 'project' };
  const cleared = [global, project]
    .filter((row): row is KillSwitchRow => row !== null && row.cleared_at !== null)
    .sort((a, b) => b.cleared_at!.getTime() - a.cleared_at!.getTime());
  return { row: cleared[0] ?? null, scope: null };
}

/** Whether a kill switch (global or the project's) stops autonomous actions now. */
export async function killSwitchActive(db: pg.Pool, projectId: number): Promise<boolean> {
  return shownSwitch(await readSwitches(db, projectId)).scope !== null;
}

/** The Autonomy of a project (or, without one, of the global switch alone). */
export async function readAutonomy(
  deps: AutonomyDeps,
  projectId: number | null,
  caller: Caller,
): Promise<AutonomyView> {
  let guardrails: GuardrailsRow | null = null;
  let stats: LastDay | null = null;
  let paused: string[] = [];
  if (projectId !== null) {
    await ensureProjectRows(deps.pool, projectId);
    [guardrails, stats] = await Promise.all([
      readGuardrails(deps.pool, projectId),
      lastDay(deps.pool, projectId),
    ]);
    paused = await pausedActionTypes(deps.pool, projectId, guardrails.document.auto_pause);
  }
  const switches = await readSwitches(deps.pool, projectId);
  const shown = shownSwitch(switches);
  const names = await userNames(
    deps,
    [guardrails?.updated_by ?? null, shown.row?.activated_by ?? null, shown.row?.cleared_by ?? null],
    caller,
  );
  const ref = (id: number | null): UserRef | null =>
    id === null ? null : { id, name: names.get(id) ?? `User ${id}` };
  const active = shown.scope !== null;
  const enabled = guardrails === null ? [] : enabledActionTypes(guardrails.document);
  const effective: EffectiveStatus = active
    ? 'killed'
    : guardrails !== null && enabled.length === 0
      ? 'disabled'
      : enabled.length > 0 && enabled.every((type) => paused.includes(type))
        ? 'paused'
        : 'active';
  return {
    project_id: projectId,
    kill_switch: {
      active,
      scope: shown.scope,
      reason: active ? shown.row!.reason : null,
      activated_at: active ? shown.row!.activated_at!.toISOString() : null,
      activated_by: active ? ref(shown.row!.activated_by) : null,
      cleared_at: active ? null : (shown.row?.cleared_at?.toISOString() ?? null),
      cleared_by: active ? null : ref(shown.row?.cleared_by ?? null),
    },
    status: { effective, paused_actions: paused },
    guardrails:
      guardrails === null
        ? null
        : {
            version: guardrails.version,
            ...guardrails.document,
            updated_at: guardrails.updated_at.toISOString(),
            updated_by: ref(guardrails.updated_by),
          },
    stats_24h: stats,
  };
}

async function projectVocabulary(
  deps: AutonomyDeps,
  projectId: number,
  caller: Caller,
): Promise<ProjectVocabulary> {
  const context = { correlationId: caller.correlationId };
  const [project, types] = await Promise.all([
    deps.lookup.ResolveProject({ id: projectId }, context),
    deps.lookup.ListTicketTypes({ project_id: projectId }, context),
  ]);
  return {
    statuses: project.statuses.map((status) => status.slug),
    ticketTypeIds: types.ticket_types.map((type) => type.id),
  };
}

/** The update's guardrails text as an object; anything else is refused as a whole. */
function parsePatch(json: string): Record<string, unknown> {
  let patch: unknown;
  try {
    patch = JSON.parse(json);
  } catch {
    throw fieldError('guardrails', 'must be a JSON object');
  }
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
    throw fieldError('guardrails', 'must be a JSON object');
  return withoutReadOnlyKeys(patch as Record<string, unknown>);
}

/**
 * Merges `patch` over the project's guardrails: 409 on a stale `version`, 422 with every problem of
 * the merged whole by dotted path; else version + 1 and ai.guardrails_updated with the changes, in one
 * transaction. An update that changes nothing writes nothing. Warnings name each action type switched
 * to auto on fewer than MIN_LABELLED labelled predictions.
 */
export async function updateGuardrails(
  deps: AutonomyDeps,
  input: { projectId: number; guardrailsJson: string; version?: number },
  caller: Caller,
): Promise<{ autonomy: AutonomyView; warnings: string[] }> {
  const principal = requireAdmin(caller.principal);
  const patch = parsePatch(input.guardrailsJson);
  const vocabulary = await projectVocabulary(deps, input.projectId, caller);
  await ensureProjectRows(deps.pool, input.projectId);
  const switchedToAuto = await inTransaction(deps.pool, async (client) => {
    const current = await readGuardrails(client, input.projectId, { forUpdate: true });
    if (input.version !== undefined && input.version !== current.version)
      throw AppError.conflict(GUARDRAILS_MODIFIED);
    const merged = validateGuardrails(mergeGuardrails(current.document, patch), vocabulary);
    const changes = guardrailChanges(current.document, merged);
    if (Object.keys(changes).length === 0) return [];
    const written = await writeGuardrails(client, input.projectId, merged, principal.user_id);
    await insertEvents(client, [
      newDomainEvent(
        'ai.guardrails_updated',
        {
          project_id: input.projectId,
          version: written.version,
          guardrails: merged,
          updated_at: written.updated_at.toISOString(),
          updated_by: principal.user_id,
        },
        { source: 'ai', projectId: input.projectId, actor: actorOf(principal), changes },
      ),
    ]);
    return AUTONOMY_ACTION_TYPES.filter(
      (type) => current.document.actions[type].mode !== 'auto' && merged.actions[type].mode === 'auto',
    );
  });
  // Labelled as the threshold preview labels them, over its default window.
  const from = new Date(Date.now() - PREVIEW_WINDOW_DAYS * 86_400_000);
  const counts = await Promise.all(
    switchedToAuto.map(async (type) => ({
      type,
      count: (
        await labelledPredictions(deps.pool, { projectId: input.projectId, actionType: type, from })
      ).filter((prediction) => prediction.label !== 'unknown').length,
    })),
  );
  const warnings = counts
    .filter(({ count }) => count < MIN_LABELLED)
    .map(({ type, count }) => `${type}: only ${count} labelled decisions; preview uses a backtest`);
  return { autonomy: await readAutonomy(deps, input.projectId, caller), warnings };
}

function switchEventData(row: KillSwitchRow, scope: KillScope) {
  return {
    scope,
    project_id: row.project_id === GLOBAL_SWITCH ? null : row.project_id,
    active: row.active,
    reason: row.reason,
    activated_at: row.activated_at?.toISOString() ?? null,
    activated_by: row.activated_by,
    cleared_at: row.cleared_at?.toISOString() ?? null,
    cleared_by: row.cleared_by,
    clear_reason: row.clear_reason,
  };
}

/**
 * Activates the global switch (no project) or the project's, under FOR UPDATE of its row: it waits
 * for every action gate in flight, and none passes after it commits. Already active: nothing changes
 * (the first reason stays), `alreadyActive`.
 */
export async function activateKillSwitch(
  deps: AutonomyDeps,
  input: { projectId: number | null; reason: string },
  caller: Caller,
): Promise<{ autonomy: AutonomyView; cancelledActions: number; alreadyActive: boolean }> {
  const principal = requireAdmin(caller.principal);
  const reason = checkReason(input.reason);
  const switchId = input.projectId ?? GLOBAL_SWITCH;
  const scope: KillScope = input.projectId === null ? 'global' : 'project';
  const alreadyActive = await inTransaction(deps.pool, async (client) => {
    const row = await lockSwitch(client, switchId);
    if (row.active) return true;
    const activated = await activateSwitch(client, switchId, reason, principal.user_id);
    await insertEvents(client, [
      newDomainEvent('ai.kill_switch_activated', switchEventData(activated, scope), {
        source: 'ai',
        ...(input.projectId === null ? {} : { projectId: input.projectId }),
        actor: actorOf(principal),
        changes: { active: { from: false, to: true } },
      }),
    ]);
    return false;
  });
  // No action queue exists yet, so there is nothing to cancel; the executor's queue will be
  // cancelled in the kill's transaction when it exists.
  const cancelledActions = 0;
  return { autonomy: await readAutonomy(deps, input.projectId, caller), cancelledActions, alreadyActive };
}

/** Clears the global switch or the project's: 409 `Kill switch is not active` when it is not. */
export async function clearKillSwitch(
  deps: AutonomyDeps,
  input: { projectId: number | null; reason: string },
  caller: Caller,
): Promise<AutonomyView> {
  const principal = requireAdmin(caller.principal);
  const reason = checkReason(input.reason);
  const switchId = input.projectId ?? GLOBAL_SWITCH;
  const scope: KillScope = input.projectId === null ? 'global' : 'project';
  await inTransaction(deps.pool, async (client) => {
    const row = await lockSwitch(client, switchId);
    if (!row.active) throw AppError.conflict(KILL_SWITCH_NOT_ACTIVE);
    const cleared = await clearSwitch(client, switchId, reason, principal.user_id);
    await insertEvents(client, [
      newDomainEvent('ai.kill_switch_cleared', switchEventData(cleared, scope), {
        source: 'ai',
        ...(input.projectId === null ? {} : { projectId: input.projectId }),
        actor: actorOf(principal),
        changes: { active: { from: true, to: false } },
      }),
    ]);
  });
  return readAutonomy(deps, input.projectId, caller);
}

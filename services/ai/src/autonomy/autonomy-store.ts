/**
 * The autonomy tables (ai_guardrails, ai_kill_switches), the counts GetAutonomy shows (of
 * ai_predictions and ai_actions) and the events
 * written with them (outbox_events): the only module that touches them. Rows are created on first
 * use: a project's guardrails with the defaults, its kill switch inactive.
 */
import type pg from 'pg';
import { outboxInsert } from '@tix/kit';
import type { DomainEvent } from '@tix/protos';
import { ENSURE_SWITCH_ROWS_SQL, GLOBAL_SWITCH } from './gate.js';
import { defaultGuardrails, type GuardrailsDocument } from './guardrails.js';

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface GuardrailsRow {
  project_id: number;
  document: GuardrailsDocument;
  version: number;
  updated_at: Date;
  updated_by: number | null;
}

export interface KillSwitchRow {
  project_id: number;
  active: boolean;
  reason: string | null;
  activated_at: Date | null;
  activated_by: number | null;
  cleared_at: Date | null;
  cleared_by: number | null;
  clear_reason: string | null;
}

/** The project's guardrails (created with the defaults when missing) and both switch rows exist. */
export async function ensureProjectRows(db: Queryable, projectId: number): Promise<void> {
  await db.query(
    `INSERT INTO ai_guardrails (project_id, document) VALUES ($1, $2::jsonb) ON CONFLICT (project_id) DO NOTHING`,
    [projectId, JSON.stringify(defaultGuardrails())],
  );
  await db.query(ENSURE_SWITCH_ROWS_SQL, [projectId]);
}

export async function readGuardrails(
  db: Queryable,
  projectId: number,
  options: { forUpdate?: boolean } = {},
): Promise<GuardrailsRow> {
  const { rows } = await db.query<GuardrailsRow>(
    `SELECT * FROM ai_guardrails WHERE project_id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [projectId],
  );
  if (rows[0] === undefined) throw new Error(`no guardrails row for project ${projectId}`);
  return rows[0];
}

/** The project's guardrails, or null while nobody has read or set them (the defaults: shadow mode). */
export async function findGuardrails(db: Queryable, projectId: number): Promise<GuardrailsRow | null> {
  const { rows } = await db.query<GuardrailsRow>('SELECT * FROM ai_guardrails WHERE project_id = $1', [
    projectId,
  ]);
  return rows[0] ?? null;
}

export async function writeGuardrails(
  db: Queryable,
  projectId: number,
  document: GuardrailsDocument,
  updatedBy: number,
): Promise<GuardrailsRow> {
  const { rows } = await db.query<GuardrailsRow>(
    `UPDATE ai_guardrails SET document = $2::jsonb, version = version + 1, updated_at = now(), updated_by = $3
      WHERE project_id = $1 RETURNING *`,
    [projectId, JSON.stringify(document), updatedBy],
  );
  return rows[0]!;
}

/** The global switch, and the project's when a project is given (global first). */
export async function readSwitches(db: Queryable, projectId: number | null): Promise<KillSwitchRow[]> {
  const { rows } = await db.query<KillSwitchRow>(
    `SELECT * FROM ai_kill_switches WHERE project_id IN (${GLOBAL_SWITCH}, $1) ORDER BY project_id`,
    [projectId ?? GLOBAL_SWITCH],
  );
  return rows;
}

/** One switch row, locked FOR UPDATE (created inactive when missing): kill waits for gates in flight. */
export async function lockSwitch(client: pg.PoolClient, switchId: number): Promise<KillSwitchRow> {
  await client.query(ENSURE_SWITCH_ROWS_SQL, [switchId]);
  const { rows } = await client.query<KillSwitchRow>(
    `SELECT * FROM ai_kill_switches WHERE project_id = $1 FOR UPDATE`,
    [switchId],
  );
  return rows[0]!;
}

export async function activateSwitch(
  client: pg.PoolClient,
  switchId: number,
  reason: string,
  userId: number,
): Promise<KillSwitchRow> {
  const { rows } = await client.query<KillSwitchRow>(
    `UPDATE ai_kill_switches
        SET active = true, reason = $2, activated_at = now(), activated_by = $3,
            cleared_at = NULL, cleared_by = NULL, clear_reason = NULL
      WHERE project_id = $1 RETURNING *`,
    [switchId, reason, userId],
  );
  return rows[0]!;
}

export async function clearSwitch(
  client: pg.PoolClient,
  switchId: number,
  reason: string,
  userId: number,
): Promise<KillSwitchRow> {
  const { rows } = await client.query<KillSwitchRow>(
    `UPDATE ai_kill_switches SET active = false, cleared_at = now(), cleared_by = $3, clear_reason = $2
      WHERE project_id = $1 RETURNING *`,
    [switchId, reason, userId],
  );
  return rows[0]!;
}

export async function insertEvents(
  client: pg.PoolClient,
  events: readonly DomainEvent<object>[],
): Promise<void> {
  const insert = outboxInsert(events);
  await client.query(insert.text, insert.values);
}

export interface LastDay {
  predictions: number;
  executed: number;
  acknowledged: number;
  reverted: number;
  pending_review: number;
}

/**
 * The project's last 24 hours: predictions recorded; of the actions created, those executed and
 * those acknowledged, reverted or waiting for review now.
 */
export async function lastDay(db: Queryable, projectId: number): Promise<LastDay> {
  const { rows } = await db.query<LastDay>(
    `SELECT (SELECT count(*)::int FROM ai_predictions
              WHERE project_id = $1 AND created_at > now() - interval '24 hours') AS predictions,
            count(*) FILTER (WHERE executed_at IS NOT NULL)::int AS executed,
            count(*) FILTER (WHERE status = 'acknowledged')::int AS acknowledged,
            count(*) FILTER (WHERE status = 'reverted')::int AS reverted,
            count(*) FILTER (WHERE status = 'pending_review')::int AS pending_review
       FROM ai_actions WHERE project_id = $1 AND created_at > now() - interval '24 hours'`,
    [projectId],
  );
  return rows[0]!;
}

/**
 * Calendars and policies of a project (docs/sla.md, "The service"): stored as the JSON
 * @tix/business-time validates, every refusal a 422 with all the field errors at once.
 * A policy is kept in its project's order (`position`, 0-based, dense).
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import {
  type Calendar,
  MAX_POLICIES,
  type Policy,
  validateCalendar,
  validatePolicy,
} from '@tix/business-time';
import { AppError, fieldError, inTransaction, jsonNestingExceeds, jsonTooDeepMessage } from '@tix/kit';
import type { sla } from '@tix/protos';

export const CALENDAR_NOT_FOUND = 'Calendar not found';
export const POLICY_NOT_FOUND = 'Policy not found';
/** At most this many calendars per project. */
export const MAX_CALENDARS = 100;
/** A calendar or policy JSON longer than this is refused before it is parsed. */
export const MAX_DEFINITION_CHARS = 1_048_576;
const MAX_NAME = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface CalendarRow {
  id: string;
  project_id: number;
  name: string;
  definition: Calendar;
  created_at: Date;
  updated_at: Date;
}

interface PolicyRow {
  id: string;
  project_id: number;
  position: number;
  definition: Omit<Policy, 'id'>;
  created_at: Date;
  updated_at: Date;
}

const presentCalendar = (row: CalendarRow): sla.Calendar => ({
  id: row.id,
  project_id: row.project_id,
  name: row.name,
  calendar_json: JSON.stringify(row.definition),
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

const presentPolicy = (row: PolicyRow): sla.Policy => ({
  id: row.id,
  project_id: row.project_id,
  position: row.position,
  policy_json: JSON.stringify({ id: row.id, ...row.definition }),
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

function parseJson(field: string, text: string): unknown {
  if (text.length > MAX_DEFINITION_CHARS)
    throw fieldError(field, `at most ${MAX_DEFINITION_CHARS} characters`);
  if (jsonNestingExceeds(text)) throw fieldError(field, jsonTooDeepMessage());
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw fieldError(field, `${field} must be JSON`);
  }
}

function checkProject(projectId: number): void {
  if (!Number.isInteger(projectId) || projectId <= 0)
    throw fieldError('project_id', 'project_id must be a positive integer');
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_NAME)
    throw fieldError('name', `name must be 1 to ${MAX_NAME} characters`);
  return trimmed;
}

function validCalendar(text: string): Calendar {
  const result = validateCalendar(parseJson('calendar_json', text));
  if (!result.ok) throw AppError.validation(result.errors);
  return result.value;
}

/** The policy without its id (the row's), checked against the project's calendars. */
async function validPolicy(db: pg.ClientBase, projectId: number, id: string, text: string) {
  const input = parseJson('policy_json', text);
  if (input && typeof input === 'object' && !Array.isArray(input) && 'id' in input)
    throw fieldError('id', 'id is assigned by the service');
  const { rows } = await db.query<{ id: string }>('SELECT id FROM calendars WHERE project_id = $1', [
    projectId,
  ]);
  const result = validatePolicy(
    { ...(input as Record<string, unknown>), id },
    new Set(rows.map((row) => row.id)),
  );
  if (!result.ok) throw AppError.validation(result.errors);
  const { id: _id, ...definition } = result.value;
  return definition;
}

const isId = (id: string) => UUID.test(id);

// --- calendars

export async function listCalendars(pool: pg.Pool, projectId: number): Promise<sla.CalendarList> {
  const { rows } = await pool.query<CalendarRow>(
    'SELECT * FROM calendars WHERE project_id = $1 ORDER BY created_at, id',
    [projectId],
  );
  return { calendars: rows.map(presentCalendar) };
}

async function calendarRow(db: pg.Pool | pg.ClientBase, projectId: number, id: string, lock = false) {
  if (!isId(id)) throw AppError.notFound(CALENDAR_NOT_FOUND);
  const { rows } = await db.query<CalendarRow>(
    `SELECT * FROM calendars WHERE project_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [projectId, id],
  );
  if (!rows[0]) throw AppError.notFound(CALENDAR_NOT_FOUND);
  return rows[0];
}

export async function getCalendar(pool: pg.Pool, projectId: number, id: string): Promise<sla.Calendar> {
  return presentCalendar(await calendarRow(pool, projectId, id));
}

/** Serialises the definition writes of one project (the calendar count, the policy order). */
const lockProject = (db: pg.ClientBase, projectId: number) =>
  db.query("SELECT pg_advisory_xact_lock(hashtext('sla-project'), $1)", [projectId]);

export async function createCalendar(pool: pg.Pool, request: sla.CreateCalendarRequest__Output) {
  checkProject(request.project_id);
  const name = checkName(request.name);
  const definition = validCalendar(request.calendar_json);
  return inTransaction(pool, async (tx) => {
    await lockProject(tx, request.project_id);
    const { rows: count } = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM calendars WHERE project_id = $1',
      [request.project_id],
    );
    if (count[0]!.n >= MAX_CALENDARS)
      throw fieldError('calendars', `a project has at most ${MAX_CALENDARS} calendars`);
    const { rows } = await tx.query<CalendarRow>(
      'INSERT INTO calendars (id, project_id, name, definition) VALUES ($1, $2, $3, $4) RETURNING *',
      [randomUUID(), request.project_id, name, JSON.stringify(definition)],
    );
    return presentCalendar(rows[0]!);
  });
}

export async function updateCalendar(pool: pg.Pool, request: sla.UpdateCalendarRequest__Output) {
  const name = checkName(request.name);
  const definition = validCalendar(request.calendar_json);
  return inTransaction(pool, async (tx) => {
    await calendarRow(tx, request.project_id, request.id, true);
    const { rows } = await tx.query<CalendarRow>(
      `UPDATE calendars SET name = $3, definition = $4, updated_at = now()
        WHERE project_id = $1 AND id = $2 RETURNING *`,
      [request.project_id, request.id, name, JSON.stringify(definition)],
    );
    return presentCalendar(rows[0]!);
  });
}

export async function deleteCalendar(pool: pg.Pool, projectId: number, id: string) {
  return inTransaction(pool, async (tx) => {
    await lockProject(tx, projectId);
    await calendarRow(tx, projectId, id, true);
    const { rows } = await tx.query<{ id: string }>(
      "SELECT id FROM policies WHERE project_id = $1 AND definition->>'calendar_id' = $2 ORDER BY position",
      [projectId, id],
    );
    if (rows.length > 0)
      throw AppError.conflict(`The calendar is used by policy ${rows.map((row) => row.id).join(', ')}`);
    await tx.query('DELETE FROM calendars WHERE project_id = $1 AND id = $2', [projectId, id]);
  });
}

// --- policies

export async function listPolicies(pool: pg.Pool, projectId: number): Promise<sla.PolicyList> {
  const { rows } = await pool.query<PolicyRow>(
    'SELECT * FROM policies WHERE project_id = $1 ORDER BY position',
    [projectId],
  );
  return { policies: rows.map(presentPolicy) };
}

async function policyRow(db: pg.Pool | pg.ClientBase, projectId: number, id: string) {
  if (!isId(id)) throw AppError.notFound(POLICY_NOT_FOUND);
  const { rows } = await db.query<PolicyRow>('SELECT * FROM policies WHERE project_id = $1 AND id = $2', [
    projectId,
    id,
  ]);
  if (!rows[0]) throw AppError.notFound(POLICY_NOT_FOUND);
  return rows[0];
}

export async function getPolicy(pool: pg.Pool, projectId: number, id: string): Promise<sla.Policy> {
  return presentPolicy(await policyRow(pool, projectId, id));
}

function checkPosition(position: number | undefined, count: number): number | undefined {
  if (position === undefined) return undefined;
  if (!Number.isInteger(position) || position < 0 || position > count)
    throw fieldError('position', `position must be from 0 to ${count}`);
  return position;
}

/** Moves policy `id` to `to` in the project's order, keeping positions dense. */
async function place(tx: pg.ClientBase, projectId: number, id: string, to: number) {
  const { rows } = await tx.query<{ id: string }>(
    'SELECT id FROM policies WHERE project_id = $1 AND id <> $2 ORDER BY position',
    [projectId, id],
  );
  const order = rows.map((row) => row.id);
  order.splice(to, 0, id);
  await tx.query(
    `UPDATE policies p SET position = o.position - 1
       FROM unnest($2::uuid[]) WITH ORDINALITY AS o(id, position)
      WHERE p.project_id = $1 AND p.id = o.id`,
    [projectId, order],
  );
}

export async function createPolicy(pool: pg.Pool, request: sla.CreatePolicyRequest__Output) {
  checkProject(request.project_id);
  return inTransaction(pool, async (tx) => {
    await lockProject(tx, request.project_id);
    const id = randomUUID();
    const definition = await validPolicy(tx, request.project_id, id, request.policy_json);
    const { rows: count } = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM policies WHERE project_id = $1',
      [request.project_id],
    );
    const n = count[0]!.n;
    if (n >= MAX_POLICIES) throw fieldError('policies', `a project has at most ${MAX_POLICIES} policies`);
    const position = checkPosition(request.position, n) ?? n;
    await tx.query('INSERT INTO policies (id, project_id, position, definition) VALUES ($1, $2, $3, $4)', [
      id,
      request.project_id,
      n,
      JSON.stringify(definition),
    ]);
    await place(tx, request.project_id, id, position);
    return presentPolicy(await policyRow(tx, request.project_id, id));
  });
}

export async function updatePolicy(pool: pg.Pool, request: sla.UpdatePolicyRequest__Output) {
  return inTransaction(pool, async (tx) => {
    await lockProject(tx, request.project_id);
    await policyRow(tx, request.project_id, request.id);
    const definition = await validPolicy(tx, request.project_id, request.id, request.policy_json);
    const { rows: count } = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM policies WHERE project_id = $1',
      [request.project_id],
    );
    const position = checkPosition(request.position, count[0]!.n - 1);
    await tx.query(
      'UPDATE policies SET definition = $3, updated_at = now() WHERE project_id = $1 AND id = $2',
      [request.project_id, request.id, JSON.stringify(definition)],
    );
    if (position !== undefined) await place(tx, request.project_id, request.id, position);
    return presentPolicy(await policyRow(tx, request.project_id, request.id));
  });
}

export async function deletePolicy(pool: pg.Pool, projectId: number, id: string) {
  return inTransaction(pool, async (tx) => {
    await lockProject(tx, projectId);
    await policyRow(tx, projectId, id);
    await tx.query('DELETE FROM policies WHERE project_id = $1 AND id = $2', [projectId, id]);
    await tx.query(
      `UPDATE policies p SET position = o.position - 1
         FROM (SELECT id, row_number() OVER (ORDER BY position) AS position FROM policies WHERE project_id = $1) o
        WHERE p.id = o.id`,
      [projectId],
    );
  });
}

/** The project's policies in order and its calendars by id, as the clock engine takes them. */
export async function projectDefinitions(
  db: pg.ClientBase,
  projectId: number,
): Promise<{ policies: Policy[]; calendars: Record<string, Calendar> }> {
  const policies = await db.query<PolicyRow>(
    'SELECT * FROM policies WHERE project_id = $1 ORDER BY position',
    [projectId],
  );
  const calendars = await db.query<CalendarRow>('SELECT * FROM calendars WHERE project_id = $1 ORDER BY id', [
    projectId,
  ]);
  return {
    policies: policies.rows.map((row) => ({ id: row.id, ...row.definition })),
    calendars: Object.fromEntries(calendars.rows.map((row) => [row.id, row.definition])),
  };
}

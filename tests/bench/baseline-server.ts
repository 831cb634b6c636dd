/**
 * The bench's yardstick: the four measured operations as a minimal single-process Express + pg app
 * on the ticket service's own tables, answering the same paths with the same JSON (envelope
 * included) as the gateway. It does what the SQL of each operation needs and nothing else:
 * - authentication is one constant-time comparison against the one known key (no database, no
 *   cache, no scopes), the project is fixed at start (prefix and status labels held in memory);
 * - get: one query; list: the page and the total as two concurrent queries; board: the capped lanes
 *   (one LATERAL query) and the exact counts concurrently; create: one transaction (counter +1,
 *   last rank of the first lane, insert), without the outbox row, custom-field or assignee checks;
 * - the scale bench's reads: list and board filtered by status, assignee, tag (and priority), `q`
 *   as ILIKE on title or description with every match at once (the trigram indexes serve both
 *   targets), offset pages only (no cursor); bulk update of the priority of up to 100 tickets.
 * Errors are answered in the spec's envelope so that a broken run shows up as non-2xx, not as noise.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import pg from 'pg';
import { BOARD_LIMITS, MAX_INT32, TICKET_PRIORITIES } from '@tix/protos';
import type { BenchProject } from './environment.js';
import { laneRankAfter } from './lane-rank.js';

export interface BaselineOptions {
  connectionString: string;
  project: BenchProject;
  apiKey: string;
  /** The user the key acts as (created_by of new tickets). */
  userId: number;
  /** Pool size; the ticket service's default DATABASE_POOL_SIZE is 20. */
  poolSize?: number;
  port?: number;
  /**
   * Send the SQL as named statements (parsed and planned once per connection), as the ticket service
   * does. Off by default: the issue's baseline is the plain Express + pg app a person would write.
   */
  prepared?: boolean;
}

export interface RunningBaseline {
  url: string;
  close(): Promise<void>;
}

const PRIORITY_LABELS: Record<string, string> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  critical: 'Critical',
};
const PRIORITIES = new Set<string>(TICKET_PRIORITIES);
const TICKET_ID = /^[1-9][0-9]{0,9}$/;

const COLUMNS = `id, project_id, ticket_type_id, project_ref_id, title, description, status, priority,
  assigned_to, created_by, updated_by, custom_fields, source_type, merged_into_id, resolution_type, tags,
  version, created_at, updated_at`;

interface TicketRow {
  id: number;
  project_id: number;
  ticket_type_id: number;
  project_ref_id: number;
  title: string;
  description: string | null;
  status: string;
  priority: string;
  assigned_to: number | null;
  created_by: number;
  updated_by: number | null;
  custom_fields: Record<string, unknown>;
  source_type: string;
  merged_into_id: number | null;
  resolution_type: string | null;
  tags: string[];
  version: number;
  created_at: Date;
  updated_at: Date;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly validationErrors?: Record<string, string[]>,
  ) {
    super(message);
  }
}

/** The public Ticket JSON, field for field as @tix/protos presentTicket writes it. */
function presentRow(row: TicketRow, project: BenchProject, labels: Map<string, string>) {
  return {
    id: row.id,
    project_id: row.project_id,
    ticket_type_id: row.ticket_type_id,
    project_ref_id: row.project_ref_id,
    ticket_number: `${project.prefix}-${row.project_ref_id}`,
    title: row.title,
    description: row.description,
    status: row.status,
    status_label: labels.get(row.status) ?? row.status,
    priority: row.priority,
    priority_label: PRIORITY_LABELS[row.priority] ?? row.priority,
    assigned_to: row.assigned_to,
    created_by: row.created_by,
    updated_by: row.updated_by,
    custom_fields: row.custom_fields,
    source_type: row.source_type,
    merged_into_id: row.merged_into_id,
    version: row.version,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    tags: row.tags,
    resolution_type: row.resolution_type,
    ...(row.merged_into_id === null ? {} : { merged_into: row.merged_into_id }),
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** A positive query integer within bounds, else 400 naming the parameter. */
function queryInt(request: Request, name: string, fallback: number, max: number): number {
  const raw = request.query[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^[0-9]{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new HttpError(400, 'Invalid query parameters', { [name]: [`must be an integer from 1 to ${max}`] });
  }
  return Number(raw);
}

/** A query string value, else 400 naming the parameter. */
function queryText(request: Request, name: string): string | undefined {
  const raw = request.query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 50) {
    throw new HttpError(400, 'Invalid query parameters', { [name]: ['must be 1 to 50 characters'] });
  }
  return raw;
}

/**
 * The WHERE of a list or board (values[0] is the project id): live tickets of the project, narrowed by
 * the filters the scale bench sends (status, assignee, tag, priority). Pushes the filter values.
 */
function filterSql(request: Request, values: unknown[]): string {
  const conditions = ['project_id = $1', 'deleted_at IS NULL'];
  const status = queryText(request, 'status');
  if (status !== undefined) {
    values.push(status);
    conditions.push(`status = $${values.length}`);
  }
  if (request.query.assignee !== undefined) {
    values.push(queryInt(request, 'assignee', 1, MAX_INT32));
    conditions.push(`assigned_to = $${values.length}`);
  }
  const tag = queryText(request, 'tag');
  if (tag !== undefined) {
    values.push([tag.trim().toLowerCase()]);
    conditions.push(`tags @> $${values.length}::text[]`);
  }
  const priority = queryText(request, 'priority');
  if (priority !== undefined) {
    if (!PRIORITIES.has(priority)) {
      throw new HttpError(400, 'Invalid query parameters', {
        priority: ['must be low, medium, high or critical'],
      });
    }
    values.push(priority);
    conditions.push(`priority = $${values.length}::ticket_priority`);
  }
  return conditions.join(' AND ');
}

/** Starts the baseline on 127.0.0.1 (port 0 = any free port). */
export async function startBaselineServer(options: BaselineOptions): Promise<RunningBaseline> {
  const { project } = options;
  const projectId = project.id;
  const labels = new Map(project.statuses.map((status) => [status.slug, status.label]));
  const laneSlugs = project.statuses.map((status) => status.slug);
  const firstStatus = laneSlugs[0];
  if (!firstStatus) throw new Error('the project has no statuses');
  const expectedKey = digest(options.apiKey);
  // Idle connections go after a second: PostgreSQL's default 100 connections are shared with the
  // fleet, whose pools fill at scale; the baseline's must not still hold 20 when the fleet's turn comes.
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 20,
    idleTimeoutMillis: 1_000,
  });
  pool.on('error', () => undefined);
  const present = (row: TicketRow) => presentRow(row, project, labels);
  const send = (response: Response, status: number, data: unknown) => {
    response.status(status).json({ ok: true, data });
  };

  const app = express();
  app.set('etag', false);
  app.set('x-powered-by', false);

  app.use((request: Request, _response: Response, next: NextFunction) => {
    const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '');
    if (!match || !timingSafeEqual(digest(match[1]!.trim()), expectedKey)) {
      throw new HttpError(401, 'Invalid API key');
    }
    next();
  });
  app.use(express.json({ limit: '1mb' }));

  // With --baseline-prepared, named statements as the ticket service uses: each connection parses and
  // plans a query once, so the comparison measures only the fleet's architecture.
  const statementNames = new Map<string, string>();
  const statement = (text: string, values: unknown[]): pg.QueryConfig => {
    if (!options.prepared) return { text, values };
    let name = statementNames.get(text);
    if (name === undefined) {
      name = `baseline_${statementNames.size + 1}`;
      statementNames.set(text, name);
    }
    return { name, text, values };
  };

  app.get('/v1/tickets/:id', async (request, response) => {
    const raw = request.params.id;
    if (!TICKET_ID.test(raw) || Number(raw) > MAX_INT32) throw new HttpError(400, 'Invalid ticket id');
    const { rows } = await pool.query<TicketRow>(
      statement(`SELECT ${COLUMNS} FROM tickets WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL`, [
        Number(raw),
        projectId,
      ]),
    );
    if (!rows[0]) throw new HttpError(404, 'Ticket not found');
    send(response, 200, { ticket: present(rows[0]) });
  });

  app.get('/v1/tickets', async (request, response) => {
    const values: unknown[] = [projectId];
    const where = filterSql(request, values);
    const q = request.query.q;
    if (q !== undefined) {
      // As the spec says: a search answers every match at once, without pagination.
      if (typeof q !== 'string' || q.length === 0 || q.length > 200) {
        throw new HttpError(400, 'Invalid query parameters', { q: ['must be 1 to 200 characters'] });
      }
      values.push(`%${q.replace(/[\\%_]/g, (character) => `\\${character}`)}%`);
      const { rows } = await pool.query<TicketRow>(
        statement(
          `SELECT ${COLUMNS} FROM tickets WHERE ${where}
             AND (title ILIKE $${values.length} OR description ILIKE $${values.length})
           ORDER BY created_at DESC, id DESC`,
          values,
        ),
      );
      send(response, 200, { tickets: rows.map(present) });
      return;
    }
    const page = queryInt(request, 'page', 1, MAX_INT32);
    const perPage = queryInt(request, 'per_page', 50, 100);
    const filterValues = [...values];
    values.push(perPage, (page - 1) * perPage);
    const [list, count] = await Promise.all([
      pool.query<TicketRow>(
        statement(
          `SELECT ${COLUMNS} FROM tickets WHERE ${where}
         ORDER BY created_at DESC, id DESC LIMIT $${values.length - 1} OFFSET $${values.length}`,
          values,
        ),
      ),
      pool.query<{ total: number }>(
        statement(`SELECT count(*)::int AS total FROM tickets WHERE ${where}`, filterValues),
      ),
    ]);
    const total = count.rows[0]!.total;
    send(response, 200, {
      tickets: list.rows.map(present),
      pagination: { total, page, per_page: perPage, total_pages: Math.ceil(total / perPage) },
    });
  });

  // Bulk update: one transaction that locks the listed tickets in id order (so concurrent bulks on
  // the same tickets wait instead of deadlocking) and updates them in one statement.
  app.post('/v1/tickets/bulk-update', async (request, response) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const ids = body.ticket_ids;
    if (
      !Array.isArray(ids) ||
      ids.length < 1 ||
      ids.length > 100 ||
      !ids.every((id) => Number.isInteger(id) && id > 0 && id <= MAX_INT32)
    ) {
      throw new HttpError(422, 'Validation failed', { ticket_ids: ['Give 1 to 100 ticket IDs'] });
    }
    if (typeof body.priority !== 'string' || !PRIORITIES.has(body.priority)) {
      throw new HttpError(422, 'Validation failed', { priority: ['Invalid priority'] });
    }
    const wanted = [...new Set(ids as number[])];
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        statement(
          `SELECT id FROM tickets WHERE project_id = $1 AND id = ANY($2::int[]) AND deleted_at IS NULL
         ORDER BY id FOR UPDATE`,
          [projectId, wanted],
        ),
      );
      const updated = await client.query<TicketRow>(
        statement(
          `UPDATE tickets SET priority = $3::ticket_priority, updated_by = $4, version = version + 1,
             updated_at = now()
           WHERE project_id = $1 AND id = ANY($2::int[]) AND deleted_at IS NULL
           RETURNING ${COLUMNS}`,
          [projectId, wanted, body.priority, options.userId],
        ),
      );
      await client.query('COMMIT');
      const found = new Set(updated.rows.map((row) => row.id));
      const failed = wanted.filter((id) => !found.has(id));
      send(response, 200, {
        success_count: updated.rows.length,
        failed_count: failed.length,
        failed_ids: failed,
        tickets: updated.rows.sort((a, b) => a.id - b.id).map(present),
      });
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  });

  app.post('/v1/tickets', async (request, response) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const title = typeof body.title === 'string' ? body.title.trim() : '';
    const priority = body.priority ?? 'medium';
    const errors: Record<string, string[]> = {};
    if (!Number.isInteger(body.ticket_type_id)) errors.ticket_type_id = ['Ticket type is required'];
    if (title.length === 0 || [...title].length > 200) errors.title = ['Title must be 1 to 200 characters'];
    if (typeof priority !== 'string' || !PRIORITIES.has(priority)) errors.priority = ['Invalid priority'];
    if (Object.keys(errors).length > 0) throw new HttpError(422, 'Validation failed', errors);
    const description = typeof body.description === 'string' ? body.description : null;
    const tags = Array.isArray(body.tags) ? body.tags.map((tag) => String(tag).trim().toLowerCase()) : [];

    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // The counter row lock serialises creates of the project, so the last rank read below is stable.
      const counter = await client.query<{ ref: number }>(
        statement(
          `INSERT INTO project_counters (project_id, last_ref_id) VALUES ($1, 1)
         ON CONFLICT (project_id) DO UPDATE SET last_ref_id = project_counters.last_ref_id + 1
         RETURNING last_ref_id AS ref`,
          [projectId],
        ),
      );
      const last = await client.query<{ lane_rank: string }>(
        statement(
          `SELECT lane_rank FROM tickets WHERE project_id = $1 AND status = $2 AND deleted_at IS NULL
         ORDER BY lane_rank DESC LIMIT 1`,
          [projectId, firstStatus],
        ),
      );
      const inserted = await client.query<TicketRow>(
        statement(
          `INSERT INTO tickets (project_id, ticket_type_id, project_ref_id, title, description, status, priority,
           created_by, source_type, tags, lane_rank)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'api', $9, $10)
         RETURNING ${COLUMNS}`,
          [
            projectId,
            body.ticket_type_id,
            counter.rows[0]!.ref,
            title,
            description,
            firstStatus,
            priority,
            options.userId,
            tags,
            laneRankAfter(last.rows[0]?.lane_rank ?? null),
          ],
        ),
      );
      await client.query('COMMIT');
      send(response, 201, { ticket: present(inserted.rows[0]!) });
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  });

  app.get('/v1/board', async (request, response) => {
    const laneLimit = queryInt(
      request,
      'lane_limit',
      BOARD_LIMITS.defaultLaneLimit,
      BOARD_LIMITS.maxLaneLimit,
    );
    const values: unknown[] = [projectId];
    const where = filterSql(request, values);
    const countValues = [...values];
    values.push(laneSlugs, laneLimit);
    const [lanes, counts] = await Promise.all([
      pool.query<TicketRow>(
        statement(
          `SELECT t.* FROM unnest($${values.length - 1}::text[]) WITH ORDINALITY AS lane(slug, position)
         CROSS JOIN LATERAL (
           SELECT ${COLUMNS}, lane_rank FROM tickets
           WHERE ${where} AND status = lane.slug
           ORDER BY lane_rank LIMIT $${values.length}
         ) t
         ORDER BY lane.position, t.lane_rank`,
          values,
        ),
      ),
      pool.query<{ status: string; count: number }>(
        statement(
          `SELECT status, count(*)::int AS count FROM tickets WHERE ${where} GROUP BY status`,
          countValues,
        ),
      ),
    ]);
    const board: Record<string, ReturnType<typeof present>[]> = {};
    const laneCounts: Record<string, number> = {};
    for (const slug of laneSlugs) {
      board[slug] = [];
      laneCounts[slug] = 0;
    }
    for (const row of lanes.rows) board[row.status]!.push(present(row));
    let total = 0;
    for (const { status, count } of counts.rows) {
      if (status in laneCounts) {
        laneCounts[status] = count;
        total += count;
      }
    }
    send(response, 200, { lanes: board, counts: { ...laneCounts, total } });
  });

  app.use((_request: Request, _response: Response, next: NextFunction) =>
    next(new HttpError(404, 'Not found')),
  );
  app.use((error: unknown, _request: Request, response: Response, _next: NextFunction) => {
    const known =
      error instanceof HttpError
        ? error
        : (error as { type?: string }).type === 'entity.parse.failed'
          ? new HttpError(400, 'Malformed JSON')
          : new HttpError(500, 'Internal server error');
    if (known.status === 500) process.stderr.write(`baseline: ${(error as Error).stack ?? String(error)}\n`);
    response.status(known.status).json({
      ok: false,
      error: {
        code: known.status,
        message: known.message,
        ...(known.validationErrors ? { validation_errors: known.validationErrors } : {}),
      },
    });
  });

  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(options.port ?? 0, '127.0.0.1', (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  server.keepAliveTimeout = 65_000;
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

/** Reading and writing projects and their statuses (SQL only; no rules). */
import type pg from 'pg';
import { inTransaction, outboxInsert } from '@tix/kit';
import type { DomainEvent } from '@tix/protos';
import { prepared, violatedUniqueIndex } from '../db.js';
import { UniqueViolation } from '../shared/unique-violation.js';
import type { NewProject, StatusDefinition } from './project-rules.js';

export interface StatusRecord {
  slug: string;
  label: string;
  isClosed: boolean;
  position: number;
}

export interface ProjectRecord {
  id: number;
  name: string;
  slug: string;
  prefix: string;
  description: string;
  /** Ordered by position. */
  statuses: StatusRecord[];
}

export interface ProjectStore {
  findById(id: number): Promise<ProjectRecord | null>;
  findBySlug(slug: string): Promise<ProjectRecord | null>;
  /** Projects in id order; only `onlyId` when given. */
  list(options?: { onlyId?: number }): Promise<ProjectRecord[]>;
  /** Which of the unique identifiers are already taken by another project. */
  takenIdentifiers(slug: string, prefix: string): Promise<{ slug: boolean; prefix: boolean }>;
  /** Inserts the project with its statuses atomically; UniqueViolation('slug' | 'prefix') on a race. */
  create(project: NewProject): Promise<ProjectRecord>;
  /**
   * Edits a project in one transaction with its project row locked (concurrent edits of one project
   * run one after the other, each planned on the state the previous one left): `steps.plan` decides
   * from the locked project what to write (null: nothing, no event), then the new values and
   * `steps.event` are written. Null when there is no such project.
   */
  edit(id: number, steps: ProjectEditSteps): Promise<ProjectRecord | null>;
}

/** New values of a project; undefined ones stay. `statuses` is the whole workflow, in order. */
export interface ProjectEdit {
  name?: string;
  description?: string;
  statuses?: readonly StatusDefinition[];
}

export interface ProjectEditSteps {
  /** Runs on the locked project; throwing refuses the edit (nothing is written). */
  plan(before: ProjectRecord): ProjectEdit | null;
  /** The event of the edit, from the project before and after it. */
  event(after: ProjectRecord, before: ProjectRecord): DomainEvent<object>;
}

/** The statuses `s` as one JSON array in workflow order, so a project is read in one round trip. */
const STATUSES_JSON = `coalesce(json_agg(json_build_object('slug', s.slug, 'label', s.label,
  'isClosed', s.is_closed, 'position', s.position) ORDER BY s.position), '[]')`;

const SELECT_PROJECTS = `
  SELECT p.id, p.name, p.slug, p.prefix, p.description,
         (SELECT ${STATUSES_JSON} FROM project_statuses s WHERE s.project_id = p.id) AS statuses
    FROM projects p`;

const BY_ID = `${SELECT_PROJECTS} WHERE p.id = $1`;
const BY_SLUG = `${SELECT_PROJECTS} WHERE p.slug = $1`;
const LIST = `${SELECT_PROJECTS} WHERE $1::int IS NULL OR p.id = $1 ORDER BY p.id`;

/** The project and its statuses in one statement, so both or neither are written. */
const CREATE = `
  WITH p AS (
    INSERT INTO projects (name, slug, prefix, description, updated_at)
    VALUES ($1, $2, $3, $4, now())
    RETURNING id, name, slug, prefix, description
  ), inserted AS (
    INSERT INTO project_statuses (project_id, slug, label, is_closed, position)
    SELECT p.id, s.slug, s.label, s.is_closed, s.position
      FROM p, jsonb_to_recordset($5::jsonb) AS s(slug text, label text, is_closed boolean, position int)
    RETURNING slug, label, is_closed, position
  )
  SELECT p.id, p.name, p.slug, p.prefix, p.description, (SELECT ${STATUSES_JSON} FROM inserted s) AS statuses
    FROM p`;

const LOCK_PROJECT = 'SELECT id FROM projects WHERE id = $1 FOR UPDATE';
const UPDATE_PROJECT = `
  UPDATE projects SET name = COALESCE($2, name), description = COALESCE($3, description), updated_at = now()
   WHERE id = $1`;
/** Statuses no longer in the workflow go; their tickets are moved by the ticket service (project.updated). */
const DELETE_STATUSES = 'DELETE FROM project_statuses WHERE project_id = $1 AND slug <> ALL($2::text[])';
/**
 * Positions are unique per project and the index is checked row by row, so a reorder first moves
 * every position out of the way (to -1 - position: distinct, and never a final value)...
 */
const PARK_POSITIONS = 'UPDATE project_statuses SET position = -1 - position WHERE project_id = $1';
/** ...then writes each status (new ones inserted) with its final position. */
const WRITE_STATUSES = `
  INSERT INTO project_statuses (project_id, slug, label, is_closed, position)
  SELECT $1, s.slug, s.label, s.is_closed, s.position
    FROM jsonb_to_recordset($2::jsonb) AS s(slug text, label text, is_closed boolean, position int)
  ON CONFLICT (project_id, slug) DO UPDATE
    SET label = EXCLUDED.label, is_closed = EXCLUDED.is_closed, position = EXCLUDED.position`;

const UNIQUE_INDEX_FIELDS: Record<string, string> = {
  projects_slug_key: 'slug',
  projects_prefix_key: 'prefix',
};

/** A workflow as rows: position = index. */
function statusRows(statuses: readonly StatusDefinition[]) {
  return statuses.map((status, position) => ({
    slug: status.slug,
    label: status.label,
    is_closed: status.isClosed,
    position,
  }));
}

/** The SQL-backed project store. */
export function createProjectStore(pool: pg.Pool): ProjectStore {
  const one = async (text: string, value: unknown) =>
    (await pool.query<ProjectRecord>(prepared(text, [value]))).rows[0] ?? null;
  return {
    findById: (id) => one(BY_ID, id),
    findBySlug: (slug) => one(BY_SLUG, slug),
    async list(options = {}) {
      return (await pool.query<ProjectRecord>(LIST, [options.onlyId ?? null])).rows;
    },
    async takenIdentifiers(slug, prefix) {
      const { rows } = await pool.query<{ slug: string; prefix: string }>(
        'SELECT slug, prefix FROM projects WHERE slug = $1 OR prefix = $2',
        [slug, prefix],
      );
      return { slug: rows.some((r) => r.slug === slug), prefix: rows.some((r) => r.prefix === prefix) };
    },
    edit(id, steps) {
      return inTransaction(pool, async (client) => {
        const locked = await client.query(LOCK_PROJECT, [id]);
        if (locked.rowCount === 0) return null;
        const read = async () => (await client.query<ProjectRecord>(BY_ID, [id])).rows[0]!;
        const before = await read();
        const edit = steps.plan(before);
        if (edit === null) return before;
        await client.query(UPDATE_PROJECT, [id, edit.name ?? null, edit.description ?? null]);
        if (edit.statuses) {
          await client.query(DELETE_STATUSES, [id, edit.statuses.map((status) => status.slug)]);
          await client.query(PARK_POSITIONS, [id]);
          await client.query(WRITE_STATUSES, [id, JSON.stringify(statusRows(edit.statuses))]);
        }
        const after = await read();
        await client.query(outboxInsert([steps.event(after, before)]));
        return after;
      });
    },
    async create(project) {
      const statuses = statusRows(project.statuses);
      try {
        const { rows } = await pool.query<ProjectRecord>(CREATE, [
          project.name,
          project.slug,
          project.prefix,
          project.description,
          JSON.stringify(statuses),
        ]);
        return rows[0]!;
      } catch (error) {
        const index = violatedUniqueIndex(error);
        const field = index && UNIQUE_INDEX_FIELDS[index];
        if (field) throw new UniqueViolation(field);
        throw error;
      }
    },
  };
}

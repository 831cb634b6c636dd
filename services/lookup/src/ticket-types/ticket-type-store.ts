/** Reading and writing ticket types (SQL only; no rules). */
import type pg from 'pg';
import { inTransaction } from '@tix/kit';
import { prepared, violatedUniqueIndex } from '../db.js';
import { UniqueViolation } from '../shared/unique-violation.js';
import type { NewTicketType } from './ticket-type-rules.js';

export interface TicketTypeRecord {
  id: number;
  projectId: number;
  name: string;
  slug: string;
  description: string;
  isDefault: boolean;
  /** The field_schema array as stored (validated when it was saved). */
  fieldSchema: unknown;
}

export interface TicketTypeStore {
  /** The project's types in id order. */
  listByProject(projectId: number): Promise<TicketTypeRecord[]>;
  findInProject(projectId: number, id: number): Promise<TicketTypeRecord | null>;
  findBySlug(projectId: number, slug: string): Promise<TicketTypeRecord | null>;
  /** Which identifiers another type of the project already uses. */
  takenIdentifiers(projectId: number, name: string, slug: string): Promise<{ name: boolean; slug: boolean }>;
  /**
   * Inserts the type; when it is the default, unsets the previous default in the same transaction.
   * UniqueViolation('name' | 'slug') on a race.
   */
  create(projectId: number, type: NewTicketType): Promise<TicketTypeRecord>;
}

const COLUMNS = `id, project_id AS "projectId", name, slug, description, is_default AS "isDefault",
  field_schema AS "fieldSchema"`;

const LIST = `SELECT ${COLUMNS} FROM ticket_types WHERE project_id = $1 ORDER BY id`;
const IN_PROJECT = `SELECT ${COLUMNS} FROM ticket_types WHERE project_id = $1 AND id = $2`;
const BY_SLUG = `SELECT ${COLUMNS} FROM ticket_types WHERE project_id = $1 AND slug = $2`;
const TAKEN = 'SELECT name, slug FROM ticket_types WHERE project_id = $1 AND (name = $2 OR slug = $3)';
// Locking the project serialises default changes per project, so two concurrent "new default"
// requests cannot both leave their type marked default.
const LOCK_PROJECT = 'SELECT id FROM projects WHERE id = $1 FOR UPDATE';
const UNSET_DEFAULT =
  'UPDATE ticket_types SET is_default = false, updated_at = now() WHERE project_id = $1 AND is_default';
const CREATE = `
  INSERT INTO ticket_types (project_id, name, slug, description, is_default, field_schema, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6::jsonb, now())
  RETURNING ${COLUMNS}`;

const UNIQUE_INDEX_FIELDS: Record<string, string> = {
  ticket_types_project_id_name_key: 'name',
  ticket_types_project_id_slug_key: 'slug',
};

/** The SQL-backed ticket-type store. */
export function createTicketTypeStore(pool: pg.Pool): TicketTypeStore {
  const one = async (text: string, values: unknown[]) =>
    (await pool.query<TicketTypeRecord>(prepared(text, values))).rows[0] ?? null;
  return {
    async listByProject(projectId) {
      return (await pool.query<TicketTypeRecord>(LIST, [projectId])).rows;
    },
    findInProject: (projectId, id) => one(IN_PROJECT, [projectId, id]),
    findBySlug: (projectId, slug) => one(BY_SLUG, [projectId, slug]),
    async takenIdentifiers(projectId, name, slug) {
      const { rows } = await pool.query<{ name: string; slug: string }>(TAKEN, [projectId, name, slug]);
      return { name: rows.some((r) => r.name === name), slug: rows.some((r) => r.slug === slug) };
    },
    async create(projectId, type) {
      try {
        return await inTransaction(pool, async (client) => {
          if (type.isDefault) {
            await client.query(LOCK_PROJECT, [projectId]);
            await client.query(UNSET_DEFAULT, [projectId]);
          }
          const { rows } = await client.query<TicketTypeRecord>(CREATE, [
            projectId,
            type.name,
            type.slug,
            type.description,
            type.isDefault,
            JSON.stringify(type.fieldSchema),
          ]);
          return rows[0]!;
        });
      } catch (error) {
        const index = violatedUniqueIndex(error);
        const field = index && UNIQUE_INDEX_FIELDS[index];
        if (field) throw new UniqueViolation(field);
        throw error;
      }
    },
  };
}

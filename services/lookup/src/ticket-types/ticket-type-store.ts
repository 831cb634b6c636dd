/** Reading and writing ticket types, and ticket_type.updated in the same transaction (SQL only; no rules). */
import type pg from 'pg';
import type { FieldSchema } from '@tix/custom-fields';
import { inTransaction, outboxInsert } from '@tix/kit';
import type { DomainEvent } from '@tix/protos';
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
  /** When it was retired (it takes no new tickets), or null. */
  retiredAt: Date | null;
}

/** New values for a ticket type's columns; undefined ones stay as they are. */
export interface TicketTypeEdit {
  name?: string;
  description?: string;
  /** true also takes the flag from the project's previous default. */
  isDefault?: boolean;
  fieldSchema?: FieldSchema;
  /** A time retires the type (then), null brings it back. */
  retiredAt?: Date | null;
}

/** What an update asks of the store inside its transaction. */
export interface TicketTypeUpdateSteps {
  /**
   * Runs on the row as it is before the change, locked: the columns to write, or null when nothing
   * changes (nothing is written). Throwing refuses the change.
   */
  plan(before: TicketTypeRecord): TicketTypeEdit | null;
  /** The events of the change: the edited type after it, and every type that lost the default flag. */
  events(
    after: TicketTypeRecord,
    before: TicketTypeRecord,
    undefaulted: readonly TicketTypeRecord[],
  ): DomainEvent<object>[];
}

export interface TicketTypeStore {
  /** The project's types in id order. */
  listByProject(projectId: number): Promise<TicketTypeRecord[]>;
  findInProject(projectId: number, id: number): Promise<TicketTypeRecord | null>;
  findBySlug(projectId: number, slug: string): Promise<TicketTypeRecord | null>;
  /** Whether a type of the project other than `exceptId` is called `name`. */
  nameTakenByOther(projectId: number, name: string, exceptId: number): Promise<boolean>;
  /** Which identifiers another type of the project already uses. */
  takenIdentifiers(projectId: number, name: string, slug: string): Promise<{ name: boolean; slug: boolean }>;
  /**
   * Inserts the type; when it is the default, unsets the previous default and writes
   * `undefaultedEvents` of the types that lost the flag, in the same transaction.
   * UniqueViolation('name' | 'slug') on a race.
   */
  create(
    projectId: number,
    type: NewTicketType,
    undefaultedEvents?: (undefaulted: readonly TicketTypeRecord[]) => DomainEvent<object>[],
  ): Promise<TicketTypeRecord>;
  /**
   * Applies `steps.plan`'s columns to type `id` of the project and writes `steps.events` to the
   * outbox, in one transaction (`mayTakeDefault`: the request may make it the default, so the project
   * is locked first, as create does). Null when the project has no such type; `written` false when
   * the plan changed nothing. UniqueViolation('name') on a name race.
   */
  update(
    projectId: number,
    id: number,
    steps: TicketTypeUpdateSteps,
    options: { mayTakeDefault: boolean },
  ): Promise<{ type: TicketTypeRecord; written: boolean } | null>;
}

const COLUMNS = `id, project_id AS "projectId", name, slug, description, is_default AS "isDefault",
  field_schema AS "fieldSchema", retired_at AS "retiredAt"`;

const LIST = `SELECT ${COLUMNS} FROM ticket_types WHERE project_id = $1 ORDER BY id`;
const IN_PROJECT = `SELECT ${COLUMNS} FROM ticket_types WHERE project_id = $1 AND id = $2`;
const BY_SLUG = `SELECT ${COLUMNS} FROM ticket_types WHERE project_id = $1 AND slug = $2`;
const TAKEN = 'SELECT name, slug FROM ticket_types WHERE project_id = $1 AND (name = $2 OR slug = $3)';
const NAME_TAKEN_BY_OTHER = 'SELECT 1 FROM ticket_types WHERE project_id = $1 AND name = $2 AND id <> $3';
// Locking the project serialises default changes per project, so two concurrent "new default"
// requests cannot both leave their type marked default.
const LOCK_PROJECT = 'SELECT id FROM projects WHERE id = $1 FOR UPDATE';
const UNSET_DEFAULT = `
  UPDATE ticket_types SET is_default = false, updated_at = now() WHERE project_id = $1 AND is_default
  RETURNING ${COLUMNS}`;
const LOCK_TYPE = `SELECT ${COLUMNS} FROM ticket_types WHERE project_id = $1 AND id = $2 FOR UPDATE`;
const TAKE_DEFAULT = `
  UPDATE ticket_types SET is_default = false, updated_at = now()
   WHERE project_id = $1 AND is_default AND id <> $2
  RETURNING ${COLUMNS}`;
const UPDATE = `
  UPDATE ticket_types SET
    name = COALESCE($3, name),
    description = COALESCE($4, description),
    is_default = COALESCE($5, is_default),
    field_schema = COALESCE($6::jsonb, field_schema),
    retired_at = CASE WHEN $7::boolean THEN $8::timestamptz ELSE retired_at END,
    updated_at = now()
  WHERE project_id = $1 AND id = $2
  RETURNING ${COLUMNS}`;
const CREATE = `
  INSERT INTO ticket_types (project_id, name, slug, description, is_default, field_schema, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6::jsonb, now())
  RETURNING ${COLUMNS}`;

const UNIQUE_INDEX_FIELDS: Record<string, string> = {
  ticket_types_project_id_name_key: 'name',
  ticket_types_project_id_slug_key: 'slug',
};

/** The UniqueViolation a database error stands for, or the error itself. */
function asUniqueViolation(error: unknown): unknown {
  const index = violatedUniqueIndex(error);
  const field = index && UNIQUE_INDEX_FIELDS[index];
  return field ? new UniqueViolation(field) : error;
}

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
    async nameTakenByOther(projectId, name, exceptId) {
      return (await pool.query(NAME_TAKEN_BY_OTHER, [projectId, name, exceptId])).rowCount! > 0;
    },
    async takenIdentifiers(projectId, name, slug) {
      const { rows } = await pool.query<{ name: string; slug: string }>(TAKEN, [projectId, name, slug]);
      return { name: rows.some((r) => r.name === name), slug: rows.some((r) => r.slug === slug) };
    },
    async create(projectId, type, undefaultedEvents) {
      try {
        return await inTransaction(pool, async (client) => {
          if (type.isDefault) {
            await client.query(LOCK_PROJECT, [projectId]);
            const { rows: undefaulted } = await client.query<TicketTypeRecord>(UNSET_DEFAULT, [projectId]);
            const events = undefaulted.length > 0 ? (undefaultedEvents?.(undefaulted) ?? []) : [];
            if (events.length > 0) await client.query(outboxInsert(events));
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
        throw asUniqueViolation(error);
      }
    },
    async update(projectId, id, steps, options) {
      try {
        return await inTransaction(pool, async (client) => {
          // Project before type, the order create takes them in, so the two cannot deadlock.
          if (options.mayTakeDefault) await client.query(LOCK_PROJECT, [projectId]);
          const before = (await client.query<TicketTypeRecord>(LOCK_TYPE, [projectId, id])).rows[0];
          if (!before) return null;
          const edit = steps.plan(before);
          if (!edit) return { type: before, written: false };
          const undefaulted =
            edit.isDefault === true
              ? (await client.query<TicketTypeRecord>(TAKE_DEFAULT, [projectId, id])).rows
              : [];
          const { rows } = await client.query<TicketTypeRecord>(UPDATE, [
            projectId,
            id,
            edit.name ?? null,
            edit.description ?? null,
            edit.isDefault ?? null,
            edit.fieldSchema === undefined ? null : JSON.stringify(edit.fieldSchema),
            edit.retiredAt !== undefined,
            edit.retiredAt ?? null,
          ]);
          const after = rows[0]!;
          await client.query(outboxInsert(steps.events(after, before, undefaulted)));
          return { type: after, written: true };
        });
      } catch (error) {
        throw asUniqueViolation(error);
      }
    },
  };
}

/** Reading and writing users, and the user.updated event in the same transaction (SQL only; no rules). */
import type pg from 'pg';
import { inTransaction, outboxInsert } from '@tix/kit';
import type { DomainEvent, Role } from '@tix/protos';
import { prepared, violatedUniqueIndex } from '../db.js';
import { UniqueViolation } from '../shared/unique-violation.js';

export interface UserRecord {
  id: number;
  name: string;
  email: string;
  role: Role;
  isActive: boolean;
  /** The assistant's own user: never signs in, holds no keys, cannot be edited. */
  isSystem: boolean;
}

/** New values for a user's columns; undefined ones stay as they are. */
export interface UserColumnChanges {
  name?: string;
  role?: Role;
  isActive?: boolean;
  passwordHash?: string;
}

/** What an update may ask of the store inside its transaction. */
export interface UserUpdateSteps {
  /**
   * Runs on the row as it is before the change, locked, with a count of the active admins other than
   * this user (consistent: changes of role and active flag are serialised). Throwing refuses the
   * change: nothing is written.
   */
  check?(before: UserRecord, otherActiveAdmins: () => Promise<number>): void | Promise<void>;
  /** The event of the change, from the row before and after it. */
  event(after: UserRecord, before: UserRecord): DomainEvent<object>;
}

export interface UserStore {
  /** Users in id order, optionally only the active ones. */
  list(options: { activeOnly: boolean }): Promise<UserRecord[]>;
  /** The users among `ids`, in id order. */
  findByIds(ids: readonly number[]): Promise<UserRecord[]>;
  findById(id: number): Promise<UserRecord | null>;
  /** By normalised (lower-case) email. */
  findByEmail(email: string): Promise<UserRecord | null>;
  /** The user and their password hash (null when they have none), for sign-in only. */
  findCredentials(email: string): Promise<{ user: UserRecord; passwordHash: string | null } | null>;
  /** The user with that id and their password hash (null when they have none), for password changes only. */
  findCredentialsById(id: number): Promise<{ user: UserRecord; passwordHash: string | null } | null>;
  /**
   * Applies `changes` (bumping updated_at) and writes `steps.event` to the outbox, in one
   * transaction, after `steps.check` passed. Null when there is no such user.
   */
  update(id: number, changes: UserColumnChanges, steps: UserUpdateSteps): Promise<UserRecord | null>;
  /** The assistant's system user (made by a migration), or null when the migration did not run. */
  findSystem(): Promise<UserRecord | null>;
  /** UniqueViolation('email') when the email is taken. */
  create(user: { name: string; email: string; role: Role; passwordHash: string | null }): Promise<UserRecord>;
}

const PUBLIC_COLUMNS = 'id, name, email, role, is_active AS "isActive", is_system AS "isSystem"';

const LIST = `SELECT ${PUBLIC_COLUMNS} FROM users WHERE is_active OR NOT $1 ORDER BY id`;
const BY_IDS = `SELECT ${PUBLIC_COLUMNS} FROM users WHERE id = ANY($1::int[]) ORDER BY id`;
const BY_ID = `SELECT ${PUBLIC_COLUMNS} FROM users WHERE id = $1`;
/** A user record by id, for stores that read it on a connection of their own. */
export const USER_BY_ID = BY_ID;
/** The system users' addresses (made by migrations): the assistant's and the mail service's. */
export const ASSISTANT_EMAIL = 'ai@tix.invalid';
export const MAIL_USER_EMAIL = 'mail@tix.invalid';
const SYSTEM = `SELECT ${PUBLIC_COLUMNS} FROM users WHERE is_system AND email = '${ASSISTANT_EMAIL}'`;
const BY_EMAIL = `SELECT ${PUBLIC_COLUMNS} FROM users WHERE email = $1`;
const CREDENTIALS = `SELECT ${PUBLIC_COLUMNS}, password_hash AS "passwordHash" FROM users WHERE email = $1`;
const CREDENTIALS_BY_ID = `SELECT ${PUBLIC_COLUMNS}, password_hash AS "passwordHash" FROM users WHERE id = $1`;
const OTHER_ACTIVE_ADMINS = `
  SELECT count(*)::int AS n FROM users WHERE role = 'admin' AND is_active AND id <> $1`;
const LOCK_FOR_UPDATE = `SELECT ${PUBLIC_COLUMNS} FROM users WHERE id = $1 FOR UPDATE`;
/**
 * Taken (until commit) by every update that sets a role or the active flag, so that two concurrent
 * changes cannot each count the other's admin and together leave none. Such changes are rare.
 */
const ADMIN_CHANGES_LOCK = `SELECT pg_advisory_xact_lock(hashtext('lookup.users.active_admins'))`;
const UPDATE = `
  UPDATE users SET
    name = COALESCE($2, name),
    role = COALESCE($3::"Role", role),
    is_active = COALESCE($4, is_active),
    password_hash = COALESCE($5, password_hash),
    updated_at = now()
  WHERE id = $1
  RETURNING ${PUBLIC_COLUMNS}`;
const VOID_RESETS = `UPDATE password_resets SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`;
const CREATE = `
  INSERT INTO users (name, email, role, password_hash, updated_at) VALUES ($1, $2, $3::"Role", $4, now())
  RETURNING ${PUBLIC_COLUMNS}`;

/**
 * The update of UserStore.update on a connection already inside a transaction (the password reset
 * spends its token in the same one). Null when there is no such user.
 */
export async function updateUserIn(
  client: pg.PoolClient,
  id: number,
  changes: UserColumnChanges,
  steps: UserUpdateSteps,
): Promise<UserRecord | null> {
  if (changes.role !== undefined || changes.isActive !== undefined) await client.query(ADMIN_CHANGES_LOCK);
  const before = (await client.query<UserRecord>(LOCK_FOR_UPDATE, [id])).rows[0];
  if (!before) return null;
  await steps.check?.(
    before,
    async () => (await client.query<{ n: number }>(OTHER_ACTIVE_ADMINS, [id])).rows[0]!.n,
  );
  const { rows } = await client.query<UserRecord>(UPDATE, [
    id,
    changes.name ?? null,
    changes.role ?? null,
    changes.isActive ?? null,
    changes.passwordHash ?? null,
  ]);
  const after = rows[0]!;
  // A new password or a deactivation voids the user's unspent reset links.
  if (changes.passwordHash !== undefined || changes.isActive === false) await client.query(VOID_RESETS, [id]);
  await client.query(outboxInsert([steps.event(after, before)]));
  return after;
}

/** The SQL-backed user store. */
export function createUserStore(pool: pg.Pool): UserStore {
  const one = async (text: string, value: unknown) =>
    (await pool.query<UserRecord>(prepared(text, [value]))).rows[0] ?? null;
  return {
    async list({ activeOnly }) {
      return (await pool.query<UserRecord>(LIST, [activeOnly])).rows;
    },
    async findByIds(ids) {
      return (await pool.query<UserRecord>(prepared(BY_IDS, [ids]))).rows;
    },
    findById: (id) => one(BY_ID, id),
    findByEmail: (email) => one(BY_EMAIL, email),
    async findSystem() {
      return (await pool.query<UserRecord>(SYSTEM)).rows[0] ?? null;
    },
    async findCredentials(email) {
      const { rows } = await pool.query<UserRecord & { passwordHash: string | null }>(CREDENTIALS, [email]);
      if (!rows[0]) return null;
      const { passwordHash, ...user } = rows[0];
      return { user, passwordHash };
    },
    async findCredentialsById(id) {
      const { rows } = await pool.query<UserRecord & { passwordHash: string | null }>(CREDENTIALS_BY_ID, [
        id,
      ]);
      if (!rows[0]) return null;
      const { passwordHash, ...user } = rows[0];
      return { user, passwordHash };
    },
    update(id, changes, steps) {
      return inTransaction(pool, (client) => updateUserIn(client, id, changes, steps));
    },
    async create(user) {
      try {
        const { rows } = await pool.query<UserRecord>(CREATE, [
          user.name,
          user.email,
          user.role,
          user.passwordHash,
        ]);
        return rows[0]!;
      } catch (error) {
        if (violatedUniqueIndex(error) === 'users_email_key') throw new UniqueViolation('email');
        throw error;
      }
    },
  };
}

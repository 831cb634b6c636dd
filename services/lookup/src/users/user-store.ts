/** Reading and writing users (SQL only; no rules). */
import type pg from 'pg';
import type { Role } from '@tix/protos';
import { prepared, violatedUniqueIndex } from '../db.js';
import { UniqueViolation } from '../shared/unique-violation.js';

export interface UserRecord {
  id: number;
  name: string;
  email: string;
  role: Role;
  isActive: boolean;
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
  /** UniqueViolation('email') when the email is taken. */
  create(user: { name: string; email: string; role: Role; passwordHash: string | null }): Promise<UserRecord>;
}

const PUBLIC_COLUMNS = 'id, name, email, role, is_active AS "isActive"';

const LIST = `SELECT ${PUBLIC_COLUMNS} FROM users WHERE is_active OR NOT $1 ORDER BY id`;
const BY_IDS = `SELECT ${PUBLIC_COLUMNS} FROM users WHERE id = ANY($1::int[]) ORDER BY id`;
const BY_ID = `SELECT ${PUBLIC_COLUMNS} FROM users WHERE id = $1`;
const BY_EMAIL = `SELECT ${PUBLIC_COLUMNS} FROM users WHERE email = $1`;
const CREDENTIALS = `SELECT ${PUBLIC_COLUMNS}, password_hash AS "passwordHash" FROM users WHERE email = $1`;
const CREATE = `
  INSERT INTO users (name, email, role, password_hash, updated_at) VALUES ($1, $2, $3::"Role", $4, now())
  RETURNING ${PUBLIC_COLUMNS}`;

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
    async findCredentials(email) {
      const { rows } = await pool.query<UserRecord & { passwordHash: string | null }>(CREDENTIALS, [email]);
      if (!rows[0]) return null;
      const { passwordHash, ...user } = rows[0];
      return { user, passwordHash };
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

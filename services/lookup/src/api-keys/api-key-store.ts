/** Reading and writing API keys, and the revocation event in the same transaction (SQL only). */
import type pg from 'pg';
import { inTransaction, outboxInsert } from '@tix/kit';
import type { DomainEvent, Role } from '@tix/protos';
import { prepared } from '../db.js';

export interface ApiKeyRecord {
  id: number;
  name: string;
  prefix: string;
  scopes: string[];
  projectId: number | null;
  userId: number;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface NewApiKeyRow {
  name: string;
  prefix: string;
  keyHash: string;
  scopes: string[];
  projectId: number | null;
  userId: number;
}

export interface ApiKeyStore {
  create(key: NewApiKeyRow): Promise<ApiKeyRecord>;
  /** Keys in id order, optionally only a user's and/or a project's. */
  list(filter: { userId?: number; projectId?: number }): Promise<ApiKeyRecord[]>;
  /** The key with that hash and the state of its owner. */
  findByHash(
    keyHash: string,
  ): Promise<{ key: ApiKeyRecord; owner: { id: number; role: Role; isActive: boolean } } | null>;
  /** A user's unrevoked key with exactly this name (demo seeding recognises its keys by name). */
  findUnrevokedByName(userId: number, name: string): Promise<ApiKeyRecord | null>;
  /** Sets last_used_at = now unless it is later than `notBefore` (one conditional UPDATE, no read). */
  recordUse(id: number, now: Date, notBefore: Date): Promise<void>;
  /**
   * Revokes the key at `now` and writes `event(now)` to the outbox, in one transaction. A key that
   * was already revoked keeps its original time and gets no second event. Null when there is no such key.
   */
  revoke(
    id: number,
    now: Date,
    event: (revokedAt: Date) => DomainEvent<object>,
  ): Promise<{ revokedAt: Date; alreadyRevoked: boolean } | null>;
}

const COLUMNS = `k.id, k.name, k.prefix, k.scopes, k.project_id AS "projectId", k.user_id AS "userId",
  k.created_at AS "createdAt", k.last_used_at AS "lastUsedAt", k.revoked_at AS "revokedAt"`;

const CREATE = `
  INSERT INTO api_keys AS k (name, prefix, key_hash, scopes, project_id, user_id)
  VALUES ($1, $2, $3, $4, $5, $6)
  RETURNING ${COLUMNS}`;
const LIST = `
  SELECT ${COLUMNS} FROM api_keys k
   WHERE ($1::int IS NULL OR k.user_id = $1) AND ($2::int IS NULL OR k.project_id = $2)
   ORDER BY k.id`;
/** Every authenticated request's key, with its owner: one round trip. */
const BY_HASH = `
  SELECT ${COLUMNS}, u.role AS "ownerRole", u.is_active AS "ownerIsActive"
    FROM api_keys k JOIN users u ON u.id = k.user_id
   WHERE k.key_hash = $1`;
const UNREVOKED_BY_NAME = `
  SELECT ${COLUMNS} FROM api_keys k
   WHERE k.user_id = $1 AND k.name = $2 AND k.revoked_at IS NULL
   ORDER BY k.id LIMIT 1`;
const RECORD_USE = `
  UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)`;
// The row lock taken by this UPDATE makes concurrent revocations agree on one time and one event.
const REVOKE = 'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL';
const REVOKED_AT = 'SELECT revoked_at AS "revokedAt" FROM api_keys WHERE id = $1';

/** The SQL-backed API key store. */
export function createApiKeyStore(pool: pg.Pool): ApiKeyStore {
  return {
    async create(key) {
      const { rows } = await pool.query<ApiKeyRecord>(CREATE, [
        key.name,
        key.prefix,
        key.keyHash,
        key.scopes,
        key.projectId,
        key.userId,
      ]);
      return rows[0]!;
    },
    async list(filter) {
      return (await pool.query<ApiKeyRecord>(LIST, [filter.userId ?? null, filter.projectId ?? null])).rows;
    },
    async findByHash(keyHash) {
      const { rows } = await pool.query<ApiKeyRecord & { ownerRole: Role; ownerIsActive: boolean }>(
        prepared(BY_HASH, [keyHash]),
      );
      if (!rows[0]) return null;
      const { ownerRole, ownerIsActive, ...key } = rows[0];
      return { key, owner: { id: key.userId, role: ownerRole, isActive: ownerIsActive } };
    },
    async findUnrevokedByName(userId, name) {
      return (await pool.query<ApiKeyRecord>(UNREVOKED_BY_NAME, [userId, name])).rows[0] ?? null;
    },
    async recordUse(id, now, notBefore) {
      await pool.query(prepared(RECORD_USE, [id, now, notBefore]));
    },
    revoke(id, now, event) {
      return inTransaction(pool, async (client) => {
        const { rowCount } = await client.query(REVOKE, [id, now]);
        if (rowCount === 1) {
          await client.query(outboxInsert([event(now)]));
          return { revokedAt: now, alreadyRevoked: false };
        }
        const { rows } = await client.query<{ revokedAt: Date | null }>(REVOKED_AT, [id]);
        const revokedAt = rows[0]?.revokedAt;
        return revokedAt ? { revokedAt, alreadyRevoked: true } : null;
      });
    },
  };
}

/**
 * Password reset tokens in SQL (table password_resets: only the SHA-256 of each token), and spending
 * one together with the password change and its user.updated event, in one transaction. No rules here.
 */
import type pg from 'pg';
import { inTransaction } from '@tix/kit';
import type { DomainEvent } from '@tix/protos';
import { updateUserIn, USER_BY_ID, type UserRecord } from './user-store.js';

/** Why a token was not issued (the service decides what each means to the caller). */
export type IssueRefusal = 'unknown_user' | 'inactive' | 'system' | 'too_many';

export interface IssueRequest {
  userId: number;
  tokenHash: string;
  now: Date;
  expiresAt: Date;
  /** Refuse ('too_many') when the user already had this many tokens issued since `now` minus an hour. */
  maxPerHour?: number;
}

export interface PasswordResetStore {
  /**
   * Stores a new token for the user, voiding their earlier unspent ones, and prunes rows older than
   * an hour. Serialised per user (the user's row is locked), so two concurrent issues leave one
   * live token.
   */
  issue(request: IssueRequest): Promise<{ user: UserRecord } | { refused: IssueRefusal }>;
  /**
   * Spends the token (unspent, unexpired at `now`) and sets the password of its user, writing
   * `event`, all in one transaction; `check` may refuse (throw) after the token was claimed, which
   * rolls everything back. Null when no live token has that hash.
   */
  spend(
    tokenHash: string,
    now: Date,
    passwordHash: string,
    steps: {
      check(user: UserRecord): void;
      event(after: UserRecord, before: UserRecord): DomainEvent<object>;
    },
  ): Promise<UserRecord | null>;
}

const LOCK_USER = `
  SELECT id, is_active AS "isActive", is_system AS "isSystem" FROM users WHERE id = $1 FOR UPDATE`;
const ISSUED_SINCE = `SELECT count(*)::int AS n FROM password_resets WHERE user_id = $1 AND created_at > $2`;
/** Earlier unspent tokens of the user stop working: only the newest link is live. */
const VOID_UNSPENT = `UPDATE password_resets SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL`;
const INSERT = `
  INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`;
/**
 * Rows older than an hour are all spent or expired (tokens live 30 minutes); younger ones are kept
 * for the per-user hourly count.
 */
const PRUNE = `DELETE FROM password_resets WHERE created_at < $1::timestamptz - interval '1 hour'`;
/** The one statement that decides who wins a token: a concurrent second spend finds used_at set. */
const SPEND = `
  UPDATE password_resets SET used_at = $2
  WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
  RETURNING user_id AS "userId"`;

export function createPasswordResetStore(pool: pg.Pool): PasswordResetStore {
  return {
    issue({ userId, tokenHash, now, expiresAt, maxPerHour }) {
      return inTransaction(pool, async (client) => {
        const user = (
          await client.query<{ id: number; isActive: boolean; isSystem: boolean }>(LOCK_USER, [userId])
        ).rows[0];
        if (!user) return { refused: 'unknown_user' as const };
        if (user.isSystem) return { refused: 'system' as const };
        if (!user.isActive) return { refused: 'inactive' as const };
        if (maxPerHour !== undefined) {
          const hourAgo = new Date(now.getTime() - 3_600_000);
          const { rows } = await client.query<{ n: number }>(ISSUED_SINCE, [userId, hourAgo]);
          if (rows[0]!.n >= maxPerHour) return { refused: 'too_many' as const };
        }
        await client.query(VOID_UNSPENT, [userId, now]);
        await client.query(INSERT, [tokenHash, userId, now, expiresAt]);
        await client.query(PRUNE, [now]);
        const { rows } = await client.query<UserRecord>(USER_BY_ID, [userId]);
        return { user: rows[0]! };
      });
    },

    spend(tokenHash, now, passwordHash, steps) {
      return inTransaction(pool, async (client) => {
        const spent = (await client.query<{ userId: number }>(SPEND, [tokenHash, now])).rows[0];
        if (!spent) return null;
        const user = await updateUserIn(
          client,
          spent.userId,
          { passwordHash },
          { check: (before) => steps.check(before), event: (after, before) => steps.event(after, before) },
        );
        // updateUserIn voids the user's other unspent links with the new password.
        return user;
      });
    },
  };
}

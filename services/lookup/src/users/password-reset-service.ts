/**
 * Password reset: issuing single-use links and spending them. A token is 32 random bytes
 * (base64url, 43 characters), shown once to the issuer; only its SHA-256 is stored. It expires
 * PASSWORD_RESET_TTL_MS after issue, issuing a new one voids the user's earlier unspent ones, and
 * spending it sets the password and ends the user's sessions (user.updated with sessions_ended).
 * A user who never had a password may set one this way (how an admin-created account gets one).
 */
import { createHash, randomBytes } from 'node:crypto';
import { AppError, FieldErrors, fieldError } from '@tix/kit';
import { hashPassword } from './password-hash.js';
import type { PasswordResetStore } from './password-reset-store.js';
import { checkPassword, isValidEmail, normaliseEmail } from './user-rules.js';
import { selfActor, USER_NOT_FOUND, userUpdatedEvent } from './user-service.js';
import type { UserRecord, UserStore } from './user-store.js';

/** How long a reset link works: long enough to reach a mailbox, short enough to be of little use if leaked. */
export const PASSWORD_RESET_TTL_MS = 30 * 60_000;
/**
 * Links asked for by email per user per hour; beyond it the request is quietly not issued (the
 * gateway answers the same), so nobody can flood a mailbox from many addresses.
 */
export const MAX_RESETS_PER_USER_PER_HOUR = 5;
/** One message for an unknown, spent or expired token, so the answer tells nothing about which. */
export const INVALID_RESET_TOKEN = 'Reset link is invalid or has expired';
export const INACTIVE_USER_RESET = 'User is inactive: activate the user before issuing a reset link';
export const SYSTEM_USER_RESET = "Tix AI is the assistant's system user: it never signs in";

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface IssuedReset {
  token: string;
  expiresAt: Date;
  user: UserRecord;
}

export interface PasswordResetService {
  /** A link for the active user with that email; null for an unknown or inactive one (or too many). */
  issueByEmail(email: string): Promise<IssuedReset | null>;
  /** A link for user `id` (admin): 404 for an unknown user, 422 on `user_id` for an inactive one. */
  issueForUser(id: number): Promise<IssuedReset>;
  /**
   * Sets the password of the token's user and spends the token: 422 on `token` for an unknown,
   * spent or expired token and for a user no longer active; 422 on `new_password` as ChangePassword.
   */
  resetPassword(token: string, newPassword: string): Promise<UserRecord>;
}

export function hashResetToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function createPasswordResetService(
  store: PasswordResetStore,
  users: Pick<UserStore, 'findByEmail'>,
  options: { now?: () => Date } = {},
): PasswordResetService {
  const now = options.now ?? (() => new Date());

  async function issue(userId: number, maxPerHour?: number) {
    const token = randomBytes(32).toString('base64url');
    const issuedAt = now();
    const expiresAt = new Date(issuedAt.getTime() + PASSWORD_RESET_TTL_MS);
    const result = await store.issue({
      userId,
      tokenHash: hashResetToken(token),
      now: issuedAt,
      expiresAt,
      ...(maxPerHour === undefined ? {} : { maxPerHour }),
    });
    return 'refused' in result ? result : { token, expiresAt, user: result.user };
  }

  return {
    async issueByEmail(email) {
      const normalised = normaliseEmail(email);
      if (!isValidEmail(normalised)) return null;
      const user = await users.findByEmail(normalised);
      // The system user never signs in: answered exactly as an unknown address.
      if (!user || !user.isActive || user.isSystem) return null;
      const issued = await issue(user.id, MAX_RESETS_PER_USER_PER_HOUR);
      return 'refused' in issued ? null : issued;
    },

    async issueForUser(id) {
      const issued = await issue(id);
      if (!('refused' in issued)) return issued;
      if (issued.refused === 'unknown_user') throw AppError.notFound(USER_NOT_FOUND);
      if (issued.refused === 'system') throw fieldError('user_id', SYSTEM_USER_RESET);
      throw fieldError('user_id', INACTIVE_USER_RESET);
    },

    async resetPassword(token, newPassword) {
      const errors = new FieldErrors();
      if (!TOKEN_SHAPE.test(token)) errors.add('token', INVALID_RESET_TOKEN);
      checkPassword(errors, 'new_password', newPassword);
      errors.throwIfAny();
      // Hashed before the transaction: scrypt must not hold the user's row lock.
      const passwordHash = await hashPassword(newPassword);
      const at = now();
      const user = await store.spend(hashResetToken(token), at, passwordHash, {
        check(before) {
          if (!before.isActive || before.isSystem) throw fieldError('token', INVALID_RESET_TOKEN);
        },
        // Whoever holds the link acts as the user (it was mailed to them).
        event: (after, before) =>
          userUpdatedEvent(after, before, { password: newPassword }, at, selfActor(after.id)),
      });
      if (!user) throw fieldError('token', INVALID_RESET_TOKEN);
      return user;
    },
  };
}

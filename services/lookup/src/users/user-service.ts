/** User use cases: listing, creating, and password sign-in. */
import { AppError, fieldError } from '@tix/kit';
import { UniqueViolation } from '../shared/unique-violation.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from './password-hash.js';
import { isValidEmail, normaliseEmail, validateNewUser } from './user-rules.js';
import type { UserRecord, UserStore } from './user-store.js';

/** The one answer to every failed sign-in, so it never tells which part was wrong. */
export const INVALID_CREDENTIALS = 'Invalid email or password';
/** GetUsers answers at most this many ids per call. */
export const MAX_IDS_PER_CALL = 1000;

export interface CreateUserInput {
  name: string;
  email: string;
  role: string;
  password?: string;
}

export type UserSelector = { id: number } | { email: string };

export interface UserService {
  /** The user with that id or email (matched case-insensitively), or null. */
  findUser(selector: UserSelector): Promise<UserRecord | null>;
  /** Users in id order; inactive ones left out when `activeOnly`. */
  listUsers(activeOnly: boolean): Promise<UserRecord[]>;
  /** The users that exist among `ids`, in id order; unknown ids are left out. */
  getUsers(ids: readonly number[]): Promise<UserRecord[]>;
  /** Creates a user (422 on invalid input or an email already in use); the password is stored hashed. */
  createUser(input: CreateUserInput): Promise<UserRecord>;
  /**
   * The active user with that email and password; otherwise 401 "Invalid email or password", after
   * the same amount of hashing work whichever check failed.
   */
  authenticatePassword(email: string, password: string): Promise<UserRecord>;
}

function duplicateEmail(email: string): AppError {
  return fieldError('email', `A user with email "${email}" already exists`);
}

/** Builds the user use cases over a store. */
export function createUserService(store: UserStore): UserService {
  // Made now, so the first sign-in with an unknown email does not pay for making it.
  void dummyPasswordHash();
  return {
    async findUser(selector) {
      if ('id' in selector) return store.findById(selector.id);
      // An address we would never have stored cannot match; it does not need the database.
      const email = normaliseEmail(selector.email);
      return isValidEmail(email) ? store.findByEmail(email) : null;
    },

    listUsers(activeOnly) {
      return store.list({ activeOnly });
    },

    async getUsers(ids) {
      if (ids.length > MAX_IDS_PER_CALL)
        throw AppError.badRequest(`At most ${MAX_IDS_PER_CALL} ids per call`);
      const unique = [...new Set(ids)].filter((id) => Number.isInteger(id) && id > 0);
      return unique.length === 0 ? [] : store.findByIds(unique);
    },

    async createUser(input) {
      const user = validateNewUser(input);
      if (await store.findByEmail(user.email)) throw duplicateEmail(user.email);
      const passwordHash = user.password === undefined ? null : await hashPassword(user.password);
      try {
        return await store.create({ name: user.name, email: user.email, role: user.role, passwordHash });
      } catch (error) {
        if (error instanceof UniqueViolation) throw duplicateEmail(user.email);
        throw error;
      }
    },

    async authenticatePassword(email, password) {
      const normalised = normaliseEmail(email);
      const found = isValidEmail(normalised) ? await store.findCredentials(normalised) : null;
      // Always run one scrypt verification, against a dummy hash when there is nothing real to check.
      const matches = await verifyPassword(password, found?.passwordHash ?? (await dummyPasswordHash()));
      if (!found || found.passwordHash === null || !matches || !found.user.isActive) {
        throw AppError.unauthenticated(INVALID_CREDENTIALS);
      }
      return found.user;
    },
  };
}

/** User use cases: listing, creating, changing (user.updated), password sign-in and password changes. */
import { ERROR_MESSAGES } from '@tix/protos';
import { actorOf, AppError, FieldErrors, fieldError, fieldChanges, newDomainEvent } from '@tix/kit';
import type { DomainEvent, EventActor, FieldChange, Principal } from '@tix/protos';
import { UniqueViolation } from '../shared/unique-violation.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from './password-hash.js';
import {
  adminLosingFields,
  changedFields,
  checkPassword,
  endsSessions,
  isValidEmail,
  LAST_ACTIVE_ADMIN,
  normaliseEmail,
  validateNewUser,
  validateUserChanges,
  type ChangedField,
  type UserChange,
  type UserChangeRequest,
} from './user-rules.js';
import type { UserColumnChanges, UserRecord, UserStore } from './user-store.js';

/** The one answer to every failed sign-in, so it never tells which part was wrong. */
export const INVALID_CREDENTIALS = 'Invalid email or password';
/** GetUsers answers at most this many ids per call. */
export const MAX_IDS_PER_CALL = 1000;
export const USER_NOT_FOUND = ERROR_MESSAGES.userNotFound;
export const ONLY_AN_ADMIN = 'Only an admin can change this';
export const WRONG_CURRENT_PASSWORD = 'Current password is incorrect';
/**
 * The assistant's system user (Tix AI) is made by a migration and is the same everywhere: no admin
 * edits it (name, role, active flag, password). 422 on each field the request gives.
 */
export const SYSTEM_USER_UNCHANGEABLE = "Tix AI is the assistant's system user and cannot be changed";

/** The data of a user.updated event: the User object, what changed, and whether sessions end. */
export interface UserUpdatedData {
  id: number;
  name: string;
  email: string;
  role: string;
  is_active: boolean;
  changed: ChangedField[];
  /** True when the role, the active flag or the password changed: the user's sessions and cached keys end. */
  sessions_ended: boolean;
}

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
  /** The assistant's system user; 404 when the migration that makes it did not run. */
  assistantUser(): Promise<UserRecord>;
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
  /**
   * Changes a user's name, role, active flag or password and emits user.updated. `caller` null (the
   * CLI) or an admin may change anything; any other principal only their own name (403). 422 for
   * invalid values, for nothing to change, and for a change leaving no active admin; 404 for an
   * unknown id. A change to values the user already has writes nothing and emits nothing.
   */
  updateUser(id: number, request: UserChangeRequest, caller: Principal | null): Promise<UserRecord>;
  /**
   * The user sets a new password, proving the current one (422 on current_password otherwise, also
   * for a user without a password); emits user.updated with sessions_ended. 401 when the user does
   * not exist or is inactive (the principal no longer stands for a signed-in user).
   */
  changePassword(
    userId: number,
    currentPassword: string,
    newPassword: string,
    actor?: EventActor,
  ): Promise<UserRecord>;
}

function duplicateEmail(email: string): AppError {
  return fieldError('email', `A user with email "${email}" already exists`);
}

/** 403 unless `caller` may make `request` to user `id`: no principal, an admin, or their own name only. */
function checkMayChange(id: number, request: UserChangeRequest, caller: Principal | null): void {
  if (!caller || caller.role === 'admin') return;
  const onlyName =
    request.role === undefined && request.isActive === undefined && request.password === undefined;
  if (caller.user_id !== id || !onlyName) throw AppError.permissionDenied(ONLY_AN_ADMIN);
}

/** The fields a change gives (whether or not they differ), in the order events list them. */
function requestedFields(change: UserChange): ChangedField[] {
  const fields: ChangedField[] = [];
  if (change.name !== undefined) fields.push('name');
  if (change.role !== undefined) fields.push('role');
  if (change.isActive !== undefined) fields.push('is_active');
  if (change.password !== undefined) fields.push('password');
  return fields;
}

/** What a password's from/to say in `changes`: that it changed, never the password or its hash. */
export const REDACTED = '[redacted]';

/** user.updated's `changes` (v1.1): name, role, is_active from/to; a password change redacted. */
function userChanges(before: UserRecord, after: UserRecord, changed: readonly ChangedField[]) {
  const publicFields = (user: UserRecord) => ({ name: user.name, role: user.role, is_active: user.isActive });
  const changes: Record<string, FieldChange> = fieldChanges(publicFields(before), publicFields(after), [
    'name',
    'role',
    'is_active',
  ]);
  if (changed.includes('password')) changes.password = { from: REDACTED, to: REDACTED };
  return changes;
}

/** The actor of a user's own change (their password, by the current one or a reset link). */
export function selfActor(userId: number): EventActor {
  return { kind: 'user', user_id: userId, api_key_id: null };
}

/** The user.updated event of `change` taking the user from `before` to `after`, made by `actor`. */
export function userUpdatedEvent(
  after: UserRecord,
  before: UserRecord,
  change: UserChange,
  occurredAt: Date,
  actor: EventActor,
): DomainEvent<UserUpdatedData> {
  const changed = changedFields(before, change);
  const data: UserUpdatedData = {
    id: after.id,
    name: after.name,
    email: after.email,
    role: after.role,
    is_active: after.isActive,
    changed,
    sessions_ended: endsSessions(changed),
  };
  return newDomainEvent('user.updated', data, {
    source: 'lookup',
    occurredAt,
    actor,
    changes: userChanges(before, after, changed),
  });
}

/** Builds the user use cases over a store (`now` stamps the events; tests move it). */
export function createUserService(store: UserStore, options: { now?: () => Date } = {}): UserService {
  const now = options.now ?? (() => new Date());
  // Made now, so the first sign-in with an unknown email does not pay for making it.
  void dummyPasswordHash();

  /** Writes `change` (password already hashed into `columns`) with its user.updated event. */
  async function write(
    id: number,
    change: UserChange,
    columns: UserColumnChanges,
    actor: EventActor,
  ): Promise<UserRecord> {
    const updated = await store.update(id, columns, {
      async check(before, otherActiveAdmins) {
        const losing = adminLosingFields(before, change);
        if (losing.length > 0 && (await otherActiveAdmins()) === 0) {
          const errors = new FieldErrors();
          for (const field of losing) errors.add(field, LAST_ACTIVE_ADMIN);
          errors.throwIfAny();
        }
      },
      event: (after, before) => userUpdatedEvent(after, before, change, now(), actor),
    });
    if (!updated) throw AppError.notFound(USER_NOT_FOUND);
    return updated;
  }

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

    async assistantUser() {
      const user = await store.findSystem();
      if (!user)
        throw AppError.notFound(
          "The assistant's system user does not exist (lookup's migrations did not run)",
        );
      return user;
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
      // The system user never signs in, even if a password reached its row by hand: as unknown.
      if (!found || found.passwordHash === null || !matches || !found.user.isActive || found.user.isSystem) {
        throw AppError.unauthenticated(INVALID_CREDENTIALS);
      }
      return found.user;
    },

    async updateUser(id, request, caller) {
      checkMayChange(id, request, caller);
      const change = validateUserChanges(request);
      const current = await store.findById(id);
      if (!current) throw AppError.notFound(USER_NOT_FOUND);
      // Refused even when the values are the ones it has: nobody edits it (is_system never changes).
      if (current.isSystem) {
        const errors = new FieldErrors();
        for (const field of requestedFields(change)) errors.add(field, SYSTEM_USER_UNCHANGEABLE);
        errors.throwIfAny();
      }
      // Values the user already has are no change: nothing to write, no event, no session ended.
      if (changedFields(current, change).length === 0) return current;
      const columns: UserColumnChanges = {
        ...(change.name === undefined ? {} : { name: change.name }),
        ...(change.role === undefined ? {} : { role: change.role }),
        ...(change.isActive === undefined ? {} : { isActive: change.isActive }),
        ...(change.password === undefined ? {} : { passwordHash: await hashPassword(change.password) }),
      };
      return write(id, change, columns, actorOf(caller));
    },

    async changePassword(userId, currentPassword, newPassword, actor = selfActor(userId)) {
      const errors = new FieldErrors();
      checkPassword(errors, 'new_password', newPassword);
      const found = await store.findCredentialsById(userId);
      // One scrypt verification whatever is missing, as at sign-in.
      const matches = await verifyPassword(
        currentPassword,
        found?.passwordHash ?? (await dummyPasswordHash()),
      );
      // A principal whose user is gone or deactivated is signed in no longer (the system user never was).
      if (!found || !found.user.isActive || found.user.isSystem) throw AppError.unauthenticated();
      if (found.passwordHash === null || !matches) errors.add('current_password', WRONG_CURRENT_PASSWORD);
      errors.throwIfAny();
      const change: UserChange = { password: newPassword };
      return write(userId, change, { passwordHash: await hashPassword(newPassword) }, actor);
    },
  };
}

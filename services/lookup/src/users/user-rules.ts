/**
 * What makes a user valid: name, email (stored lower-cased), role and an optional password; what a
 * change to a user may be, and which changes keep an active admin. Pure.
 */
import { ROLES, USER_LIMITS, isRole, type Role } from '@tix/protos';
import { FieldErrors } from '@tix/kit';
import { checkRequiredText } from '../shared/text-rules.js';

export interface NewUser {
  name: string;
  /** Trimmed and lower-cased: emails are compared case-insensitively. */
  email: string;
  role: Role;
  /** Plain text, to be hashed by the service; undefined for users who never sign in with a password. */
  password?: string;
}

// The WHATWG "valid email address" shape, plus a dot in the domain (no intranet-only addresses).
const EMAIL_PATTERN =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** The canonical form of an email address (how it is stored and looked up). */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** True when `email` (already normalised) has the shape of an address we accept. */
export function isValidEmail(email: string): boolean {
  return email.length <= USER_LIMITS.email && EMAIL_PATTERN.test(email);
}

/** A user's name: trimmed, required, at most USER_LIMITS.name code points, no control characters. */
function checkName(errors: FieldErrors, value: string): string {
  return checkRequiredText(errors, 'name', value, { label: 'Name', max: USER_LIMITS.name });
}

function checkRole(errors: FieldErrors, value: string): void {
  if (!isRole(value)) errors.add('role', `Role must be one of ${ROLES.join(', ')}`);
}

/** A password (kept as given): USER_LIMITS.passwordMin to passwordMax characters, reported on `field`. */
export function checkPassword(errors: FieldErrors, field: string, password: string): void {
  if (password.length < USER_LIMITS.passwordMin)
    errors.add(field, `Password must be at least ${USER_LIMITS.passwordMin} characters`);
  else if (password.length > USER_LIMITS.passwordMax)
    errors.add(field, `Password must be at most ${USER_LIMITS.passwordMax} characters`);
}

/** Validates a create-user request and returns it normalised, or throws 422 listing every problem. */
export function validateNewUser(input: {
  name: string;
  email: string;
  role: string;
  password?: string;
}): NewUser {
  const errors = new FieldErrors();
  const name = checkName(errors, input.name);
  const email = normaliseEmail(input.email);
  if (email === '') errors.add('email', 'Email is required');
  else if (!isValidEmail(email)) errors.add('email', 'Email must be a valid email address');
  checkRole(errors, input.role);
  if (input.password !== undefined) checkPassword(errors, 'password', input.password);
  errors.throwIfAny();
  return {
    name,
    email,
    role: input.role as Role,
    ...(input.password === undefined ? {} : { password: input.password }),
  };
}

/** A requested change to a user; undefined fields stay as they are. */
export interface UserChangeRequest {
  name?: string;
  role?: string;
  isActive?: boolean;
  password?: string;
}

/** A change that passed validateUserChanges: name trimmed, role known, password still plain text. */
export interface UserChange {
  name?: string;
  role?: Role;
  isActive?: boolean;
  password?: string;
}

/** The fields of a change, as the contract names them, in the order events list them. */
export type ChangedField = 'name' | 'role' | 'is_active' | 'password';

export const NOTHING_TO_CHANGE = 'Give at least one field to change: name, role, is_active or password';
export const LAST_ACTIVE_ADMIN = 'The last active admin cannot be deactivated or demoted';

/**
 * Validates an update-user request with the rules of creation (name, role, password), or throws 422
 * listing every problem; a request that changes nothing is refused on `body`.
 */
export function validateUserChanges(input: UserChangeRequest): UserChange {
  const errors = new FieldErrors();
  const change: UserChange = {};
  if (Object.values(input).every((value) => value === undefined)) errors.add('body', NOTHING_TO_CHANGE);
  if (input.name !== undefined) change.name = checkName(errors, input.name);
  if (input.role !== undefined) {
    checkRole(errors, input.role);
    change.role = input.role as Role;
  }
  if (input.isActive !== undefined) change.isActive = input.isActive;
  if (input.password !== undefined) {
    checkPassword(errors, 'password', input.password);
    change.password = input.password;
  }
  errors.throwIfAny();
  return change;
}

/** The part of a user a change can touch. */
interface ChangeableUser {
  name: string;
  role: Role;
  isActive: boolean;
}

/**
 * The fields `change` really changes on `user` (setting a value it already has is no change; a
 * password, which cannot be compared, always counts), in the order name, role, is_active, password.
 */
export function changedFields(user: ChangeableUser, change: UserChange): ChangedField[] {
  const changed: ChangedField[] = [];
  if (change.name !== undefined && change.name !== user.name) changed.push('name');
  if (change.role !== undefined && change.role !== user.role) changed.push('role');
  if (change.isActive !== undefined && change.isActive !== user.isActive) changed.push('is_active');
  if (change.password !== undefined) changed.push('password');
  return changed;
}

/** True when a change to these fields ends the user's sessions (and the gateway's cached keys of theirs). */
export function endsSessions(changed: readonly ChangedField[]): boolean {
  return changed.some((field) => field !== 'name');
}

/**
 * The fields by which `change` would take `user` out of the active admins (deactivated, demoted),
 * each to be refused when no other active admin exists; empty when it does not.
 */
export function adminLosingFields(user: ChangeableUser, change: UserChange): ('is_active' | 'role')[] {
  if (user.role !== 'admin' || !user.isActive) return [];
  const fields: ('is_active' | 'role')[] = [];
  if (change.isActive === false) fields.push('is_active');
  if (change.role !== undefined && change.role !== 'admin') fields.push('role');
  return fields;
}

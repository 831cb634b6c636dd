/** What makes a user valid: name, email (stored lower-cased), role and an optional password. Pure. */
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

/** Validates a create-user request and returns it normalised, or throws 422 listing every problem. */
export function validateNewUser(input: {
  name: string;
  email: string;
  role: string;
  password?: string;
}): NewUser {
  const errors = new FieldErrors();
  const name = checkRequiredText(errors, 'name', input.name, { label: 'Name', max: USER_LIMITS.name });
  const email = normaliseEmail(input.email);
  if (email === '') errors.add('email', 'Email is required');
  else if (!isValidEmail(email)) errors.add('email', 'Email must be a valid email address');
  if (!isRole(input.role)) errors.add('role', `Role must be one of ${ROLES.join(', ')}`);
  if (input.password !== undefined) {
    if (input.password.length < USER_LIMITS.passwordMin)
      errors.add('password', `Password must be at least ${USER_LIMITS.passwordMin} characters`);
    else if (input.password.length > USER_LIMITS.passwordMax)
      errors.add('password', `Password must be at most ${USER_LIMITS.passwordMax} characters`);
  }
  errors.throwIfAny();
  return {
    name,
    email,
    role: input.role as Role,
    ...(input.password === undefined ? {} : { password: input.password }),
  };
}

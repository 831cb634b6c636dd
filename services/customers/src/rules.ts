/**
 * The customer service's input rules: one address syntax, names, notes and organization domains.
 * Each check records into the kit's FieldErrors so one refusal names every bad field
 * (docs/decisions.md, "Customers service").
 */
import { AppError, type FieldErrors } from '@tix/kit';
import { codePointLength, CUSTOMER_LIMITS, hasControlCharacters } from '@tix/protos';

// The bounds are the contract's, shared with the gateway's request schemas.
export { CUSTOMER_LIMITS };

/** What a deleted customer is called (the anonymised row keeps its id). */
export const DELETED_CUSTOMER_NAME = 'Deleted customer';

const DOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
// The WHATWG "valid email address" shape (what browsers accept), lower-cased, with a dot in the
// domain (a customer must be reachable from outside).
const LOCAL_PART = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+$/;

/**
 * The stored form of an address (trimmed of spaces, lower-cased), or null when it is not one: the
 * one address rule of the service. Control characters anywhere (a header injection such as
 * "a@b.c\r\nBcc: x@y.z") are refused before trimming, so they can never be trimmed into validity.
 */
export function normaliseEmail(value: string): string | null {
  if (hasControlCharacters(value, false)) return null;
  const email = value.trim().toLowerCase();
  if (email.length === 0 || email.length > CUSTOMER_LIMITS.email) return null;
  const at = email.lastIndexOf('@');
  if (at < 1 || at > CUSTOMER_LIMITS.localPart) return null;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  return LOCAL_PART.test(local) && DOMAIN.test(domain) ? email : null;
}

/** The domain of a stored address. */
export function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1);
}

/** The stored form of an organization domain (trimmed, lower-cased, no leading "@"), or null. */
export function normaliseDomain(value: string): string | null {
  if (hasControlCharacters(value, false)) return null;
  const domain = value.trim().toLowerCase().replace(/^@/, '');
  return domain.length <= 253 && DOMAIN.test(domain) ? domain : null;
}

/** Checks a required name (1..255 code points after trimming, one line); returns it trimmed. */
export function checkName(errors: FieldErrors, field: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) errors.add(field, 'Name is required');
  else if (codePointLength(trimmed) > CUSTOMER_LIMITS.name)
    errors.add(field, `Name must be at most ${CUSTOMER_LIMITS.name} characters`);
  else if (hasControlCharacters(trimmed, false))
    errors.add(field, 'Name must not contain control characters');
  return trimmed;
}

/** Checks notes (up to 10,000 code points; tabs and line breaks allowed); returns them as given. */
export function checkNotes(errors: FieldErrors, field: string, value: string): string {
  if (codePointLength(value) > CUSTOMER_LIMITS.notes)
    errors.add(field, `Notes must be at most ${CUSTOMER_LIMITS.notes} characters`);
  else if (hasControlCharacters(value, true)) errors.add(field, 'Notes must not contain control characters');
  return value;
}

/**
 * Checks a list of addresses: at least one, at most CUSTOMER_LIMITS.emails, each valid; returns
 * them stored-form, first occurrence kept (the first is the primary).
 */
export function checkEmails(errors: FieldErrors, field: string, values: readonly string[]): string[] {
  if (values.length === 0) {
    errors.add(field, 'At least one email address is required');
    return [];
  }
  if (values.length > CUSTOMER_LIMITS.emails) {
    errors.add(field, `At most ${CUSTOMER_LIMITS.emails} email addresses`);
    return [];
  }
  const emails: string[] = [];
  values.forEach((value, index) => {
    const email = normaliseEmail(value);
    if (email === null) errors.add(`${field}[${index}]`, 'Must be a valid email address');
    else if (!emails.includes(email)) emails.push(email);
  });
  return emails;
}

/** Checks an organization's domains (at most CUSTOMER_LIMITS.domains); returns them stored-form. */
export function checkDomains(errors: FieldErrors, field: string, values: readonly string[]): string[] {
  if (values.length > CUSTOMER_LIMITS.domains) {
    errors.add(field, `At most ${CUSTOMER_LIMITS.domains} domains`);
    return [];
  }
  const domains: string[] = [];
  values.forEach((value, index) => {
    const domain = normaliseDomain(value);
    if (domain === null) errors.add(`${field}[${index}]`, 'Must be a domain name such as example.com');
    else if (!domains.includes(domain)) domains.push(domain);
  });
  return domains;
}

/**
 * The name of a customer found by address (FindOrCreateCustomers): the given display name made
 * safe (control characters become spaces, runs of spaces one, cut to the limit), else the address's
 * local part. A mail's display name never fails the intake; only its address can.
 */
export function nameForAddress(email: string, given: string): string {
  const cleaned = Array.from(given, (character) => (hasControlCharacters(character, false) ? ' ' : character))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  const name = cleaned.length > 0 ? cleaned : email.slice(0, email.lastIndexOf('@'));
  return Array.from(name).slice(0, CUSTOMER_LIMITS.name).join('').trim() || email;
}

/**
 * A list's search parameter (`q`, `email`): trimmed, at most `max` characters, no control
 * characters (PostgreSQL refuses a NUL byte); 400 naming the parameter otherwise.
 */
export function checkSearchText(field: string, value: string | undefined, max: number): string {
  const text = value?.trim() ?? '';
  if (codePointLength(text) > max)
    throw AppError.badRequest(`Invalid ${field}`, { [field]: [`At most ${max} characters`] });
  if (hasControlCharacters(text, false))
    throw AppError.badRequest(`Invalid ${field}`, { [field]: ['Must not contain control characters'] });
  return text;
}

/** `%text%` for ILIKE, with the pattern characters escaped (a search for "%" finds a "%"). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

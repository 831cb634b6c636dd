/** The identifier rules shared by projects, statuses and ticket types. */
import { SLUG_MAX_LENGTH } from '@tix/protos';

/** Project slugs: lowercase letters, digits and hyphens, starting with a letter or digit, at most 64. */
export const PROJECT_SLUG_PATTERN = new RegExp(`^[a-z0-9][a-z0-9-]{0,${SLUG_MAX_LENGTH - 1}}$`);
export const PROJECT_SLUG_RULE = `must be 1-${SLUG_MAX_LENGTH} lowercase letters, digits or hyphens, starting with a letter or digit`;

/** Status and ticket-type slugs: snake_case, starting with a letter, at most 64. */
export const SNAKE_SLUG_PATTERN = new RegExp(`^[a-z][a-z0-9_]{0,${SLUG_MAX_LENGTH - 1}}$`);
export const SNAKE_SLUG_RULE = `must be 1-${SLUG_MAX_LENGTH} lowercase letters, digits or underscores, starting with a letter`;

/** Ticket-number prefixes: uppercase letters and digits, starting with a letter, at most 16. */
export const PREFIX_PATTERN = /^[A-Z][A-Z0-9]{0,15}$/;
export const PREFIX_RULE = 'must be 1-16 uppercase letters or digits, starting with a letter';

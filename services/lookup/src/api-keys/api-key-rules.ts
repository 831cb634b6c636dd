/** What makes an API key request valid: its scopes and its label. Pure. */
import { API_KEY_LIMITS, SCOPES, isScope, type Scope, quoted } from '@tix/protos';
import type { FieldErrors } from '@tix/kit';
import { checkRequiredText } from '../shared/text-rules.js';

/** Unknown scopes named one by one; beyond this they are counted. */
const MAX_REPORTED_SCOPES = 5;

/**
 * Checks the requested scopes: a non-empty subset of SCOPES. Returns them de-duplicated in the
 * canonical SCOPES order (so equal grants always read the same).
 */
export function checkScopes(errors: FieldErrors, requested: readonly string[]): Scope[] {
  const trimmed = requested.map((scope) => scope.trim()).filter((scope) => scope !== '');
  if (trimmed.length === 0) {
    errors.add('scopes', `At least one scope is required (${SCOPES.join(', ')})`);
    return [];
  }
  const unknown = [...new Set(trimmed.filter((scope) => !isScope(scope)))];
  for (const scope of unknown.slice(0, MAX_REPORTED_SCOPES)) {
    errors.add('scopes', `Unknown scope ${quoted(scope)}; allowed: ${SCOPES.join(', ')}`);
  }
  if (unknown.length > MAX_REPORTED_SCOPES) {
    errors.add('scopes', `... and ${unknown.length - MAX_REPORTED_SCOPES} more unknown scopes`);
  }
  return SCOPES.filter((scope) => trimmed.includes(scope));
}

/** Checks the key's label; an empty one becomes "key created <date>". */
export function checkKeyName(errors: FieldErrors, name: string, now: Date): string {
  if (name.trim() === '') return defaultKeyName(now);
  return checkRequiredText(errors, 'name', name, { label: 'Name', max: API_KEY_LIMITS.name });
}

/** The label of a key created without one, e.g. "key created 2026-01-31 14:05 UTC". */
export function defaultKeyName(now: Date): string {
  return `key created ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * What the lookup stores add to the kit's database helpers: named statements for the hot reads
 * (API key authentication, project resolution, users by id) and the unique index a write violated.
 */
import { namedStatements } from '@tix/kit';

/** `text` as a named statement, parsed and planned once per connection (a fixed set of shapes). */
export const prepared = namedStatements('lookup');

/**
 * The name of the unique index a write violated (e.g. "projects_slug_key"), or undefined when
 * `error` is not a unique violation.
 */
export function violatedUniqueIndex(error: unknown): string | undefined {
  const { code, constraint } = (error ?? {}) as { code?: string; constraint?: string };
  return code === '23505' ? (constraint ?? 'unknown') : undefined;
}

/**
 * The `type` filter both reads share: exact event types (`ticket.updated`) and prefixes
 * (`ticket.*`, any type starting `ticket.`), as one SQL condition.
 */

/** `column` matches one of `types`; `add` appends a value and returns its placeholder. */
export function typeCondition(
  column: string,
  types: readonly string[],
  add: (value: unknown) => string,
): string {
  const exact = types.filter((type) => !type.endsWith('.*'));
  // LIKE's own wildcards in a prefix are escaped, so only the trailing % matches anything.
  const prefixes = types
    .filter((type) => type.endsWith('.*'))
    .map((type) => `${type.slice(0, -1).replace(/[\\%_]/g, '\\$&')}%`);
  return `(${column} = ANY(${add(exact)}::text[]) OR ${column} LIKE ANY(${add(prefixes)}::text[]))`;
}

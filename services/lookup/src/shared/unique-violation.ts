/**
 * A write refused by a unique index. Stores translate the database's refusal into this (naming the
 * field), so services can answer with their own message without knowing about SQL.
 */
export class UniqueViolation extends Error {
  override readonly name = 'UniqueViolation';

  constructor(readonly field: string) {
    super(`unique violation on ${field}`);
  }
}

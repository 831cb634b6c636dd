/**
 * Applies Prisma-layout migrations (prisma/migrations/<timestamp>_<name>/migration.sql) with the same
 * bookkeeping as `prisma migrate deploy`: the `_prisma_migrations` table, checksum = sha256 hex of the
 * file, and Prisma's advisory lock, so either tool can take over from the other. Prisma's native
 * schema engine cannot be downloaded on every machine; this applier needs only PostgreSQL.
 *
 * Stricter than Prisma: each migration runs in its own transaction (a failure leaves nothing behind),
 * and a changed checksum of an applied migration stops the service instead of warning.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../logger.js';

/** The lock id `prisma migrate` takes, so the two never run at once on one database. */
const PRISMA_MIGRATE_LOCK_ID = 72707369;

const CREATE_BOOKKEEPING_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface ApplyMigrationsResult {
  applied: string[];
  alreadyApplied: string[];
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/** Reads the migrations of a Prisma migrations folder in the order Prisma applies them. */
export async function readMigrations(migrationsDir: string): Promise<MigrationFile[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql, 'utf8').digest('hex') };
    }),
  );
}

/** Applies every migration of `migrationsDir` not yet applied to the database at `connectionString`. */
export async function applyMigrations(options: {
  connectionString: string;
  migrationsDir: string;
  logger?: Logger;
}): Promise<ApplyMigrationsResult> {
  const migrations = await readMigrations(options.migrationsDir);
  const client = new pg.Client({ connectionString: options.connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK_ID]);
    await client.query(CREATE_BOOKKEEPING_TABLE);
    const { rows } = await client.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
    }>('SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL');
    const recorded = new Map(rows.map((row) => [row.migration_name, row]));
    const result: ApplyMigrationsResult = { applied: [], alreadyApplied: [] };

    for (const migration of migrations) {
      const row = recorded.get(migration.name);
      if (row && row.finished_at === null) {
        throw new MigrationError(
          `migration ${migration.name} was started but never finished; resolve it before applying more`,
        );
      }
      if (row) {
        if (row.checksum !== migration.checksum) {
          throw new MigrationError(
            `migration ${migration.name} was changed after it was applied (checksum mismatch)`,
          );
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), now(), 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new MigrationError(`migration ${migration.name} failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      options.logger?.info({ migration: migration.name }, 'migration applied');
      result.applied.push(migration.name);
    }
    const known = new Set(migrations.map((migration) => migration.name));
    const unknown = [...recorded.keys()].filter((name) => !known.has(name));
    if (unknown.length > 0) {
      options.logger?.warn(
        { migrations: unknown },
        'database has migrations this code does not know (newer release?)',
      );
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}

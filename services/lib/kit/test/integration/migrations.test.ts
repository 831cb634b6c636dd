import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { applyMigrations, MigrationError } from '../../src/index.js';
import { createTestDatabase, type TestDatabase } from '../../src/testing/index.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/migrations');

describe('migration applier (Prisma layout)', () => {
  let database: TestDatabase;
  let workDir: string;

  beforeEach(async () => {
    database = await createTestDatabase('migrations');
    workDir = await mkdtemp(path.join(os.tmpdir(), 'tix-migrations-'));
    await cp(fixtures, workDir, { recursive: true });
  });

  afterEach(async () => {
    await database.drop();
    await rm(workDir, { recursive: true, force: true });
  });

  async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  }

  it('applies pending migrations in order and records them as prisma migrate deploy does', async () => {
    const result = await applyMigrations({ connectionString: database.url, migrationsDir: workDir });
    expect(result.applied).to.deep.equal(['20260101000000_init', '20260102000000_add_column']);
    const rows = await query<{
      migration_name: string;
      checksum: string;
      finished_at: Date;
      applied_steps_count: number;
    }>(
      'SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
    );
    const initSql = 'CREATE TABLE "widgets" ("id" SERIAL PRIMARY KEY, "name" TEXT NOT NULL);\n';
    expect(rows[0]).to.include({ migration_name: '20260101000000_init', applied_steps_count: 1 });
    expect(rows[0]?.checksum).to.equal(createHash('sha256').update(initSql).digest('hex'));
    expect(rows[0]?.finished_at).to.be.instanceOf(Date);
    expect(await query('SELECT id, name, color FROM widgets')).to.deep.equal([]);
  });

  it('is idempotent: a second run applies nothing', async () => {
    await applyMigrations({ connectionString: database.url, migrationsDir: workDir });
    const again = await applyMigrations({ connectionString: database.url, migrationsDir: workDir });
    expect(again).to.deep.equal({
      applied: [],
      alreadyApplied: ['20260101000000_init', '20260102000000_add_column'],
    });
  });

  it('serialises concurrent appliers on the advisory lock', async () => {
    const results = await Promise.all(
      [1, 2, 3].map(() => applyMigrations({ connectionString: database.url, migrationsDir: workDir })),
    );
    expect(results.map((result) => result.applied.length).sort()).to.deep.equal([0, 0, 2]);
  });

  it('rolls a failing migration back completely and records nothing for it', async () => {
    await mkdir(path.join(workDir, '20260103000000_broken'));
    await writeFile(
      path.join(workDir, '20260103000000_broken/migration.sql'),
      'CREATE TABLE half_done (id int);\nSELECT no_such_function();\n',
    );
    const error = await applyMigrations({ connectionString: database.url, migrationsDir: workDir }).catch(
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(MigrationError);
    expect((error as Error).message).to.contain('20260103000000_broken');
    expect(await query("SELECT to_regclass('half_done') AS t")).to.deep.equal([{ t: null }]);
    const names = await query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations ORDER BY 1',
    );
    expect(names.map((row) => row.migration_name)).to.deep.equal([
      '20260101000000_init',
      '20260102000000_add_column',
    ]);
  });

  it('refuses to continue when an applied migration was edited', async () => {
    await applyMigrations({ connectionString: database.url, migrationsDir: workDir });
    await writeFile(
      path.join(workDir, '20260101000000_init/migration.sql'),
      'CREATE TABLE "widgets" ("id" BIGSERIAL PRIMARY KEY);\n',
    );
    const error = await applyMigrations({ connectionString: database.url, migrationsDir: workDir }).catch(
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(MigrationError);
    expect((error as Error).message).to.contain('checksum mismatch');
  });
});

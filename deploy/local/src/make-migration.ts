/**
 * Generates a Prisma-layout migration for one service from the change to its schema.prisma, without
 * Prisma's native schema engine (which cannot be downloaded everywhere):
 *
 *   pnpm db:migration <service> <name>     writes prisma/migrations/<timestamp>_<name>/migration.sql
 *   pnpm db:migration <service> --check    fails when schema.prisma has changes no migration covers
 *
 * The WebAssembly schema engine diffs two datamodels: the schema as of the last migration (kept in
 * prisma/migrations/schema-at-last-migration.prisma, which Prisma's tooling ignores) and the current
 * one. Live-database introspection through the driver adapter fails on PostgreSQL's "char" catalog
 * columns, so the engine never reads the database; it only needs a reachable one to start. The new
 * migration is then applied to a scratch database, with all earlier ones, to prove it runs. A migration
 * that creates the outbox table also gets the outbox relay's NOTIFY trigger.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import * as engineBindings from '@prisma/schema-engine-wasm/schema_engine_bg';
import { applyMigrations, OUTBOX_NOTIFY_TRIGGER_SQL } from '@tix/kit';
import { createTestDatabase } from '@tix/kit/testing';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SNAPSHOT_FILE = 'schema-at-last-migration.prisma';

interface SchemaEngine {
  diff(params: unknown): Promise<{ stdout: string | null }>;
  free(): void;
}

async function loadEngine(schemaPath: string, schema: string, scratchUrl: string): Promise<SchemaEngine> {
  const require = createRequire(import.meta.url);
  const wasmPath = path.join(
    path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')),
    'schema_engine_bg.wasm',
  );
  // Node has WebAssembly at run time; our type libraries (ES2023, no DOM) do not describe it.
  const { WebAssembly } = globalThis as unknown as {
    WebAssembly: {
      instantiate(
        bytes: Buffer,
        imports: object,
      ): Promise<{ instance: { exports: Record<string, unknown> } }>;
    };
  };
  const bindings = engineBindings as unknown as {
    __wbg_set_wasm(exports: Record<string, unknown>): void;
    SchemaEngine: { new: (options: unknown, log: () => void, adapter: unknown) => Promise<SchemaEngine> };
  };
  const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {
    './schema_engine_bg.js': engineBindings as never,
  });
  bindings.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg({ connectionString: scratchUrl }));
  return bindings.SchemaEngine.new({ datamodels: [[schemaPath, schema]] }, () => undefined, adapter);
}

function timestamp(): string {
  return new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

async function main(): Promise<void> {
  const [service, nameOrFlag] = process.argv.slice(2);
  if (!service || !nameOrFlag || !/^(--check|[a-z0-9_]+)$/.test(nameOrFlag)) {
    throw new Error('usage: pnpm db:migration <service> <snake_case_name> | --check');
  }
  const serviceDir = path.join(repoRoot, 'services', service);
  const schemaPath = path.join(serviceDir, 'prisma/schema.prisma');
  const migrationsDir = path.join(serviceDir, 'prisma/migrations');
  if (!existsSync(schemaPath)) throw new Error(`no Prisma schema at ${path.relative(repoRoot, schemaPath)}`);
  const schema = readFileSync(schemaPath, 'utf8');
  const snapshotPath = path.join(migrationsDir, SNAPSHOT_FILE);
  const previous = existsSync(snapshotPath) ? readFileSync(snapshotPath, 'utf8') : undefined;

  const scratch = await createTestDatabase(`migration_${service}`);
  try {
    const engine = await loadEngine(schemaPath, schema, scratch.url);
    const { stdout } = await engine.diff({
      from:
        previous === undefined
          ? { tag: 'empty' }
          : { tag: 'schemaDatamodel', files: [{ path: snapshotPath, content: previous }] },
      to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schema }] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    engine.free();
    const sql = (stdout ?? '').trim();
    const empty = sql === '' || sql === '-- This is an empty migration.';

    if (nameOrFlag === '--check') {
      if (!empty)
        throw new Error(`services/${service}: schema.prisma has changes without a migration:\n${sql}`);
      console.error(`services/${service}: migrations cover schema.prisma`);
      return;
    }
    if (empty) {
      console.error(`services/${service}: schema.prisma has no changes; no migration written`);
      return;
    }
    const directory = path.join(migrationsDir, `${timestamp()}_${nameOrFlag}`);
    await mkdir(directory, { recursive: true });
    // Prisma knows nothing of triggers: the outbox relay's wake-up trigger comes with the outbox table.
    const trigger = sql.includes('CREATE TABLE "outbox_events"')
      ? `\n-- Wake the outbox relay on every insert\n${OUTBOX_NOTIFY_TRIGGER_SQL.trim()}\n`
      : '';
    await writeFile(path.join(directory, 'migration.sql'), `${sql}\n${trigger}`);
    await writeFile(path.join(migrationsDir, 'migration_lock.toml'), 'provider = "postgresql"\n');
    await applyMigrations({ connectionString: scratch.url, migrationsDir });
    await writeFile(snapshotPath, schema);
    console.error(
      `wrote ${path.relative(repoRoot, directory)}/migration.sql (applied cleanly to a scratch database)`,
    );
  } finally {
    await scratch.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

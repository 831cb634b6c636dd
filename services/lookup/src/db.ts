/**
 * The lookup service's database handle: one pg Pool under a Prisma client (engine-free, through
 * @prisma/adapter-pg). Stores receive the client; nothing else touches Prisma.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { Logger } from '@tix/kit';
import { Prisma, PrismaClient } from './generated/prisma/client.js';

export type { PrismaClient } from './generated/prisma/client.js';
/** The client inside an interactive transaction. */
export type PrismaTransaction = Prisma.TransactionClient;

export interface LookupDatabase {
  prisma: PrismaClient;
  /** Disconnects Prisma and ends the pool; safe to call twice. */
  close(): Promise<void>;
}

/** Opens a pool on `connectionString` and a Prisma client over it (no connection is made until first use). */
export function openDatabase(
  connectionString: string,
  options: { logger: Logger; maxConnections?: number },
): LookupDatabase {
  const pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 10 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (error) => options.logger.warn({ err: error }, 'idle database connection failed'));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  let closing: Promise<void> | undefined;
  return {
    prisma,
    close() {
      closing ??= prisma.$disconnect().then(() => pool.end());
      return closing;
    },
  };
}

/**
 * The name of the unique index a write violated (e.g. "projects_slug_key"), or undefined when
 * `error` is not a unique violation. With driver adapters Prisma reports the index, not the fields.
 */
export function violatedUniqueIndex(error: unknown): string | undefined {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== 'P2002') return undefined;
  const meta = error.meta as
    { target?: unknown; driverAdapterError?: { cause?: { constraint?: { index?: unknown } } } } | undefined;
  const index = meta?.driverAdapterError?.cause?.constraint?.index ?? meta?.target;
  return typeof index === 'string' ? index : 'unknown';
}

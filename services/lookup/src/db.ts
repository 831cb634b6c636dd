/**
 * The lookup service's Prisma client (engine-free, through @prisma/adapter-pg) over the pool the kit
 * opens for the service. Stores receive the client; nothing else touches Prisma.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { Prisma, PrismaClient } from './generated/prisma/client.js';

export type { PrismaClient } from './generated/prisma/client.js';
/** The client inside an interactive transaction. */
export type PrismaTransaction = Prisma.TransactionClient;

/** A Prisma client over the service's pool (the pool's owner closes the connections). */
export function prismaClientOver(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
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

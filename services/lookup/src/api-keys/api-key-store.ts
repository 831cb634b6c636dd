/** Reading and writing API keys, and the revocation event in the same transaction (Prisma only). */
import type { DomainEvent, Role } from '@tix/protos';
import type { Prisma } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db.js';

export interface ApiKeyRecord {
  id: number;
  name: string;
  prefix: string;
  scopes: string[];
  projectId: number | null;
  userId: number;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface NewApiKeyRow {
  name: string;
  prefix: string;
  keyHash: string;
  scopes: string[];
  projectId: number | null;
  userId: number;
}

export interface ApiKeyStore {
  create(key: NewApiKeyRow): Promise<ApiKeyRecord>;
  /** Keys in id order, optionally only a user's and/or a project's. */
  list(filter: { userId?: number; projectId?: number }): Promise<ApiKeyRecord[]>;
  /** The key with that hash and the state of its owner. */
  findByHash(
    keyHash: string,
  ): Promise<{ key: ApiKeyRecord; owner: { id: number; role: Role; isActive: boolean } } | null>;
  /** A user's unrevoked key with exactly this name (demo seeding recognises its keys by name). */
  findUnrevokedByName(userId: number, name: string): Promise<ApiKeyRecord | null>;
  /** Sets last_used_at = now unless it is later than `notBefore` (one conditional UPDATE, no read). */
  recordUse(id: number, now: Date, notBefore: Date): Promise<void>;
  /**
   * Revokes the key at `now` and writes `event(now)` to the outbox, in one transaction. A key that
   * was already revoked keeps its original time and gets no second event. Null when there is no such key.
   */
  revoke(
    id: number,
    now: Date,
    event: (revokedAt: Date) => DomainEvent<object>,
  ): Promise<{ revokedAt: Date; alreadyRevoked: boolean } | null>;
}

const RECORD_FIELDS = {
  id: true,
  name: true,
  prefix: true,
  scopes: true,
  projectId: true,
  userId: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

/** The Prisma-backed API key store. */
export function createApiKeyStore(prisma: PrismaClient): ApiKeyStore {
  return {
    create(key) {
      return prisma.apiKey.create({ data: key, select: RECORD_FIELDS });
    },
    list(filter) {
      return prisma.apiKey.findMany({
        where: {
          ...(filter.userId === undefined ? {} : { userId: filter.userId }),
          ...(filter.projectId === undefined ? {} : { projectId: filter.projectId }),
        },
        select: RECORD_FIELDS,
        orderBy: { id: 'asc' },
      });
    },
    async findByHash(keyHash) {
      const row = await prisma.apiKey.findUnique({
        where: { keyHash },
        select: { ...RECORD_FIELDS, user: { select: { id: true, role: true, isActive: true } } },
      });
      if (!row) return null;
      const { user, ...key } = row;
      return { key, owner: user };
    },
    findUnrevokedByName(userId, name) {
      return prisma.apiKey.findFirst({
        where: { userId, name, revokedAt: null },
        select: RECORD_FIELDS,
        orderBy: { id: 'asc' },
      });
    },
    async recordUse(id, now, notBefore) {
      await prisma.apiKey.updateMany({
        where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: notBefore } }] },
        data: { lastUsedAt: now },
      });
    },
    revoke(id, now, event) {
      return prisma.$transaction(async (tx) => {
        // The row lock taken by this UPDATE makes concurrent revocations agree on one time and one event.
        const { count } = await tx.apiKey.updateMany({
          where: { id, revokedAt: null },
          data: { revokedAt: now },
        });
        if (count === 1) {
          const domainEvent = event(now);
          await tx.outboxEvent.create({
            data: {
              id: domainEvent.id,
              eventType: domainEvent.type,
              payload: domainEvent as unknown as Prisma.InputJsonObject,
            },
          });
          return { revokedAt: now, alreadyRevoked: false };
        }
        const existing = await tx.apiKey.findUnique({ where: { id }, select: { revokedAt: true } });
        if (!existing?.revokedAt) return null;
        return { revokedAt: existing.revokedAt, alreadyRevoked: true };
      });
    },
  };
}

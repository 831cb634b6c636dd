/** Reading and writing users (Prisma only; no rules). */
import type { Role } from '@tix/protos';
import { violatedUniqueIndex, type PrismaClient } from '../db.js';
import { UniqueViolation } from '../shared/unique-violation.js';

export interface UserRecord {
  id: number;
  name: string;
  email: string;
  role: Role;
  isActive: boolean;
}

export interface UserStore {
  /** Users in id order, optionally only the active ones. */
  list(options: { activeOnly: boolean }): Promise<UserRecord[]>;
  /** The users among `ids`, in id order. */
  findByIds(ids: readonly number[]): Promise<UserRecord[]>;
  findById(id: number): Promise<UserRecord | null>;
  /** By normalised (lower-case) email. */
  findByEmail(email: string): Promise<UserRecord | null>;
  /** The user and their password hash (null when they have none), for sign-in only. */
  findCredentials(email: string): Promise<{ user: UserRecord; passwordHash: string | null } | null>;
  /** UniqueViolation('email') when the email is taken. */
  create(user: { name: string; email: string; role: Role; passwordHash: string | null }): Promise<UserRecord>;
}

const PUBLIC_FIELDS = { id: true, name: true, email: true, role: true, isActive: true } as const;

/** The Prisma-backed user store. */
export function createUserStore(prisma: PrismaClient): UserStore {
  return {
    list({ activeOnly }) {
      return prisma.user.findMany({
        where: activeOnly ? { isActive: true } : {},
        select: PUBLIC_FIELDS,
        orderBy: { id: 'asc' },
      });
    },
    findByIds(ids) {
      return prisma.user.findMany({
        where: { id: { in: [...ids] } },
        select: PUBLIC_FIELDS,
        orderBy: { id: 'asc' },
      });
    },
    findById(id) {
      return prisma.user.findUnique({ where: { id }, select: PUBLIC_FIELDS });
    },
    findByEmail(email) {
      return prisma.user.findUnique({ where: { email }, select: PUBLIC_FIELDS });
    },
    async findCredentials(email) {
      const row = await prisma.user.findUnique({
        where: { email },
        select: { ...PUBLIC_FIELDS, passwordHash: true },
      });
      if (!row) return null;
      const { passwordHash, ...user } = row;
      return { user, passwordHash };
    },
    async create(user) {
      try {
        return await prisma.user.create({ data: user, select: PUBLIC_FIELDS });
      } catch (error) {
        if (violatedUniqueIndex(error) === 'users_email_key') throw new UniqueViolation('email');
        throw error;
      }
    },
  };
}

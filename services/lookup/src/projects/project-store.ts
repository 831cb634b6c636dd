/** Reading and writing projects and their statuses (Prisma only; no rules). */
import { violatedUniqueIndex, type PrismaClient } from '../db.js';
import { UniqueViolation } from '../shared/unique-violation.js';
import type { NewProject } from './project-rules.js';

export interface StatusRecord {
  slug: string;
  label: string;
  isClosed: boolean;
  position: number;
}

export interface ProjectRecord {
  id: number;
  name: string;
  slug: string;
  prefix: string;
  description: string;
  /** Ordered by position. */
  statuses: StatusRecord[];
}

export interface ProjectStore {
  findById(id: number): Promise<ProjectRecord | null>;
  findBySlug(slug: string): Promise<ProjectRecord | null>;
  /** Projects in id order; only `onlyId` when given. */
  list(options?: { onlyId?: number }): Promise<ProjectRecord[]>;
  /** Which of the unique identifiers are already taken by another project. */
  takenIdentifiers(slug: string, prefix: string): Promise<{ slug: boolean; prefix: boolean }>;
  /** Inserts the project with its statuses atomically; UniqueViolation('slug' | 'prefix') on a race. */
  create(project: NewProject): Promise<ProjectRecord>;
}

const WITH_STATUSES = {
  statuses: {
    select: { slug: true, label: true, isClosed: true, position: true },
    orderBy: { position: 'asc' },
  },
} as const;

const UNIQUE_INDEX_FIELDS: Record<string, string> = {
  projects_slug_key: 'slug',
  projects_prefix_key: 'prefix',
};

function toRecord(row: {
  id: number;
  name: string;
  slug: string;
  prefix: string;
  description: string;
  statuses: StatusRecord[];
}): ProjectRecord {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    prefix: row.prefix,
    description: row.description,
    statuses: row.statuses.map((s) => ({
      slug: s.slug,
      label: s.label,
      isClosed: s.isClosed,
      position: s.position,
    })),
  };
}

/** The Prisma-backed project store. */
export function createProjectStore(prisma: PrismaClient): ProjectStore {
  return {
    async findById(id) {
      const row = await prisma.project.findUnique({ where: { id }, include: WITH_STATUSES });
      return row && toRecord(row);
    },
    async findBySlug(slug) {
      const row = await prisma.project.findUnique({ where: { slug }, include: WITH_STATUSES });
      return row && toRecord(row);
    },
    async list(options = {}) {
      const rows = await prisma.project.findMany({
        where: options.onlyId === undefined ? {} : { id: options.onlyId },
        include: WITH_STATUSES,
        orderBy: { id: 'asc' },
      });
      return rows.map(toRecord);
    },
    async takenIdentifiers(slug, prefix) {
      const rows = await prisma.project.findMany({
        where: { OR: [{ slug }, { prefix }] },
        select: { slug: true, prefix: true },
      });
      return { slug: rows.some((r) => r.slug === slug), prefix: rows.some((r) => r.prefix === prefix) };
    },
    async create(project) {
      try {
        const row = await prisma.project.create({
          data: {
            name: project.name,
            slug: project.slug,
            prefix: project.prefix,
            description: project.description,
            statuses: {
              create: project.statuses.map((status, position) => ({
                slug: status.slug,
                label: status.label,
                isClosed: status.isClosed,
                position,
              })),
            },
          },
          include: WITH_STATUSES,
        });
        return toRecord(row);
      } catch (error) {
        const index = violatedUniqueIndex(error);
        const field = index && UNIQUE_INDEX_FIELDS[index];
        if (field) throw new UniqueViolation(field);
        throw error;
      }
    },
  };
}

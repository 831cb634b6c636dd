/** Reading and writing ticket types (Prisma only; no rules). */
import { violatedUniqueIndex, type PrismaClient } from '../db.js';
import type { Prisma } from '../generated/prisma/client.js';
import { UniqueViolation } from '../shared/unique-violation.js';
import type { NewTicketType } from './ticket-type-rules.js';

export interface TicketTypeRecord {
  id: number;
  projectId: number;
  name: string;
  slug: string;
  description: string;
  isDefault: boolean;
  /** The field_schema array as stored (validated when it was saved). */
  fieldSchema: unknown;
}

export interface TicketTypeStore {
  /** The project's types in id order. */
  listByProject(projectId: number): Promise<TicketTypeRecord[]>;
  findInProject(projectId: number, id: number): Promise<TicketTypeRecord | null>;
  findBySlug(projectId: number, slug: string): Promise<TicketTypeRecord | null>;
  /** Which identifiers another type of the project already uses. */
  takenIdentifiers(projectId: number, name: string, slug: string): Promise<{ name: boolean; slug: boolean }>;
  /**
   * Inserts the type; when it is the default, unsets the previous default in the same transaction.
   * UniqueViolation('name' | 'slug') on a race.
   */
  create(projectId: number, type: NewTicketType): Promise<TicketTypeRecord>;
}

const UNIQUE_INDEX_FIELDS: Record<string, string> = {
  ticket_types_project_id_name_key: 'name',
  ticket_types_project_id_slug_key: 'slug',
};

function toRecord(row: TicketTypeRecord): TicketTypeRecord {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    slug: row.slug,
    description: row.description,
    isDefault: row.isDefault,
    fieldSchema: row.fieldSchema,
  };
}

/** The Prisma-backed ticket-type store. */
export function createTicketTypeStore(prisma: PrismaClient): TicketTypeStore {
  return {
    async listByProject(projectId) {
      const rows = await prisma.ticketType.findMany({ where: { projectId }, orderBy: { id: 'asc' } });
      return rows.map(toRecord);
    },
    async findInProject(projectId, id) {
      const row = await prisma.ticketType.findFirst({ where: { id, projectId } });
      return row && toRecord(row);
    },
    async findBySlug(projectId, slug) {
      const row = await prisma.ticketType.findUnique({ where: { projectId_slug: { projectId, slug } } });
      return row && toRecord(row);
    },
    async takenIdentifiers(projectId, name, slug) {
      const rows = await prisma.ticketType.findMany({
        where: { projectId, OR: [{ name }, { slug }] },
        select: { name: true, slug: true },
      });
      return { name: rows.some((r) => r.name === name), slug: rows.some((r) => r.slug === slug) };
    },
    async create(projectId, type) {
      try {
        const row = await prisma.$transaction(async (tx) => {
          if (type.isDefault) {
            // Serialises default changes per project, so two concurrent "new default" requests
            // cannot both leave their type marked default.
            await tx.$queryRaw`SELECT id FROM projects WHERE id = ${projectId} FOR UPDATE`;
            await tx.ticketType.updateMany({
              where: { projectId, isDefault: true },
              data: { isDefault: false },
            });
          }
          return tx.ticketType.create({
            data: {
              projectId,
              name: type.name,
              slug: type.slug,
              description: type.description,
              isDefault: type.isDefault,
              // FieldDefinition is plain JSON data; its interface just lacks the index signature Prisma asks for.
              fieldSchema: type.fieldSchema as unknown as Prisma.InputJsonArray,
            },
          });
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

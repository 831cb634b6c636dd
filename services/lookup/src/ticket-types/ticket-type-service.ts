/** Ticket-type use cases: listing, fetching and creating a project's ticket types. */
import { AppError, FieldErrors } from '@tix/kit';
import type { ProjectSelector, ProjectService } from '../projects/project-service.js';
import { UniqueViolation } from '../shared/unique-violation.js';
import { validateNewTicketType } from './ticket-type-rules.js';
import type { TicketTypeRecord, TicketTypeStore } from './ticket-type-store.js';

export const TICKET_TYPE_NOT_FOUND = 'Ticket type not found';

export interface CreateTicketTypeInput {
  project: ProjectSelector;
  name: string;
  slug: string;
  description: string;
  isDefault: boolean;
  /** The field_schema array as JSON text; empty means no custom fields. */
  fieldSchemaJson: string;
}

export interface TicketTypeService {
  /** The project's types in id order; 404 when the project does not exist. */
  listTicketTypes(projectId: number): Promise<TicketTypeRecord[]>;
  /** The type `id` of project `projectId`; 404 "Ticket type not found" when it is not in that project. */
  getTicketType(projectId: number, id: number): Promise<TicketTypeRecord>;
  /** Creates a type (404 unknown project, 422 invalid input or duplicate name/slug). */
  createTicketType(input: CreateTicketTypeInput): Promise<TicketTypeRecord>;
}

function duplicateMessage(field: string, value: string): string {
  return `A ticket type with ${field} "${value}" already exists in this project`;
}

/** Builds the ticket-type use cases over a store and the project service. */
export function createTicketTypeService(store: TicketTypeStore, projects: ProjectService): TicketTypeService {
  return {
    async listTicketTypes(projectId) {
      const types = await store.listByProject(projectId);
      if (types.length === 0) await projects.resolveProject({ id: projectId });
      return types;
    },

    async getTicketType(projectId, id) {
      const type = await store.findInProject(projectId, id);
      if (!type) throw AppError.notFound(TICKET_TYPE_NOT_FOUND);
      return type;
    },

    async createTicketType(input) {
      const project = await projects.resolveProject(input.project);
      const type = validateNewTicketType(input);
      const taken = await store.takenIdentifiers(project.id, type.name, type.slug);
      const errors = new FieldErrors();
      if (taken.name) errors.add('name', duplicateMessage('name', type.name));
      if (taken.slug) errors.add('slug', duplicateMessage('slug', type.slug));
      errors.throwIfAny();
      try {
        return await store.create(project.id, type);
      } catch (error) {
        if (error instanceof UniqueViolation) {
          const value = error.field === 'name' ? type.name : type.slug;
          throw AppError.validation({ [error.field]: [duplicateMessage(error.field, value)] });
        }
        throw error;
      }
    },
  };
}

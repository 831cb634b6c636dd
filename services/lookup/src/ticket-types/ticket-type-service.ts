/**
 * Ticket-type use cases: listing, fetching, creating and editing a project's ticket types. An edit
 * that changes the field_schema first asks the ticket service how many stored tickets (live and
 * soft-deleted) the new schema would make invalid, and is refused (409, with the count) when any
 * would; every edit that changes something writes ticket_type.updated in its transaction.
 */
import {
  actorOf,
  AppError,
  fieldChanges,
  fieldError,
  FieldErrors,
  newDomainEvent,
  type OutgoingContext,
} from '@tix/kit';
import { presentTicketType, type Principal } from '@tix/protos';
import type { ProjectSelector, ProjectService } from '../projects/project-service.js';
import { UniqueViolation } from '../shared/unique-violation.js';
import { toTicketTypeMessage } from './ticket-type-mapper.js';
import {
  changedTicketTypeFields,
  changesFieldSchema,
  checkRetiredNotDefault,
  validateNewTicketType,
  validateTicketTypeChanges,
  type ChangedTicketTypeField,
  type TicketTypeChangeRequest,
} from './ticket-type-rules.js';
import type { TicketTypeEdit, TicketTypeRecord, TicketTypeStore } from './ticket-type-store.js';

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

/** Who asks for an edit: the author of its event, and what the peer call passes on. */
export interface TicketTypeEditCaller {
  principal: Principal | null;
  correlationId?: string;
}

/** Tickets whose stored custom_fields a candidate schema would refuse (the ticket service's CountInvalidFieldValues). */
export type CountInvalidFieldValues = (
  projectId: number,
  ticketTypeId: number,
  fieldSchemaJson: string,
  context: OutgoingContext,
) => Promise<{ live: number; deleted: number }>;

/** The data of a ticket_type.updated event: the TicketType object after the change, and what changed. */
export type TicketTypeUpdatedData = ReturnType<typeof presentTicketType> & {
  project_id: number;
  changed: ChangedTicketTypeField[];
  /** The user who made the change; null for the CLI (no principal). */
  actor_id: number | null;
};

/** The refusal of a field_schema that stored values break (409), naming how many tickets. */
export function invalidValuesError(count: { live: number; deleted: number }): AppError {
  const total = count.live + count.deleted;
  const tickets = total === 1 ? '1 ticket' : `${total} tickets`;
  const deleted = count.deleted === 0 ? '' : ` (${count.deleted} of them deleted)`;
  return new AppError(
    'conflict',
    `The new field_schema would make the stored values of ${tickets} invalid${deleted}`,
    { live_tickets: count.live, deleted_tickets: count.deleted },
  );
}

/** A schema edit that raced another: what was checked is no longer what would be written. */
export const TICKET_TYPE_CHANGED_MEANWHILE = 'The ticket type was changed by another request; try again';

export interface TicketTypeService {
  /** The project's types in id order; 404 when the project does not exist. */
  listTicketTypes(projectId: number): Promise<TicketTypeRecord[]>;
  /** The type `id` of project `projectId`; 404 "Ticket type not found" when it is not in that project. */
  getTicketType(projectId: number, id: number): Promise<TicketTypeRecord>;
  /**
   * Creates a type (404 unknown project, 422 invalid input or duplicate name/slug). A new default
   * takes the flag from the previous one, which gets its ticket_type.updated (`caller` its actor).
   */
  createTicketType(input: CreateTicketTypeInput, caller?: TicketTypeEditCaller): Promise<TicketTypeRecord>;
  /**
   * Changes name, description, default flag, field_schema or retired flag (slug never) and emits
   * ticket_type.updated (also for the type that lost the default flag). 422 for invalid values,
   * nothing to change, a duplicate name or a retired default; 404 for a type not in the project;
   * 409 when stored values would be invalid under the new field_schema (503 when the ticket service
   * cannot say). Values the type already has write nothing and emit nothing.
   */
  updateTicketType(
    projectId: number,
    id: number,
    request: TicketTypeChangeRequest,
    caller: TicketTypeEditCaller,
  ): Promise<TicketTypeRecord>;
}

function duplicateMessage(field: string, value: string): string {
  return `A ticket type with ${field} "${value}" already exists in this project`;
}

/**
 * Builds the ticket-type use cases over a store and the project service (`countInvalid` asks the
 * ticket service; `now` stamps events and retirements).
 */
export function createTicketTypeService(
  store: TicketTypeStore,
  projects: ProjectService,
  options: { countInvalid?: CountInvalidFieldValues; now?: () => Date } = {},
): TicketTypeService {
  const now = options.now ?? (() => new Date());

  /** ticket_type.updated; `before` the type before the change, for `changes` (v1.1). */
  function updatedEvent(
    type: TicketTypeRecord,
    changed: ChangedTicketTypeField[],
    caller: TicketTypeEditCaller,
    at: Date,
    before: TicketTypeRecord,
  ) {
    const present = (record: TicketTypeRecord) => presentTicketType(toTicketTypeMessage(record));
    const data: TicketTypeUpdatedData = {
      ...present(type),
      project_id: type.projectId,
      changed,
      actor_id: caller.principal?.user_id ?? null,
    };
    return newDomainEvent('ticket_type.updated', data, {
      source: 'lookup',
      projectId: type.projectId,
      occurredAt: at,
      actor: actorOf(caller.principal),
      changes: fieldChanges(present(before), present(type), changed),
    });
  }

  /** ticket_type.updated of a type that lost is_default to another. */
  function undefaultedEvent(type: TicketTypeRecord, caller: TicketTypeEditCaller, at: Date) {
    return updatedEvent({ ...type, isDefault: false }, ['is_default'], caller, at, {
      ...type,
      isDefault: true,
    });
  }

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

    async createTicketType(input, caller = { principal: null }) {
      const project = await projects.resolveProject(input.project);
      const type = validateNewTicketType(input);
      const taken = await store.takenIdentifiers(project.id, type.name, type.slug);
      const errors = new FieldErrors();
      if (taken.name) errors.add('name', duplicateMessage('name', type.name));
      if (taken.slug) errors.add('slug', duplicateMessage('slug', type.slug));
      errors.throwIfAny();
      try {
        const at = now();
        return await store.create(project.id, type, (undefaulted) =>
          undefaulted.map((previous) => undefaultedEvent(previous, caller, at)),
        );
      } catch (error) {
        if (error instanceof UniqueViolation) {
          const value = error.field === 'name' ? type.name : type.slug;
          throw AppError.validation({ [error.field]: [duplicateMessage(error.field, value)] });
        }
        throw error;
      }
    },

    async updateTicketType(projectId, id, request, caller) {
      const change = validateTicketTypeChanges(request);
      const current = await store.findInProject(projectId, id);
      if (!current) throw AppError.notFound(TICKET_TYPE_NOT_FOUND);
      if (
        change.name !== undefined &&
        change.name !== current.name &&
        (await store.nameTakenByOther(projectId, change.name, id))
      )
        throw fieldError('name', duplicateMessage('name', change.name));
      checkRetiredNotDefault(current, change);

      // Asked before the transaction: no row stays locked while another service counts.
      let schemaChecked = false;
      if (changesFieldSchema(current, change)) {
        if (!options.countInvalid) throw AppError.unavailable('The ticket service is not available');
        const count = await options.countInvalid(projectId, id, JSON.stringify(change.fieldSchema), {
          principal: caller.principal,
          ...(caller.correlationId === undefined ? {} : { correlationId: caller.correlationId }),
        });
        if (count.live + count.deleted > 0) throw invalidValuesError(count);
        schemaChecked = true;
      }

      const at = now();
      let changed: ChangedTicketTypeField[] = [];
      try {
        const result = await store.update(
          projectId,
          id,
          {
            plan(before) {
              // The rules again, on the locked row: another edit may have landed since the checks.
              checkRetiredNotDefault(before, change);
              changed = changedTicketTypeFields(before, change);
              if (changed.length === 0) return null;
              if (changed.includes('field_schema') && !schemaChecked)
                throw AppError.conflict(TICKET_TYPE_CHANGED_MEANWHILE);
              const edit: TicketTypeEdit = {};
              if (changed.includes('name')) edit.name = change.name!;
              if (changed.includes('description')) edit.description = change.description!;
              if (changed.includes('is_default')) edit.isDefault = change.isDefault!;
              if (changed.includes('field_schema')) edit.fieldSchema = change.fieldSchema!;
              if (changed.includes('retired_at')) edit.retiredAt = change.isRetired ? at : null;
              return edit;
            },
            events(after, before, undefaulted) {
              return [
                ...undefaulted.map((type) => undefaultedEvent(type, caller, at)),
                updatedEvent(after, changed, caller, at, before),
              ];
            },
          },
          { mayTakeDefault: change.isDefault === true },
        );
        if (!result) throw AppError.notFound(TICKET_TYPE_NOT_FOUND);
        return result.type;
      } catch (error) {
        if (error instanceof UniqueViolation && change.name !== undefined)
          throw fieldError('name', duplicateMessage('name', change.name));
        throw error;
      }
    },
  };
}

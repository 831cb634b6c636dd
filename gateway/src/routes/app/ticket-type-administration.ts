/**
 * Ticket-type administration on the session host, for admins, in the project context (`?project=`
 * or `?project_id=`), as `pnpm tix ticket-type create|update` do:
 *   POST /api/ticket-types          a new type with its custom field schema;
 *   PATCH /api/ticket-types/{id}    name, description, is_default, field_schema, is_retired.
 * The gateway checks shapes and bounds; the lookup service holds the rules (creation's, a retired
 * type never the default) and asks the ticket service whether stored values fit a new field_schema:
 * 409 with the ticket count when they would not. A retired type keeps its tickets and stays listed
 * (with `retired_at`), but takes no new tickets.
 */
import { z } from 'zod';
import { presentTicketType, TICKET_TYPE_LIMITS } from '@tix/protos';
import {
  fieldSchemaField,
  idParam,
  requiredTextField,
  slugField,
  textField,
} from '../../http/schema-fields.js';
import { givenFields } from '../../http/validate.js';
import { ticketTypeSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { single } from '../../resources/responses.js';
import { operationGroup, type Operation } from '../operation.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';

export const INVALID_TICKET_TYPE_ID_MESSAGE = 'Invalid ticket type id';
/** A bound far above any real schema, checked before lookup sees it. */
const MAX_FIELDS = 100;

export const ticketTypeIdParams = z.object({
  id: idParam({ message: INVALID_TICKET_TYPE_ID_MESSAGE, description: 'Ticket type id.', example: 3 }),
});

const createTicketTypeBody = z.object(
  {
    name: requiredTextField('Name', {
      max: TICKET_TYPE_LIMITS.name,
      description: 'Display name.',
      example: 'Bug',
    }),
    slug: slugField('Slug', { description: 'Lower-case words joined by underscores.', example: 'bug' }),
    description: textField('Description', {
      max: TICKET_TYPE_LIMITS.description,
      description: 'Optional.',
    }).optional(),
    is_default: z
      .boolean({ error: 'is_default must be true or false' })
      .optional()
      .meta({ description: 'The type new tickets get when they name none (one per project).' }),
    field_schema: fieldSchemaField({
      max: MAX_FIELDS,
      description: 'The custom fields (spec "Custom fields"); absent: none.',
    }).optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const updateTicketTypeBody = z.object(
  {
    name: requiredTextField('Name', {
      max: TICKET_TYPE_LIMITS.name,
      description: 'Display name.',
      example: 'Incident',
    }).optional(),
    description: textField('Description', {
      max: TICKET_TYPE_LIMITS.description,
      description: 'Free text; empty clears it.',
    }).optional(),
    is_default: z.boolean({ error: 'is_default must be true or false' }).optional().meta({
      description:
        'true makes it the project default (the previous default loses the flag); false clears the flag.',
    }),
    field_schema: fieldSchemaField({
      max: MAX_FIELDS,
      description:
        'The whole new field_schema (it replaces the old one). Refused with 409 when stored tickets of the ' +
        'type (live or deleted) hold values it would make invalid.',
    }).optional(),
    is_retired: z.boolean({ error: 'is_retired must be true or false' }).optional().meta({
      description:
        'true retires the type (no new tickets; existing ones keep it and their values), false brings it back.',
    }),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const ticketTypeAdministration = operationGroup({ hosts: ['app'], project: 'required', tag: 'Account' });

export const TICKET_TYPE_ADMINISTRATION_OPERATIONS: Operation[] = [
  ticketTypeAdministration({
    method: 'post',
    path: '/ticket-types',
    access: { scope: null, role: 'admin' },
    request: { body: createTicketTypeBody },
    bodyExample: {
      name: 'Bug',
      slug: 'bug',
      field_schema: [
        {
          name: 'severity',
          label: 'Severity',
          type: 'select',
          required: true,
          constraints: { allowed_values: ['low', 'high'] },
        },
      ],
    },
    operationId: 'createTicketType',
    summary: 'Create a ticket type in the project (admin)',
    success: single(201, 'The ticket type.', 'ticket_type', ticketTypeSchema, EXAMPLES.ticketType),
    errors: [422],
    async handle({ body, services, project, call }) {
      const type = await services.lookup.CreateTicketType(
        {
          project_id: project.id,
          name: body.name,
          slug: body.slug,
          description: body.description ?? '',
          is_default: body.is_default ?? false,
          field_schema_json: JSON.stringify(body.field_schema ?? []),
        },
        call,
      );
      return {
        data: { ticket_type: presentTicketType(type) },
        status: 201,
        location: `/ticket-types/${type.id}`,
      };
    },
  }),

  ticketTypeAdministration({
    method: 'patch',
    path: '/ticket-types/:id',
    access: { scope: null, role: 'admin' },
    request: { params: ticketTypeIdParams, body: updateTicketTypeBody },
    bodyExample: {
      name: 'Incident',
      field_schema: [
        {
          name: 'severity',
          label: 'Severity',
          type: 'select',
          required: false,
          constraints: { allowed_values: ['low', 'high', 'critical'] },
        },
      ],
    },
    operationId: 'updateTicketType',
    summary: 'Change or retire a ticket type of the project (admin)',
    success: single(200, 'The ticket type.', 'ticket_type', ticketTypeSchema, EXAMPLES.ticketType),
    errors: [404, 409, 422],
    async handle({ params, body, services, project, call }) {
      const type = await services.lookup.UpdateTicketType(
        {
          project_id: project.id,
          id: params.id,
          ...givenFields(body, 'name', 'description', 'is_default'),
          ...(body.field_schema === undefined
            ? {}
            : { field_schema_json: JSON.stringify(body.field_schema) }),
          ...givenFields(body, 'is_retired'),
        },
        call,
      );
      return { data: { ticket_type: presentTicketType(type) } };
    },
  }),
];

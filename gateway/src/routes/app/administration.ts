/**
 * Administration on the session host, for admins: creating projects (with their workflow) and ticket
 * types (with their custom field schema), as `pnpm tix project create` and `ticket-type create` do.
 * The gateway checks shapes and bounds; the lookup service holds the rules (slug and prefix format,
 * a workflow's statuses, the field schema) and answers each problem under its field.
 */
import { z } from 'zod';
import { PROJECT_LIMITS, presentProject, presentTicketType, TICKET_TYPE_LIMITS } from '@tix/protos';
import { sendData } from '../../http/envelope.js';
import { callContext, requireProject } from '../../http/request-context.js';
import { requiredTextField, slugField, textField } from '../../http/schema-fields.js';
import { projectSchema, ticketTypeSchema } from '../../openapi/components.js';
import { EXAMPLES } from '../../openapi/examples.js';
import { single } from '../../openapi/responses.js';
import { requireService } from '../../services.js';
import { defineOperation, type Operation } from '../operation.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../v1/tickets.schemas.js';

/** A bound no valid prefix reaches; the lookup service says what a valid one is. */
const MAX_PREFIX_LENGTH = 10;
const MAX_FIELDS = 100;

const createProjectBody = z.object(
  {
    name: requiredTextField('Name', {
      max: PROJECT_LIMITS.name,
      description: 'Display name.',
      example: 'Support',
    }),
    slug: slugField('Slug', {
      description: 'Lower-case words joined by hyphens; usable as ?project=.',
      example: 'support',
    }),
    prefix: textField('Prefix', {
      max: MAX_PREFIX_LENGTH,
      description: 'Upper-case letters and digits of ticket numbers.',
      example: 'SUP',
    }),
    description: textField('Description', {
      max: PROJECT_LIMITS.description,
      description: 'Optional.',
    }).optional(),
    statuses: z
      .array(
        z.object(
          {
            slug: slugField('Status slug', { description: 'Status slug.', example: 'open' }),
            label: textField('Status label', {
              max: PROJECT_LIMITS.statusLabel,
              description: 'Shown on the board.',
              example: 'Open',
            }),
            is_closed: z.boolean({ error: 'is_closed must be true or false' }).optional(),
          },
          { error: 'Each status must be an object' },
        ),
        { error: 'Statuses must be an array' },
      )
      .max(PROJECT_LIMITS.statuses, `At most ${PROJECT_LIMITS.statuses} statuses`)
      .optional()
      .meta({ description: 'The workflow in order; absent: open, work_in_progress, waiting, closed.' }),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

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
    field_schema: z
      .array(z.record(z.string(), z.unknown(), { error: 'Each field must be an object' }), {
        error: 'field_schema must be an array',
      })
      .max(MAX_FIELDS, `At most ${MAX_FIELDS} fields`)
      .optional()
      .meta({ description: 'The custom fields (spec "Custom fields"); absent: none.' }),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

export const ADMINISTRATION_OPERATIONS: Operation[] = [
  defineOperation({
    method: 'post',
    path: '/projects',
    hosts: ['app'],
    access: { scope: null, role: 'admin' },
    project: 'none',
    request: { body: createProjectBody },
    bodyExample: {
      name: 'Support',
      slug: 'support',
      prefix: 'SUP',
      statuses: [
        { slug: 'open', label: 'Open' },
        { slug: 'closed', label: 'Closed', is_closed: true },
      ],
    },
    operationId: 'createProject',
    tag: 'Account',
    summary: 'Create a project with its workflow (admin)',
    success: single(201, 'The project.', 'project', projectSchema, EXAMPLES.project),
    errors: [422],
    async handle({ body }, request, response, { services }) {
      const project = await requireService(services, 'lookup').CreateProject(
        {
          name: body.name,
          slug: body.slug,
          prefix: body.prefix,
          description: body.description ?? '',
          statuses: (body.statuses ?? []).map((status) => ({
            slug: status.slug,
            label: status.label,
            is_closed: status.is_closed ?? false,
          })),
        },
        callContext(request),
      );
      sendData(response, { project: presentProject(project) }, 201);
    },
  }),

  defineOperation({
    method: 'post',
    path: '/ticket-types',
    hosts: ['app'],
    access: { scope: null, role: 'admin' },
    project: 'required',
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
    tag: 'Account',
    summary: 'Create a ticket type in the project (admin)',
    success: single(201, 'The ticket type.', 'ticket_type', ticketTypeSchema, EXAMPLES.ticketType),
    errors: [422],
    async handle({ body }, request, response, { services }) {
      const type = await requireService(services, 'lookup').CreateTicketType(
        {
          project_id: requireProject(request).id,
          name: body.name,
          slug: body.slug,
          description: body.description ?? '',
          is_default: body.is_default ?? false,
          field_schema_json: JSON.stringify(body.field_schema ?? []),
        },
        callContext(request),
      );
      sendData(response, { ticket_type: presentTicketType(type) }, 201);
    },
  }),
];

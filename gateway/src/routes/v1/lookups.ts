/**
 * The lookups (spec "Lookups"): projects, ticket types and users, to find the identifiers the other
 * operations take. Each is one lookup service call.
 */
import { presentProject, presentTicketType, presentUser } from '@tix/protos';
import { sendData } from '../../http/envelope.js';
import { callContext, requirePrincipal, requireProject } from '../../http/request-context.js';
import { projectSchema, ticketTypeSchema, userSchema } from '../../openapi/components.js';
import { EXAMPLES } from '../../openapi/examples.js';
import { count, json, list } from '../../openapi/responses.js';
import { requireService } from '../../services.js';
import { defineOperation, type Operation } from '../operation.js';

export const LOOKUP_OPERATIONS: Operation[] = [
  defineOperation({
    method: 'get',
    path: '/projects',
    hosts: ['api', 'app'],
    access: { scope: null, role: 'viewer' },
    project: 'none',
    operationId: 'listProjects',
    tag: 'Lookups',
    summary: 'List projects',
    description: 'Any valid key; a project-scoped key sees only its own project.',
    success: json(200, 'The projects the key can see.', list('projects', projectSchema, { count }), {
      projects: [EXAMPLES.project],
      count: 1,
    }),
    errors: [],
    async handle(_input, request, response, { services }) {
      const principal = requirePrincipal(request);
      const { projects } = await requireService(services, 'lookup').ListProjects(
        principal.project_id === undefined ? {} : { only_project_id: principal.project_id },
        callContext(request),
      );
      sendData(response, { projects: projects.map(presentProject), count: projects.length });
    },
  }),

  defineOperation({
    method: 'get',
    path: '/ticket-types',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:read', role: 'viewer' },
    project: 'required',
    operationId: 'listTicketTypes',
    tag: 'Lookups',
    summary: 'List the ticket types of the project',
    success: json(
      200,
      'The ticket types, with their custom-field schemas.',
      list('ticket_types', ticketTypeSchema, { count }),
      { ticket_types: [EXAMPLES.ticketType], count: 1 },
    ),
    errors: [400],
    async handle(_input, request, response, { services }) {
      const { ticket_types } = await requireService(services, 'lookup').ListTicketTypes(
        { project_id: requireProject(request).id },
        callContext(request),
      );
      sendData(response, { ticket_types: ticket_types.map(presentTicketType), count: ticket_types.length });
    },
  }),

  defineOperation({
    method: 'get',
    path: '/users',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:read', role: 'viewer' },
    project: 'none',
    operationId: 'listUsers',
    tag: 'Lookups',
    summary: 'List users',
    description: 'Every user, to look up assignee ids. No project needed.',
    success: json(200, 'The users.', list('users', userSchema, { count }), {
      users: [EXAMPLES.user],
      count: 1,
    }),
    errors: [],
    async handle(_input, request, response, { services }) {
      const { users } = await requireService(services, 'lookup').ListUsers(
        { active_only: false },
        callContext(request),
      );
      sendData(response, { users: users.map(presentUser), count: users.length });
    },
  }),
];

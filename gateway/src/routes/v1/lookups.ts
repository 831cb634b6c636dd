/**
 * The lookups (spec "Lookups"): projects, ticket types and users, to find the identifiers the other
 * operations take. Each is one lookup service call. The single reads (additive) are what `Location`
 * names after the session host's admin creates one; they see what the lists show.
 */
import { AppError } from '@tix/kit';
import { presentProject, presentTicketType, presentUser, ERROR_MESSAGES } from '@tix/protos';
import { projectSchema, ticketTypeSchema, userSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { counted, countedData, tagged } from '../../resources/responses.js';
import { userIdParams } from '../app/account.js';
import { projectIdParams } from '../app/administration.js';
import { ticketTypeIdParams } from '../app/ticket-type-administration.js';
import { operationGroup, type Operation } from '../operation.js';

/** Lookups of the whole fleet (projects and users), and those within the request's project (ticket types). */
const lookup = operationGroup({ hosts: ['api', 'app'], project: 'none', tag: 'Lookups' });
const projectLookup = operationGroup({ hosts: ['api', 'app'], project: 'required', tag: 'Lookups' });

export const LOOKUP_OPERATIONS: Operation[] = [
  lookup({
    method: 'get',
    path: '/projects',
    access: { scope: null, role: 'viewer' },
    operationId: 'listProjects',
    summary: 'List projects',
    success: counted('The projects the key can see.', 'projects', projectSchema, EXAMPLES.project),
    errors: [],
    async handle({ services, principal, call }) {
      const { projects } = await services.lookup.ListProjects(
        principal.project_id === undefined ? {} : { only_project_id: principal.project_id },
        call,
      );
      return { data: countedData('projects', projects.map(presentProject)) };
    },
  }),

  lookup({
    method: 'get',
    path: '/projects/:id',
    access: { scope: null, role: 'viewer' },
    request: { params: projectIdParams },
    operationId: 'getProject',
    summary: 'Get a project (additive)',
    success: tagged(200, 'The project with its workflow.', 'project', projectSchema, EXAMPLES.project),
    errors: [400, 404],
    async handle({ params, services, principal, call }) {
      if (principal.project_id !== undefined && principal.project_id !== params.id) {
        throw AppError.notFound(ERROR_MESSAGES.projectNotFound);
      }
      // Read afresh (not the resolver's cache): the answer's ETag must follow every change at once.
      const { projects } = await services.lookup.ListProjects({ only_project_id: params.id }, call);
      const [project] = projects;
      if (!project) throw AppError.notFound(ERROR_MESSAGES.projectNotFound);
      return { data: { project: presentProject(project) }, etag: true };
    },
  }),

  projectLookup({
    method: 'get',
    path: '/ticket-types',
    access: { scope: 'tickets:read', role: 'viewer' },
    operationId: 'listTicketTypes',
    summary: 'List the ticket types of the project',
    success: counted(
      'The ticket types, with their custom-field schemas.',
      'ticket_types',
      ticketTypeSchema,
      EXAMPLES.ticketType,
    ),
    errors: [400],
    async handle({ services, project, call }) {
      const { ticket_types } = await services.lookup.ListTicketTypes({ project_id: project.id }, call);
      return { data: countedData('ticket_types', ticket_types.map(presentTicketType)) };
    },
  }),

  projectLookup({
    method: 'get',
    path: '/ticket-types/:id',
    access: { scope: 'tickets:read', role: 'viewer' },
    request: { params: ticketTypeIdParams },
    operationId: 'getTicketType',
    summary: 'Get a ticket type of the project (additive)',
    success: tagged(
      200,
      'The ticket type, with its custom-field schema.',
      'ticket_type',
      ticketTypeSchema,
      EXAMPLES.ticketType,
    ),
    errors: [400, 404],
    async handle({ params, services, project, call }) {
      const type = await services.lookup.GetTicketType({ project_id: project.id, id: params.id }, call);
      return { data: { ticket_type: presentTicketType(type) }, etag: true };
    },
  }),

  lookup({
    method: 'get',
    path: '/users',
    access: { scope: 'tickets:read', role: 'viewer' },
    operationId: 'listUsers',
    summary: 'List users',
    success: counted('The users.', 'users', userSchema, EXAMPLES.user),
    errors: [],
    async handle({ services, call }) {
      const { users } = await services.lookup.ListUsers({ active_only: false }, call);
      return { data: countedData('users', users.map(presentUser)) };
    },
  }),

  lookup({
    method: 'get',
    path: '/users/:id',
    access: { scope: 'tickets:read', role: 'viewer' },
    request: { params: userIdParams },
    operationId: 'getUser',
    summary: 'Get a user (additive)',
    success: tagged(200, 'The user.', 'user', userSchema, EXAMPLES.user),
    errors: [400, 404],
    async handle({ params, services, call }) {
      const { users } = await services.lookup.GetUsers({ ids: [params.id] }, call);
      const user = users.find((candidate) => candidate.id === params.id);
      if (!user) throw AppError.notFound(ERROR_MESSAGES.userNotFound);
      return { data: { user: presentUser(user) }, etag: true };
    },
  }),
];

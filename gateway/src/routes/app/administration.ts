/**
 * Project administration on the session host, for admins: creating projects (with their workflow),
 * as `pnpm tix project create` does, and editing a project and its workflow (`project update`,
 * `status add|update|remove`); ticket types are in ticket-type-administration.ts:
 *   PATCH  /api/projects/{id}                    name, description;
 *   POST   /api/projects/{id}/statuses           add a status (at `position`, default last);
 *   PATCH  /api/projects/{id}/statuses/{slug}    relabel, close/open, move;
 *   DELETE /api/projects/{id}/statuses/{slug}    remove (`move_to`: where its tickets go; 409 with
 *                                                their count when live tickets are in it without one).
 * The gateway checks shapes and bounds; the lookup service holds the rules (slug and prefix format,
 * a workflow's statuses) and answers each problem under its field. The ticket
 * service moves the tickets of a removed status when it hears lookup's project.updated.
 */
import { z } from 'zod';
import { PROJECT_LIMITS, presentProject, SLUG_MAX_LENGTH } from '@tix/protos';
import { givenFields } from '../../http/validate.js';
import { idParam, integerField, requiredTextField, slugField, textField } from '../../http/schema-fields.js';
import type { Project, ProjectResolver } from '../../projects/project-resolver.js';
import { projectSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { single } from '../../resources/responses.js';
import { operationGroup, type Answer, type Operation } from '../operation.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';

/** A bound no valid prefix reaches; the lookup service says what a valid one is. */
const MAX_PREFIX_LENGTH = 10;

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

export const INVALID_PROJECT_ID_MESSAGE = 'Invalid project id';

export const projectIdParams = z.object({
  id: idParam({ message: INVALID_PROJECT_ID_MESSAGE, description: 'Project id.', example: 1 }),
});

const statusSlugParam = slugField('Status slug', {
  description: 'The status slug.',
  example: 'in_review',
});

const projectStatusParams = z.object({
  id: idParam({ message: INVALID_PROJECT_ID_MESSAGE, description: 'Project id.', example: 1 }),
  slug: statusSlugParam,
});

const statusLabelField = textField('Status label', {
  max: PROJECT_LIMITS.statusLabel,
  description: 'Shown on the board.',
  example: 'In review',
});
const isClosedField = z
  .boolean({ error: 'is_closed must be true or false' })
  .meta({ description: 'True for a status where tickets are resolved (done, closed).' });
const positionField = integerField('Position', {
  min: 0,
  max: PROJECT_LIMITS.statuses,
  description: '0-based place in the workflow (board lane order); the others keep their order.',
  example: 1,
});

const updateProjectBody = z.object(
  {
    name: requiredTextField('Name', {
      max: PROJECT_LIMITS.name,
      description: 'Display name.',
      example: 'Customer support',
    }).optional(),
    description: textField('Description', {
      max: PROJECT_LIMITS.description,
      description: 'Free text.',
    }).optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const addStatusBody = z.object(
  {
    slug: slugField('Slug', {
      description: 'Lower-case words joined by underscores; unique in the project.',
      example: 'in_review',
    }),
    label: statusLabelField,
    is_closed: isClosedField.optional(),
    position: positionField.optional().meta({ description: '0-based place; absent: last.' }),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const updateStatusBody = z.object(
  {
    label: statusLabelField.optional(),
    is_closed: isClosedField.optional(),
    position: positionField.optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const removeStatusQuery = z.object({
  move_to: z
    .string({ error: 'move_to must be one status slug' })
    .min(1, 'move_to must be one status slug')
    .max(SLUG_MAX_LENGTH, 'move_to must be one status slug')
    .optional()
    .meta({
      description: 'The status its tickets move to; required when live tickets are in the removed status.',
      example: 'open',
    }),
});

/** Answers the edited project; this gateway forgets its cached copy so the next request sees the change. */
function projectAnswer(projects: ProjectResolver, project: Project, status = 200): Answer {
  projects.forget?.(project);
  return { data: { project: presentProject(project) }, status };
}

const administration = operationGroup({ hosts: ['app'], project: 'none', tag: 'Account' });

export const ADMINISTRATION_OPERATIONS: Operation[] = [
  administration({
    method: 'post',
    path: '/projects',
    access: { scope: null, role: 'admin' },
    request: { body: createProjectBody },
    bodyExample: {
      name: 'Helpdesk',
      slug: 'helpdesk',
      prefix: 'HELP',
      statuses: [
        { slug: 'open', label: 'Open' },
        { slug: 'closed', label: 'Closed', is_closed: true },
      ],
    },
    operationId: 'createProject',
    summary: 'Create a project with its workflow (admin)',
    success: single(201, 'The project.', 'project', projectSchema, EXAMPLES.project),
    errors: [422],
    async handle({ body, services, call }) {
      const project = await services.lookup.CreateProject(
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
        call,
      );
      return { data: { project: presentProject(project) }, status: 201, location: `/projects/${project.id}` };
    },
  }),

  administration({
    method: 'patch',
    path: '/projects/:id',
    access: { scope: null, role: 'admin' },
    request: { params: projectIdParams, body: updateProjectBody },
    bodyExample: { name: 'Customer support', description: 'Questions from customers' },
    operationId: 'updateProject',
    summary: "Change a project's name or description (admin)",
    success: single(200, 'The project.', 'project', projectSchema, EXAMPLES.project),
    errors: [404, 422],
    async handle({ params, body, call, services, projects }) {
      const project = await services.lookup.UpdateProject(
        {
          id: params.id,
          ...givenFields(body, 'name', 'description'),
        },
        call,
      );
      return projectAnswer(projects, project);
    },
  }),

  administration({
    method: 'post',
    path: '/projects/:id/statuses',
    access: { scope: null, role: 'admin' },
    request: { params: projectIdParams, body: addStatusBody },
    bodyExample: { slug: 'in_review', label: 'In review', position: 2 },
    operationId: 'addProjectStatus',
    summary: "Add a status to a project's workflow (admin)",
    success: single(201, 'The project with its new workflow.', 'project', projectSchema, EXAMPLES.project),
    errors: [404, 422],
    async handle({ params, body, call, services, projects }) {
      const project = await services.lookup.AddProjectStatus(
        {
          project_id: params.id,
          status: { slug: body.slug, label: body.label, is_closed: body.is_closed ?? false },
          ...givenFields(body, 'position'),
        },
        call,
      );
      // A status is part of its project: the created resource named is the project.
      return { ...projectAnswer(projects, project, 201), location: `/projects/${project.id}` };
    },
  }),

  administration({
    method: 'patch',
    path: '/projects/:id/statuses/:slug',
    access: { scope: null, role: 'admin' },
    request: { params: projectStatusParams, body: updateStatusBody },
    bodyExample: { label: 'Waiting for review', position: 1 },
    operationId: 'updateProjectStatus',
    summary: 'Relabel, close or reopen, or move a status (admin)',
    success: single(200, 'The project with its workflow.', 'project', projectSchema, EXAMPLES.project),
    errors: [404, 422],
    async handle({ params, body, call, services, projects }) {
      const project = await services.lookup.UpdateProjectStatus(
        {
          project_id: params.id,
          slug: params.slug,
          ...givenFields(body, 'label', 'is_closed', 'position'),
        },
        call,
      );
      return projectAnswer(projects, project);
    },
  }),

  administration({
    method: 'delete',
    path: '/projects/:id/statuses/:slug',
    access: { scope: null, role: 'admin' },
    request: { params: projectStatusParams, query: removeStatusQuery },
    operationId: 'removeProjectStatus',
    summary: "Remove a status from a project's workflow (admin)",
    success: single(200, 'The project with its workflow.', 'project', projectSchema, EXAMPLES.project),
    errors: [404, 409, 422],
    async handle({ params, query, call, services, projects }) {
      const project = await services.lookup.RemoveProjectStatus(
        {
          project_id: params.id,
          slug: params.slug,
          ...givenFields(query, 'move_to'),
        },
        call,
      );
      return projectAnswer(projects, project);
    },
  }),
];

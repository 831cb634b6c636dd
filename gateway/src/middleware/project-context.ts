/**
 * Project context (spec "Project context (shared)"), decided in one place. Order:
 *   1. the API key's project scope;
 *   2. query `project_id` (digits only), or body `project_id` on routes that opt in (ticket creation);
 *   3. query or body `project` (slug).
 * A project-scoped key ignores `project` and is answered inside its own project; a `project_id` that
 * names another project is outside its scope and answered 404 like any unreachable resource. None of
 * them -> 400 `Project ID is required.`; an unknown project -> 404 `Project not found`.
 */
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { AppError, type OutgoingContext } from '@tix/kit';
import { ERROR_MESSAGES, type Principal } from '@tix/protos';
import { callContext } from '../http/request-context.js';
import type { Project, ProjectResolver } from '../projects/project-resolver.js';

export type ProjectSelection =
  | { source: 'scope'; id: number }
  | { source: 'project_id'; id: number }
  | { source: 'project'; slug: string };

export interface ProjectContextInput {
  principal: Principal | undefined;
  query: Record<string, unknown>;
  body: unknown;
  /** Whether body `project_id` counts (ticket creation). */
  acceptBodyProjectId: boolean;
}

const DIGITS = /^[0-9]+$/;
const NOT_AN_INTEGER = 'must be an integer';
const NOT_A_SLUG = 'must be a project slug';

/** Query `project_id`: digits only. */
export const projectIdParam = z
  .string({ error: NOT_AN_INTEGER })
  .regex(DIGITS, NOT_AN_INTEGER)
  .transform(Number)
  .pipe(z.number())
  .meta({
    description: 'The project to act in, by id (a project-scoped key may only name its own project).',
    example: 1,
  });

/** Query or body `project`: a project slug (ignored for a project-scoped key). */
export const projectSlugParam = z.string({ error: NOT_A_SLUG }).trim().min(1, NOT_A_SLUG).meta({
  description: 'The project to act in, by slug (ignored for a project-scoped key).',
  example: 'acme',
});

/** Body `project_id` on ticket creation: an integer (digit strings tolerated) or null (not given). */
export const bodyProjectIdField = z
  .union(
    [
      z.number().int(NOT_AN_INTEGER).min(0, NOT_AN_INTEGER),
      z.string().regex(DIGITS, NOT_AN_INTEGER).transform(Number),
    ],
    { error: NOT_AN_INTEGER },
  )
  .nullable()
  .meta({
    description:
      'The project to create the ticket in, when the key is not project-scoped and no project_id query parameter is given.',
    example: 1,
  });

/** The project-context query parameters every project route accepts (for the API description). */
export const projectContextQuery = z.object({
  project_id: projectIdParam.optional(),
  project: projectSlugParam.optional(),
});

function invalid(field: string, message: string): AppError {
  return AppError.badRequest(`Invalid ${field}`, { [field]: [message] });
}

/** `value` parsed by `schema`, undefined when absent; 400 naming `field` otherwise. */
function parseParameter<S extends z.ZodType>(
  schema: S,
  field: string,
  value: unknown,
): z.output<S> | undefined {
  if (value === undefined) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(field, result.error.issues[0]?.message ?? NOT_AN_INTEGER);
  return result.data;
}

function bodyField(body: unknown, field: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)[field]
    : undefined;
}

/**
 * Chooses where the project comes from, per the order above, validating every parameter given.
 * Throws 400 for a malformed parameter or when nothing names a project, 404 for a project_id
 * outside the key's scope.
 */
export function selectProject(input: ProjectContextInput): ProjectSelection {
  const selection = selectNamedProject(input);
  if (!selection) throw AppError.badRequest(ERROR_MESSAGES.projectRequired);
  return selection;
}

/** selectProject, except that naming no project is undefined instead of 400. */
export function selectNamedProject(input: ProjectContextInput): ProjectSelection | undefined {
  const queryId = parseParameter(projectIdParam, 'project_id', input.query.project_id);
  const bodyId = input.acceptBodyProjectId
    ? (parseParameter(bodyProjectIdField, 'project_id', bodyField(input.body, 'project_id')) ?? undefined)
    : undefined;
  const requestedId = queryId ?? bodyId;
  const slug =
    parseParameter(projectSlugParam, 'project', input.query.project) ??
    parseParameter(projectSlugParam, 'project', bodyField(input.body, 'project'));

  const scopedId = input.principal?.project_id;
  if (scopedId !== undefined) {
    if (requestedId !== undefined && requestedId !== scopedId) {
      throw AppError.notFound(ERROR_MESSAGES.projectNotFound);
    }
    return { source: 'scope', id: scopedId };
  }
  if (requestedId !== undefined) return { source: 'project_id', id: requestedId };
  if (slug !== undefined) return { source: 'project', slug };
  return undefined;
}

function resolveSelection(
  selection: ProjectSelection,
  resolver: ProjectResolver,
  context: OutgoingContext,
): Promise<Project> {
  return selection.source === 'project'
    ? resolver.bySlug(selection.slug, context)
    : resolver.byId(selection.id, context);
}

/** The project a request operates in (selectProject, then the resolver). */
export async function resolveProjectContext(
  input: ProjectContextInput,
  resolver: ProjectResolver,
  context: OutgoingContext,
): Promise<Project> {
  return resolveSelection(selectProject(input), resolver, context);
}

/**
 * Resolves the project context and sets request.project. With `optional`, a request that names no
 * project goes on without one (a malformed or unknown one is still refused).
 */
export function projectContext(options: {
  resolver: ProjectResolver;
  /** Ticket creation: also read body `project_id`. */
  acceptBodyProjectId?: boolean;
  optional?: boolean;
}): RequestHandler {
  const acceptBodyProjectId = options.acceptBodyProjectId ?? false;
  const select = options.optional ? selectNamedProject : selectProject;
  return async (request, _response, next) => {
    const selection = select({
      principal: request.principal,
      query: request.query,
      body: request.body,
      acceptBodyProjectId,
    });
    if (selection)
      request.project = await resolveSelection(selection, options.resolver, callContext(request));
    next();
  };
}

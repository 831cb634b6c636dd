/**
 * Project use cases: resolving, listing and creating projects (with their workflows), and editing
 * them: name and description, and the workflow's statuses (add, relabel, close/open, reorder,
 * remove). Every edit that changes something writes project.updated in its transaction; the ticket
 * service forgets its cached workflow on it and moves the tickets of a removed status.
 */
import { actorOf, AppError, FieldErrors, fieldChanges, newDomainEvent, type OutgoingContext } from '@tix/kit';
import { ERROR_MESSAGES, presentProject, type Principal } from '@tix/protos';
import { PROJECT_SLUG_PATTERN } from '../shared/slugs.js';
import { UniqueViolation } from '../shared/unique-violation.js';
import { toProjectMessage } from './project-mapper.js';
import {
  changedProjectFields,
  planAddStatus,
  planRemoveStatus,
  planUpdateStatus,
  requireStatus,
  validateNewProject,
  validateProjectChanges,
  type ProjectChangeRequest,
  type StatusDefinition,
} from './project-rules.js';
import type { ProjectEdit, ProjectRecord, ProjectStore } from './project-store.js';

export const PROJECT_NOT_FOUND = ERROR_MESSAGES.projectNotFound;

export type ProjectSelector = { id: number } | { slug: string };

export interface CreateProjectInput {
  name: string;
  slug: string;
  prefix: string;
  description: string;
  /** Empty means the default workflow. */
  statuses: readonly StatusDefinition[];
}

/** Who asks for an edit: the author of its event, and what a peer call passes on. */
export interface EditCaller {
  principal: Principal | null;
  correlationId?: string;
}

/** How many of a project's tickets are in a status (the ticket service's CountTicketsInStatus). */
export type CountTicketsInStatus = (
  projectId: number,
  status: string,
  context: OutgoingContext,
) => Promise<{ live: number; deleted: number }>;

/** What project.updated's `changed` lists. */
export type ChangedProjectPart = 'name' | 'description' | 'statuses';

/** The data of a project.updated event: the Project object after the change, and what changed. */
export type ProjectUpdatedData = ReturnType<typeof presentProject> & {
  changed: ChangedProjectPart[];
  /**
   * Statuses the change removed and where their tickets go: `moved_to` null when no live ticket
   * needed moving (soft-deleted ones then go to the first status of the workflow).
   */
  statuses_removed: { slug: string; moved_to: string | null }[];
  /** The user who made the change; null for the CLI (no principal). */
  actor_id: number | null;
};

export interface StatusInput {
  slug: string;
  label: string;
  isClosed: boolean;
  /** 0-based; absent: last. */
  position?: number;
}

export interface StatusChangeRequest {
  label?: string;
  isClosed?: boolean;
  position?: number;
}

export interface ProjectService {
  /** The project with that id or slug; 404 "Project not found" otherwise. */
  resolveProject(selector: ProjectSelector): Promise<ProjectRecord>;
  /** The project with that id or slug, or null. */
  findProject(selector: ProjectSelector): Promise<ProjectRecord | null>;
  /** All projects in id order, or only `onlyProjectId` (empty when it does not exist). */
  listProjects(onlyProjectId?: number): Promise<ProjectRecord[]>;
  /** Creates a project; 422 on invalid input or a slug/prefix already in use. */
  createProject(input: CreateProjectInput): Promise<ProjectRecord>;
  /** Changes name and/or description (404, 422); values it already has write nothing. */
  updateProject(id: number, request: ProjectChangeRequest, caller: EditCaller): Promise<ProjectRecord>;
  /** Adds a status (404 for the project, 422 by the workflow rules). */
  addStatus(projectId: number, status: StatusInput, caller: EditCaller): Promise<ProjectRecord>;
  /** Relabels, closes/opens or moves a status (404 for the project or status, 422). */
  updateStatus(
    projectId: number,
    slug: string,
    request: StatusChangeRequest,
    caller: EditCaller,
  ): Promise<ProjectRecord>;
  /**
   * Removes a status (404, 422). Without `moveTo`, asks the ticket service how many live tickets are
   * in it: 409 naming the count when there are any.
   */
  removeStatus(
    projectId: number,
    slug: string,
    moveTo: string | undefined,
    caller: EditCaller,
  ): Promise<ProjectRecord>;
}

/** The refusal of removing a status that live tickets are in without saying where they go. */
export function ticketsInStatusMessage(live: number, label: string): string {
  const tickets = live === 1 ? '1 ticket is' : `${live} tickets are`;
  return `${tickets} in "${label}"; choose a status to move them to (move_to)`;
}

function definitionsOf(project: ProjectRecord): StatusDefinition[] {
  return project.statuses.map((status) => ({
    slug: status.slug,
    label: status.label,
    isClosed: status.isClosed,
  }));
}

/** True when two workflows are the same statuses, labels, flags and order. */
function sameWorkflow(a: readonly StatusDefinition[], b: readonly StatusDefinition[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (status, index) =>
        status.slug === b[index]!.slug &&
        status.label === b[index]!.label &&
        status.isClosed === b[index]!.isClosed,
    )
  );
}

/** Duplicate identifiers are validation errors of their field (422), like any other bad value. */
function duplicateMessage(field: string, value: string): string {
  return field === 'slug'
    ? `A project with slug "${value}" already exists`
    : `Prefix "${value}" is already used by another project`;
}

/** Builds the project use cases over a store (`countTickets` asks the ticket service; `now` stamps events). */
export function createProjectService(
  store: ProjectStore,
  options: { countTickets?: CountTicketsInStatus; now?: () => Date } = {},
): ProjectService {
  const now = options.now ?? (() => new Date());

  /**
   * Applies `plan` to the locked project and writes project.updated; `removed` says where the
   * tickets of removed statuses go. 404 for an unknown project.
   */
  async function edit(
    id: number,
    caller: EditCaller,
    plan: (before: ProjectRecord) => ProjectEdit | null,
    removed: { slug: string; moved_to: string | null }[] = [],
  ): Promise<ProjectRecord> {
    const edited = await store.edit(id, {
      plan(before) {
        const next = plan(before);
        if (next === null) return null;
        const statusesChanged =
          next.statuses !== undefined && !sameWorkflow(definitionsOf(before), next.statuses);
        const fields = changedProjectFields(before, next);
        if (fields.length === 0 && !statusesChanged) return null;
        return next;
      },
      event(after, before) {
        const changed: ChangedProjectPart[] = [
          ...changedProjectFields(before, after),
          ...(sameWorkflow(definitionsOf(before), definitionsOf(after)) ? [] : ['statuses' as const]),
        ];
        const present = (project: ProjectRecord) =>
          presentProject(toProjectMessage(project) as Parameters<typeof presentProject>[0]);
        const data: ProjectUpdatedData = {
          ...present(after),
          changed,
          statuses_removed: removed,
          actor_id: caller.principal?.user_id ?? null,
        };
        return newDomainEvent('project.updated', data, {
          source: 'lookup',
          projectId: after.id,
          occurredAt: now(),
          actor: actorOf(caller.principal),
          changes: fieldChanges(present(before), present(after), changed),
        });
      },
    });
    if (!edited) throw AppError.notFound(PROJECT_NOT_FOUND);
    return edited;
  }

  /** The project (404) for checks that must come before the locked edit (the ticket count). */
  async function current(id: number): Promise<ProjectRecord> {
    const project = await store.findById(id);
    if (!project) throw AppError.notFound(PROJECT_NOT_FOUND);
    return project;
  }

  // A slug that breaks the slug rule cannot exist; answering without the database also keeps
  // values PostgreSQL cannot even compare (NUL bytes) away from it.
  const findProject = async (selector: ProjectSelector) => {
    if ('id' in selector) return store.findById(selector.id);
    return PROJECT_SLUG_PATTERN.test(selector.slug) ? store.findBySlug(selector.slug) : null;
  };
  return {
    findProject,

    async resolveProject(selector) {
      const project = await findProject(selector);
      if (!project) throw AppError.notFound(PROJECT_NOT_FOUND);
      return project;
    },

    listProjects(onlyProjectId) {
      return store.list(onlyProjectId === undefined ? {} : { onlyId: onlyProjectId });
    },

    async createProject(input) {
      const project = validateNewProject(input);
      const taken = await store.takenIdentifiers(project.slug, project.prefix);
      const errors = new FieldErrors();
      if (taken.slug) errors.add('slug', duplicateMessage('slug', project.slug));
      if (taken.prefix) errors.add('prefix', duplicateMessage('prefix', project.prefix));
      errors.throwIfAny();
      try {
        return await store.create(project);
      } catch (error) {
        // Another request took the identifier between the check and the insert.
        if (error instanceof UniqueViolation) {
          const value = error.field === 'slug' ? project.slug : project.prefix;
          throw AppError.validation({ [error.field]: [duplicateMessage(error.field, value)] });
        }
        throw error;
      }
    },

    async updateProject(id, request, caller) {
      const change = validateProjectChanges(request);
      return edit(id, caller, () => change);
    },

    addStatus(projectId, status, caller) {
      return edit(projectId, caller, (before) => ({
        statuses: planAddStatus(definitionsOf(before), status),
      }));
    },

    updateStatus(projectId, slug, request, caller) {
      return edit(projectId, caller, (before) => ({
        statuses: planUpdateStatus(definitionsOf(before), slug, request),
      }));
    },

    async removeStatus(projectId, slug, moveTo, caller) {
      // Refused before anything else when the request itself is wrong (404, 422)...
      const project = await current(projectId);
      planRemoveStatus(definitionsOf(project), slug, moveTo);
      // ...then, with no target, only a status no live ticket is in may go. Asked before the
      // project is locked (a peer call must not hold the lock); a ticket put in the status after the
      // count is moved anyway, to the first status (moved_to null).
      if (moveTo === undefined) {
        if (!options.countTickets) throw AppError.unavailable('The ticket service is not available');
        const { live } = await options.countTickets(projectId, slug, {
          principal: caller.principal,
          ...(caller.correlationId === undefined ? {} : { correlationId: caller.correlationId }),
        });
        if (live > 0) {
          const { label } = requireStatus(project.statuses, slug);
          throw AppError.conflict(ticketsInStatusMessage(live, label));
        }
      }
      return edit(
        projectId,
        caller,
        (before) => ({ statuses: planRemoveStatus(definitionsOf(before), slug, moveTo) }),
        [{ slug, moved_to: moveTo ?? null }],
      );
    },
  };
}

/**
 * What the ticket service reads from the lookup service: projects (prefix, workflow), ticket types
 * (field_schema) and users (exists, active). Each is cached in process for a short TTL (see
 * config.ts: PROJECT_CACHE_TTL_MS 30 s, TICKET_TYPE_CACHE_TTL_MS 30 s, USER_CACHE_TTL_MS 10 s), so
 * the hot paths make no lookup call at all; a change made in lookup is seen within the TTL (at once
 * by the replica that hears its project.updated / ticket_type.updated, see lookup-events.ts). Only
 * found values are cached: a project, type or user created a moment ago is visible at once.
 * Calls carry the caller's correlation id and principal, and the configured deadline.
 */
import { AppError, type CallContext, type OutgoingContext, type ServiceClient } from '@tix/kit';
import type { FieldSchema } from '@tix/custom-fields';
import { ERROR_MESSAGES, MAX_INT32, parseFieldSchemaJson } from '@tix/protos';
import type { LookupCacheTtls } from '../config.js';
import { TtlCache } from '@tix/kit';
import { toProjectWorkflow, type ProjectWorkflow } from './workflow.js';

export const PROJECT_NOT_FOUND = ERROR_MESSAGES.projectNotFound;

export interface TicketTypeInfo {
  id: number;
  projectId: number;
  fieldSchema: FieldSchema;
  /** When the type was retired (it takes no new tickets), or null. */
  retiredAt: string | null;
}

export interface UserInfo {
  id: number;
  isActive: boolean;
}

/** The part of a call the lookup calls pass on. */
export type LookupCaller = Pick<CallContext, 'correlationId' | 'principal'>;

export interface LookupDirectory {
  /** The project's prefix and workflow; 404 `Project not found` when lookup does not know it. */
  project(projectId: number, caller: LookupCaller): Promise<ProjectWorkflow>;
  /** The ticket type when it exists in that project, else null. */
  ticketType(projectId: number, typeId: number, caller: LookupCaller): Promise<TicketTypeInfo | null>;
  /** The user when it exists, else null. */
  user(userId: number, caller: LookupCaller): Promise<UserInfo | null>;
  /** Drops the cached project (its workflow changed: project.updated); the next read asks lookup. */
  forgetProject(projectId: number): void;
  /** Drops the cached ticket type (ticket_type.updated). */
  forgetTicketType(projectId: number, typeId: number): void;
}

type LookupClient = Pick<ServiceClient<'lookup'>, 'ResolveProject' | 'GetTicketType' | 'GetUsers'>;

function outgoing(caller: LookupCaller): OutgoingContext {
  return { correlationId: caller.correlationId, principal: caller.principal };
}

function isInt32Id(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= MAX_INT32;
}

/** Creates the cached directory described in the file header. */
export function createLookupDirectory(options: {
  client: LookupClient;
  ttls: LookupCacheTtls;
  now?: () => number;
}): LookupDirectory {
  const { client } = options;
  const projects = new TtlCache<number, ProjectWorkflow>({ ttlMs: options.ttls.projectMs, now: options.now });
  const types = new TtlCache<string, TicketTypeInfo>({ ttlMs: options.ttls.ticketTypeMs, now: options.now });
  const users = new TtlCache<number, UserInfo>({ ttlMs: options.ttls.userMs, now: options.now });

  /** Runs a lookup call; its NOT_FOUND becomes null, every other refusal passes through. */
  async function orNull<T>(call: () => Promise<T>): Promise<T | null> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof AppError && error.kind === 'not_found') return null;
      throw error;
    }
  }

  return {
    async project(projectId, caller) {
      const project = isInt32Id(projectId)
        ? await projects.load(projectId, () =>
            orNull(async () =>
              toProjectWorkflow(await client.ResolveProject({ id: projectId }, outgoing(caller))),
            ),
          )
        : null;
      if (!project) throw AppError.notFound(PROJECT_NOT_FOUND);
      return project;
    },

    async ticketType(projectId, typeId, caller) {
      if (!isInt32Id(projectId) || !isInt32Id(typeId)) return null;
      return types.load(`${projectId}:${typeId}`, () =>
        orNull(async () => {
          const type = await client.GetTicketType({ project_id: projectId, id: typeId }, outgoing(caller));
          // Lookup validated and normalised the schema when the type was saved.
          const fieldSchema = parseFieldSchemaJson(type.field_schema_json) as FieldSchema;
          return { id: type.id, projectId: type.project_id, fieldSchema, retiredAt: type.retired_at ?? null };
        }),
      );
    },

    forgetProject(projectId) {
      projects.delete(projectId);
    },

    forgetTicketType(projectId, typeId) {
      types.delete(`${projectId}:${typeId}`);
    },

    async user(userId, caller) {
      if (!isInt32Id(userId)) return null;
      return users.load(userId, async () => {
        const { users: found } = await client.GetUsers({ ids: [userId] }, outgoing(caller));
        const user = found.find((candidate) => candidate.id === userId);
        return user ? { id: user.id, isActive: user.is_active } : null;
      });
    },
  };
}

/**
 * One HTTP operation, declared once: where it is served and who may call it, what it takes, what it
 * answers, and its handler. The same object feeds express (routes/mount.ts builds its chain: access
 * -> project context -> validation -> handler) and the API description (openapi/document.ts), so
 * the two cannot drift apart.
 *
 * Access names both credentials: the scope an API key needs on the API host, and the role a
 * signed-in user needs on the session host, so that the session host can serve the very same
 * declarations with sessions, CSRF and role checks instead of keys and scopes.
 */
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Role, Scope } from '@tix/protos';
import type { ApiKeyAuthenticator } from '../auth/api-key-authenticator.js';
import type { HostRole } from '../http/request-context.js';
import type { GatewayLimits } from '../limits/index.js';
import type { PasswordResetMailer } from '../mail/password-reset-mail.js';
import type { RequestSchemas, ValidatedInput } from '../http/validate.js';
import type { SessionOptions } from '../middleware/session.js';
import type { OperationSuccess } from '../openapi/responses.js';
import type { ProjectResolver } from '../projects/project-resolver.js';
import type { ServiceClients } from '../services.js';
import type { AttachmentLimits } from './v1/attachments.schemas.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call an operation:
 * - `{ scope, role }`: an API key holding `scope` (null: any valid key) on the API host; a user of
 *   at least `role` (admin > team_lead > agent > viewer) on the session host;
 * - `{ session }`: the session host's own operations (sign-in and the like), with or without a
 *   signed-in user (`signed_in`: the handler answers 401 `Not signed in` otherwise);
 * - `'public'`: no credentials at all (the API description).
 * CSRF needs no saying: the session host checks it on every state-changing method.
 */
export type Access = { scope: Scope | null; role: Role } | { session: 'optional' | 'signed_in' } | 'public';

/**
 * Project context (spec "Project context (shared)": key scope, then `project_id`, then `project`):
 * `required` answers 400 `Project ID is required.` when nothing names a project; `optional` lets such
 * a request through without one.
 */
export type ProjectContextRule = 'none' | 'required' | 'optional';

/** The groups of the API description, in its order. */
export const TAGS = [
  { name: 'Lookups', description: 'Projects, ticket types and users, to look up identifiers.' },
  { name: 'Tickets', description: 'Tickets: list, search, create, update, move, bulk-update, merge.' },
  { name: 'Board', description: 'Tickets grouped by status lane.' },
  { name: 'Comments', description: 'Internal notes and customer-visible comments on tickets.' },
  { name: 'Attachments', description: 'Files on tickets (multipart upload, streamed download).' },
  { name: 'Webhooks', description: 'Signed HTTP notifications, and their delivery log.' },
  {
    name: 'Activity',
    description:
      'Who changed what, when: the activity feed, ticket histories and the event stream to catch up from.',
  },
  {
    name: 'Assistant',
    description:
      'Suggested replies composed from resolved tickets, with their sources; the predictions recorded for a ticket.',
  },
  {
    name: 'Search',
    description: 'Ranked search over tickets and comments, and questions answered from resolved tickets.',
  },
  { name: 'Session', description: 'Browser sessions on the app host (cookie + CSRF token).' },
  {
    name: 'Account',
    description:
      'Account settings on the app host: your name and password; users, API keys, projects and ticket types (admins).',
  },
  { name: 'API description', description: 'This document and its reference page.' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

/** What handlers use, handed over once when the routes are mounted. */
export interface RouteDeps {
  services: ServiceClients;
  /** API key authentication (a key revoked through this gateway is evicted from it at once). */
  apiKeys: ApiKeyAuthenticator;
  /** Resolves the project context. */
  projects: ProjectResolver;
  attachments: AttachmentLimits;
  sessions: SessionOptions;
  /** The API description as JSON, serialized once at start (GET /api/openapi). */
  apiDescriptionJson: string;
  /** Mails password reset links (mail/). */
  passwordResetMail: PasswordResetMailer;
  /** Rate limits, quotas, idempotency; absent = none (tests). Routes read a budget from it. */
  limits?: GatewayLimits;
  /** Every operation the gateway serves (GET /api/auth/me lists those the user may call). */
  operations?: readonly Operation[];
}

/** The example of a JSON body, typed as what its schema accepts. */
type BodyExample<Body> = Body extends z.ZodType ? z.input<Body> : never;

export interface Operation<S extends RequestSchemas = RequestSchemas> {
  method: HttpMethod;
  /** The express path under the host's prefix (/v1, /api), e.g. `/tickets/:id`. */
  path: string;
  hosts: readonly HostRole[];
  access: Access;
  project: ProjectContextRule;
  /** A ticket's write honouring If-Match (http/conditional.ts): documented with its 412. */
  ifMatch?: true;
  /** Body `project_id` names the project too, after the query one (creating tickets and webhooks). */
  projectFromBody?: true;
  /** Path parameters, query and JSON body: validated before the handler, which gets the parsed values. */
  request?: S;
  /** Every JSON body has an example (the document test checks the schema accepts it). */
  bodyExample?: BodyExample<S['body']>;
  /** A multipart/form-data body with one file in `field`, streamed by the handler (no JSON parsing). */
  upload?: { field: string };

  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  success: OperationSuccess;
  /** Error statuses beyond those implied by the access, the project context and the inputs. */
  errors: number[];

  handle(
    input: ValidatedInput<S>,
    request: Request,
    response: Response,
    deps: RouteDeps,
  ): Promise<void> | void;
}

/** What the API description reads of an operation: everything but the handler. */
export type OperationDescription = Omit<Operation, 'handle'>;

/** Declares an operation; its handler's input is typed by its request schemas. */
export function defineOperation<S extends RequestSchemas = Record<never, never>>(
  operation: Operation<S>,
): Operation {
  return operation;
}

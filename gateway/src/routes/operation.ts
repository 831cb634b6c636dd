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
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import type { AppError, Logger, OutgoingContext } from '@tix/kit';
import type { Principal } from '@tix/protos';
import type { ApiKeyAuthenticator } from '../auth/api-key-authenticator.js';
import type { DataStream, DocumentSections } from '../http/envelope.js';
import type { DownloadedFile } from '../http/file-download.js';
import type { HostRole, LoadedSession, ProjectContext } from '../http/request-context.js';
import type { ListLinks } from '../http/links.js';
import type { Access } from '../middleware/require-access.js';
import type { GatewayLimits } from '../limits/index.js';
import type { RateLimitBudget } from '../limits/rate-limiter.js';
import type { PasswordResetMailer } from '../mail/password-reset-mail.js';
import type { RequestSchemas, ValidatedInput } from '../http/validate.js';
import type { SessionOptions } from '../middleware/session.js';
import type { OperationSuccess } from '../resources/responses.js';
import type { ProjectResolver } from '../projects/project-resolver.js';
import type { RequiredServices, ServiceClients } from '../services.js';
import type { AttachmentLimits } from './v1/attachments.schemas.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type { Access };

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
  {
    name: 'Customers',
    description:
      'The people outside the team who ask and are copied (requesters and CCs), their organizations, and their tickets.',
  },
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
  {
    name: 'Mail',
    description: 'Mailboxes that open tickets from email, and what each received (admins, app host).',
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
  /** The API reference page and its static files (GET /api/docs), from the document builder. */
  apiReference: ApiReference;
  /** Mails password reset links (mail/). */
  passwordResetMail: PasswordResetMailer;
  /** Rate limits, quotas, idempotency; absent = none (tests). Routes read a budget from it. */
  limits?: GatewayLimits;
  /** Every operation the gateway serves (GET /api/auth/me lists those the user may call). */
  operations?: readonly Operation[];
}

/** The example of a JSON body, typed as what its schema accepts. */
type BodyExample<Body> = Body extends z.ZodType ? z.input<Body> : never;

/**
 * Where an operation stands: the hosts that serve it, its project context and its group in the
 * API description. The operations of one route file mostly share these (see operationGroup).
 */
export interface OperationPlace<P extends ProjectContextRule = ProjectContextRule> {
  hosts: readonly HostRole[];
  project: P;
  tag: Tag;
}

/** An operation but for its place: what each declaration of an operationGroup says. */
export interface OperationDeclaration<
  S extends RequestSchemas = RequestSchemas,
  P extends ProjectContextRule = ProjectContextRule,
  A extends Access = Access,
> {
  method: HttpMethod;
  /** The express path under the host's prefix (/v1, /api), e.g. `/tickets/:id`. */
  path: string;
  access: A;
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
  /** Its prose in the API description is resources/descriptions/, by this operationId. */
  summary: string;
  success: OperationSuccess;
  /** Error statuses beyond those implied by the access, the project context and the inputs. */
  errors: number[];

  /** The handler: a function of the request's facts to the answer, which mount.ts writes. */
  handle(input: HandlerInput<S, P, A>): Promise<Answer> | Answer;
}

export interface Operation<
  S extends RequestSchemas = RequestSchemas,
  P extends ProjectContextRule = ProjectContextRule,
  A extends Access = Access,
>
  extends OperationPlace<P>, OperationDeclaration<S, P, A> {}

/** What the API description reads of an operation: everything but the handler. */
export type OperationDescription = Omit<Operation, 'handle'>;

/** Declares an operation; its handler's input is typed by its request schemas. */
export function defineOperation<
  S extends RequestSchemas = Record<never, never>,
  P extends ProjectContextRule = ProjectContextRule,
  A extends Access = Access,
>(operation: Operation<S, P, A>): Operation {
  return operation;
}

/**
 * Declares the operations of one place (a route file's resource: its hosts, project context and
 * tag, said once); each declaration says the rest, its handler's input typed as defineOperation's.
 * Built when the routes are loaded: the operations are plain objects, as defineOperation's are.
 */
export function operationGroup<P extends ProjectContextRule>(place: OperationPlace<P>) {
  return function declare<S extends RequestSchemas = Record<never, never>, A extends Access = Access>(
    declaration: OperationDeclaration<S, P, A>,
  ): Operation {
    return defineOperation<S, P, A>({ ...place, ...declaration });
  };
}

/** The API reference page (openapi/docs-page.ts), handed to its routes as the document is. */
export interface ApiReference {
  /** The page, its asset links under `baseUrl`, with the headers it must be served with. */
  page(baseUrl: string): { html: string; headers: Record<string, string> };
  /** A static file of the page by name; undefined when there is none of that name. */
  asset(name: string): { contentType: string; body: string | Buffer } | undefined;
}

/** The project a handler gets: always with `required`, maybe with `optional`, never with `none`. */
type ProjectOf<P extends ProjectContextRule> = P extends 'required'
  ? ProjectContext
  : P extends 'optional'
    ? ProjectContext | undefined
    : undefined;

/** The caller: always authenticated for a scope or role; maybe for session and public operations. */
type PrincipalOf<A extends Access> = A extends { role: unknown } ? Principal : Principal | undefined;

/**
 * What a handler is given (mount.ts builds it from the request): the validated parts, the project
 * and the caller, the context of its service calls, the services (each answering 503 when it is not
 * deployed), and what the routes were mounted with.
 */
export type HandlerInput<
  S extends RequestSchemas = RequestSchemas,
  P extends ProjectContextRule = ProjectContextRule,
  A extends Access = Access,
> = ValidatedInput<S> &
  Omit<RouteDeps, 'services'> & {
    project: ProjectOf<P>;
    principal: PrincipalOf<A>;
    /** The context of every service call for this request (http/request-context.ts callContext). */
    call: OutgoingContext;
    services: RequiredServices;
    /** The browser session on the session host (undefined elsewhere, null without one). */
    session: LoadedSession | null | undefined;
    log: Logger;
    /** `GET` or `HEAD` for a GET operation (a HEAD answer has no body). */
    method: string;
    /** The host's prefix as the request named it (`/v1`, `/api`). */
    baseUrl: string;
    /** The query parameters as the client sent them (`query` holds the parsed values). */
    given: URLSearchParams;
    /** The If-Match header (http/conditional.ts expectedTicketVersion). */
    ifMatch: string | undefined;
    /** What is left of the caller's rate limit on `path` (below the host's prefix), counting nothing. */
    rateLimitBudget: (path: string) => Promise<RateLimitBudget | null>;
    /** The request body as it arrives, for an `upload` operation (http/multipart-upload.ts). */
    upload: IncomingMessage;
  };

/**
 * What a handler answers, as data; mount.ts turns it into HTTP. The body is one of:
 * - `data`: the success envelope `{ ok: true, data }`;
 * - `spliced`: the same, with RawJson put in as it is (http/envelope.ts spliceJson);
 * - `stream`: `{ ok: true, data: { <key>: [...] } }` written as the items arrive;
 * - `sections`: a document of several streamed lists after a head, as a download (the data export);
 * - `file`: a stored file's bytes as a download;
 * - `document`: a body of its own content type, outside the envelope (the API description);
 * - `error`: an error answer that still carries the answer's effects (a cleared session cookie):
 *   an AppError as the error handler writes it, or a status and message in the error envelope.
 */
export type Answer = AnswerEffects &
  (
    | { data: unknown }
    | { spliced: unknown }
    | { stream: DataStream }
    | { sections: SectionedDocument }
    | { file: { file: DownloadedFile; chunks: AsyncIterator<Buffer> } }
    | { document: { contentType: string; body: string | Buffer; cacheControl: string } }
    | { error: AppError | { status: number; message: string } }
  );

/** What an answer says beside its body. */
export interface AnswerEffects {
  /** 200 unless given. */
  status?: number;
  /**
   * The answer's ETag, `true` for a digest of its JSON (http/conditional.ts): kept by the caller's
   * client and revalidated, and 304 without a body to a GET whose If-None-Match names it.
   */
  etag?: string | true;
  /** A created resource's path on this host (`/tickets/42`): `Location` under the host's prefix. */
  location?: string;
  /** `Link` to neighbouring pages: each rel's path and query on this host (http/links.ts). */
  links?: ListLinks;
  /** Further headers (`X-Poll-Interval`, `Cache-Control`, …). */
  headers?: Record<string, string>;
  /** A download: `Content-Disposition: attachment` with this file name. */
  filename?: string;
  /** The session the answer starts (its cookie and CSRF token are set) or ends (the cookie is cleared). */
  session?: { start: LoadedSession } | 'end';
}

/** The data export's document: `{ ok, data: { ...head, <key>: [...], ... } }`, each list streamed. */
export interface SectionedDocument extends DocumentSections {
  /** Closes every list's stream (a client that left cancels them). */
  close(): Promise<void>;
}

/**
 * Serves declared operations (operation.ts) on one host's router. Each operation's chain is built
 * here, once: access check -> project context -> validation -> handler. Operations sharing a path
 * share one express route, so any other method on it answers 405 with `Allow` (http/routing.ts).
 *
 * This is the one place where handlers meet express: the handler's input is built from the request
 * (the project context, the caller, the call context of its service calls, the services), and its
 * answer is written here (the envelope, ETag with 304, Location, Link, streaming, splicing,
 * downloads, session cookies).
 */
import type { Request, RequestHandler, Response, Router } from 'express';
import { AppError } from '@tix/kit';
import { sendTagged } from '../http/conditional.js';
import { sendData, sendDataStream, sendSections, sendSplicedData, writeJson } from '../http/envelope.js';
import { contentDisposition, sendFile } from '../http/file-download.js';
import { linkHeader } from '../http/links.js';
import type { OutgoingContext } from '@tix/kit';
import { callContext, type HostRole } from '../http/request-context.js';
import { defineRoute } from '../http/routing.js';
import { validate } from '../http/validate.js';
import { projectContext } from '../middleware/project-context.js';
import { requireAccess } from '../middleware/require-access.js';
import { applySessionEffect } from '../middleware/session.js';
import type { GatewayLimits } from '../limits/index.js';
import { requiredServices } from '../services.js';
import type { Answer, HandlerInput, HttpMethod, Operation, RouteDeps } from './operation.js';

/** Mounts every operation of `operations` served on `host`, in their order. */
export function mountOperations(
  router: Router,
  host: HostRole,
  operations: readonly Operation[],
  deps: RouteDeps,
): void {
  const routes = new Map<string, Partial<Record<HttpMethod, RequestHandler[]>>>();
  for (const operation of operations) {
    if (!operation.hosts.includes(host)) continue;
    const methods = routes.get(operation.path) ?? {};
    if (methods[operation.method]) {
      throw new Error(`${operation.operationId}: ${operation.method} ${operation.path} is declared twice`);
    }
    methods[operation.method] = chainOf(operation, host, deps);
    routes.set(operation.path, methods);
  }
  for (const [path, methods] of routes) defineRoute(router, path, methods);
}

/**
 * Whether a request is one of the operations `filter` picks among those served on `host` (method and
 * path), for the middleware that runs before routing: the JSON body parser's exemption of uploads,
 * the session host's sign-in gate. Built from the declarations, so a new operation needs nothing else.
 */
export function matchesOperations(
  operations: readonly Operation[],
  host: HostRole,
  filter: (operation: Operation) => boolean,
): (request: { method: string; path: string }) => boolean {
  const picked = operations
    .filter((operation) => operation.hosts.includes(host) && filter(operation))
    .map((operation) => ({
      method: operation.method.toUpperCase(),
      path: new RegExp(`^${operation.path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`),
    }));
  return (request) => {
    // Express answers HEAD with the GET route.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    return picked.some((operation) => operation.method === method && operation.path.test(request.path));
  };
}

/** Uploads read their multipart body themselves: the JSON body parser leaves them alone. */
export function readsOwnBody(
  operations: readonly Operation[],
  host: HostRole,
): (request: { method: string; path: string }) => boolean {
  return matchesOperations(operations, host, (operation) => operation.upload !== undefined);
}

/** What the session host serves without a signed-in user: the public and session-optional operations. */
export function isOpenWithoutSignIn(
  operations: readonly Operation[],
): (request: { method: string; path: string }) => boolean {
  return matchesOperations(
    operations,
    'app',
    ({ access }) => access === 'public' || ('session' in access && access.session === 'optional'),
  );
}

function chainOf(operation: Operation, host: HostRole, deps: RouteDeps): RequestHandler[] {
  const chain: RequestHandler[] = [];
  const access = accessCheck(operation, host);
  if (access) chain.push(access);
  if (operation.project !== 'none') {
    chain.push(
      projectContext({
        resolver: deps.projects,
        acceptBodyProjectId: operation.projectFromBody ?? false,
        optional: operation.project === 'optional',
      }),
    );
  }
  if (operation.request) chain.push(validate(operation.request));
  const Input = inputClass(deps);
  chain.push(async (request, response) => {
    await writeAnswer(request, response, await operation.handle(new Input(request)), deps);
  });
  return chain;
}

/**
 * The parts of a handler's input (operation.ts HandlerInput) that come from the request. What the
 * earlier steps of the chain set (params, body, project, principal, session) is taken as it is; what
 * costs is read when the handler reads it: the request's child logger is made on first use, Express
 * computes `query` on every read unless validation pinned it, and the query as sent is parsed again.
 * Building every part for every request was a tenth of the gateway's time on a ticket read
 * (docs/decisions.md, "Handler input, read when read").
 */
class RequestInput {
  readonly params: Request['params'];
  readonly body: unknown;
  readonly project: Request['project'];
  readonly principal: Request['principal'];
  readonly session: Request['session'];
  readonly method: string;
  readonly baseUrl: string;
  readonly ifMatch: string | undefined;
  #call: OutgoingContext | undefined;
  #given: URLSearchParams | undefined;
  declare readonly limits: GatewayLimits | undefined;

  constructor(readonly upload: Request) {
    this.params = upload.params;
    this.body = upload.body as unknown;
    this.project = upload.project;
    this.principal = upload.principal;
    this.session = upload.session;
    this.method = upload.method;
    this.baseUrl = upload.baseUrl;
    this.ifMatch = upload.headers['if-match'];
  }

  get query(): unknown {
    return this.upload.query;
  }
  get log() {
    return this.upload.log;
  }
  get call(): OutgoingContext {
    return (this.#call ??= callContext(this.upload));
  }
  get given(): URLSearchParams {
    return (this.#given ??= new URLSearchParams(this.upload.originalUrl.split('?')[1] ?? ''));
  }
  /** Read as a function of its own (handlers destructure it). */
  get rateLimitBudget(): HandlerInput['rateLimitBudget'] {
    const { limits, upload } = this;
    return (path) => (limits ? limits.budget(upload, path) : Promise.resolve(null));
  }
}

/** The input class of one route's operations: the route's dependencies and services on its prototype. */
function inputClass(deps: RouteDeps): new (request: Request) => HandlerInput {
  const { services, ...rest } = deps;
  class Input extends RequestInput {}
  Object.assign(Input.prototype, rest, { services: requiredServices(services) });
  // What the prototype adds is what HandlerInput names beside the request's parts.
  return Input as unknown as new (request: Request) => HandlerInput;
}

/** Writes a handler's answer (operation.ts Answer) as HTTP. */
export async function writeAnswer(
  request: Request,
  response: Response,
  answer: Answer,
  deps: Pick<RouteDeps, 'sessions'>,
): Promise<void> {
  if (answer.session) applySessionEffect(request, response, deps.sessions, answer.session);
  if (answer.location !== undefined) response.setHeader('Location', `${request.baseUrl}${answer.location}`);
  const link = answer.links && linkHeader(request.baseUrl, answer.links);
  if (link) response.setHeader('Link', link);
  for (const [name, value] of Object.entries(answer.headers ?? {})) response.setHeader(name, value);
  const status = answer.status ?? 200;
  if ('error' in answer) {
    const { error } = answer;
    if (error instanceof AppError) throw error;
    writeJson(response, error.status, { ok: false, error: { code: error.status, message: error.message } });
  } else if ('data' in answer) {
    if (answer.etag === undefined) sendData(response, answer.data, status);
    else sendTagged(request, response, answer.etag === true ? null : answer.etag, answer.data, status);
  } else if ('spliced' in answer) {
    sendSplicedData(response, answer.spliced, status);
  } else if ('stream' in answer) {
    const { key, items, options } = answer.stream;
    await sendDataStream(response, key, items, options);
  } else if ('file' in answer) {
    await sendFile(response, answer.file.file, answer.file.chunks, { headOnly: request.method === 'HEAD' });
  } else if ('document' in answer) {
    const { contentType, body, cacheControl } = answer.document;
    response.statusCode = status;
    response.setHeader('Content-Type', contentType);
    response.setHeader('Content-Length', Buffer.byteLength(body));
    response.setHeader('Cache-Control', cacheControl);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.end(body);
  } else {
    await writeSections(request, response, answer);
  }
}

/**
 * A sectioned document as a download: the download headers, then the lists as the client takes
 * them. A failure before anything went out still leaves as the error envelope (without the download
 * headers); after that it can only cut the download short, so that a document that parses is whole.
 */
async function writeSections(
  request: Request,
  response: Response,
  answer: Extract<Answer, { sections: unknown }>,
): Promise<void> {
  const { sections: document } = answer;
  // The headers that make the answer a download (an error envelope must not carry them).
  const downloadHeaders = ['Content-Disposition', ...Object.keys(answer.headers ?? {})];
  response.statusCode = answer.status ?? 200;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (answer.filename !== undefined)
    response.setHeader('Content-Disposition', contentDisposition(answer.filename));
  try {
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    if (!(await sendSections(response, document))) {
      request.log.info('the client left during the data export; its streams are cancelled');
    }
  } catch (error) {
    if (!response.headersSent) {
      for (const header of downloadHeaders) response.removeHeader(header);
      throw error;
    }
    request.log.error({ err: error }, 'data export failed after the response started; cutting it short');
    response.destroy();
  } finally {
    await document.close();
  }
}

/** The check of `operation.access` on `host`, if it needs one of its own. */
function accessCheck(operation: Operation, host: HostRole): RequestHandler | undefined {
  const { access } = operation;
  if (access === 'public' || 'session' in access) {
    // The session router itself loads the session and checks CSRF; the handler does the rest.
    if (host !== 'app') {
      throw new Error(`${operation.operationId}: session and public operations are served on the app host`);
    }
    return undefined;
  }
  return requireAccess(access, host);
}

/**
 * What the bad-input sweep (e2e/bad-input.e2e.test.ts) and the fuzz test (e2e/fuzz.e2e.test.ts)
 * share: the served OpenAPI document (GET {app}/api/openapi), a project with one of everything to aim
 * at, the rules every answer must keep, and a runner.
 *
 * The runner sends attempts with fetch, or byte for byte with node:http (exact headers and body,
 * optionally trickled a few bytes at a time and abandoned mid-body, or cut inside the request head
 * with node:net). After EVERY request it checks that the fleet is still alive: no process exit
 * recorded by the launcher since the round began (`fleet().crashes`, restarted ones included) and
 * GET {api}/healthz answering 200. When that fails it records one problem naming the request, the
 * answer it got and the other requests in flight around the crash, and sends nothing more in that
 * round: a crash is one failing test that names its request, not a cascade of refused connections.
 */
import http from 'node:http';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { createKey, createProject, createTicketType, createUser, type ProjectFixture } from './fixtures.js';
import { fleet } from './fleet.js';
import { signIn } from './session.js';

// ---- the document, loosely typed (only what the sweep and the fuzzer read) -----------------------

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema & { example?: unknown };
}

export interface Operation {
  operationId: string;
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { content: Record<string, { schema?: JsonSchema; example?: unknown }> };
  responses: Record<string, unknown>;
  servers?: { url: string }[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

export interface SweptOperation {
  method: string;
  /** `/tickets/{id}` */
  path: string;
  host: 'api' | 'app';
  operation: Operation;
}

/**
 * Every operation of the served document, on the API host when it is served there (the session
 * host serves the same declarations: one sweep covers their validation), else on the app host.
 */
export async function loadOperations(): Promise<SweptOperation[]> {
  const response = await fetch(`${fleet().appUrl}/api/openapi`);
  expect(response.status).to.equal(200);
  const document = (await response.json()) as OpenApiDocument;
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      host:
        operation.servers && !operation.servers.some((server) => server.url.startsWith('{api_url}'))
          ? ('app' as const)
          : ('api' as const),
      operation,
    })),
  );
}

export const parametersOf = (operation: Operation): Parameter[] =>
  (operation.parameters ?? []).filter((parameter): parameter is Parameter => !('$ref' in parameter));

/** The JSON types a schema admits (`anyOf` branches included); [] when it says nothing. */
export function typesOf(schema: JsonSchema): string[] {
  const own = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  return [...new Set([...own, ...(schema.anyOf ?? []).flatMap(typesOf)])];
}

export function jsonSchemaOf(entry: SweptOperation): JsonSchema | undefined {
  return entry.operation.requestBody?.content['application/json']?.schema;
}

// ---- the target: a project with one of everything ---------------------------------------------------

/** An id nothing in the test project has (non-GET requests must not change the fixtures). */
export const ABSENT_ID = '2147483000';
const EXAMPLE_UUID = '0b3f8a0e-6f5c-4a59-9a53-8d3f3a4f9c01';
/** A webhook target that refuses connections at once (the discard port). */
export const HOOK_URL = 'http://127.0.0.1:9/hook';
const SWEEP_PASSWORD = 'sweep password 1';

export interface SweepTarget {
  project: ProjectFixture;
  typeId: number;
  ticketId: number;
  commentId: number;
  attachmentId: number;
  webhookId: number;
  /** Bearer key (admin, scoped to the project) for the API host. */
  apiAuth: Record<string, string>;
  /** Session cookie and CSRF token of a signed-in admin, for the app host. */
  appAuth: Record<string, string>;
  authFor(entry: SweptOperation): Record<string, string>;
  /** The path with its parameters filled (overrides first, then a real or an absent id). */
  pathWith(entry: SweptOperation, overrides?: Record<string, string>): string;
  /** The documented example body, made valid for the test project. */
  baseBody(entry: SweptOperation): Record<string, unknown> | undefined;
  /**
   * Undoes what a sweep may change beyond its project: a valid kill body sent without a project
   * context throws the global kill switch, which would stop the assistant for every later suite.
   */
  restoreSharedState(): Promise<void>;
}

/** A fresh project with a ticket type, a ticket, a comment, an attachment, a webhook and both auths. */
export async function prepareTarget(): Promise<SweepTarget> {
  const project = await createProject();
  const type = await createTicketType(project.slug, { isDefault: true });
  const key = await createKey({
    project: project.slug,
    role: 'admin',
    scopes:
      'tickets:read,tickets:write,tickets:delete,comments:read,comments:write,customers:read,customers:write',
  });
  const apiAuth = { authorization: `Bearer ${key.key}` };
  const post = async (path: string, body: unknown) => {
    const created = await fetch(`${fleet().apiUrl}/v1${path}`, {
      method: 'POST',
      headers: { ...apiAuth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await created.text();
    expect(created.status, `${path}: ${text}`).to.equal(201);
    return (JSON.parse(text) as { data: Record<string, { id: number }> }).data;
  };
  const ticketId = (await post('/tickets', { ticket_type_id: type.id, title: 'Sweep target' })).ticket!.id;
  const commentId = (await post(`/tickets/${ticketId}/comments`, { content: 'A comment' })).comment!.id;
  const webhookId = (
    await post('/webhooks', { url: HOOK_URL, events: ['ticket.created'], project_id: project.id })
  ).webhook!.id;
  // Customers are fleet-wide: addresses of the sweep's own, so that repeated runs never collide.
  const customerId = (
    await post('/customers', { name: 'Sweep customer', emails: [`sweep-${project.slug}@example.com`] })
  ).customer!.id;
  const organizationId = (await post('/organizations', { name: `Sweep organization ${project.slug}` }))
    .organization!.id;
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('hello\n')], { type: 'text/plain' }), 'hello.txt');
  const uploaded = await fetch(`${fleet().apiUrl}/v1/tickets/${ticketId}/attachments`, {
    method: 'POST',
    headers: apiAuth,
    body: form,
  });
  expect(uploaded.status).to.equal(201);
  const attachmentId = ((await uploaded.json()) as { data: { attachment: { id: number } } }).data.attachment
    .id;

  // For the app host: an admin signed in (so every operation is reached past the sign-in gate), and
  // an anonymous session for signing in and out, which would otherwise replace or end the signed-in
  // one mid-sweep (every later app-host request then answered 401, unnoticed: a 401 is no 5xx).
  const admin = await createUser('admin', { password: SWEEP_PASSWORD });
  const appAuth = (await signIn(admin.email, SWEEP_PASSWORD)).headers();
  const csrf = await fetch(`${fleet().appUrl}/api/csrf-token`);
  const anonymousAuth = {
    cookie: (csrf.headers.get('set-cookie') ?? '').split(';')[0]!,
    'x-csrf-token': ((await csrf.json()) as { data: { token: string } }).data.token,
  };

  /** A real id for reads and edits (so the request reaches the services), an absent one otherwise. */
  const idFor = (entry: SweptOperation, name: string): string => {
    if (name === 'deliveryId') return EXAMPLE_UUID;
    if (name === 'asset') return 'swagger-ui.css';
    if (!['GET', 'POST', 'PUT', 'PATCH'].includes(entry.method)) return ABSENT_ID;
    if (['/merge', '/restore', '/redeliver'].some((end) => entry.path.endsWith(end))) return ABSENT_ID;
    const byResource: Record<string, number> = {
      tickets: ticketId,
      comments: commentId,
      attachments: attachmentId,
      webhooks: webhookId,
      customers: customerId,
      organizations: organizationId,
    };
    return String(byResource[entry.path.split('/')[1] ?? ''] ?? ABSENT_ID);
  };

  return {
    project,
    typeId: type.id,
    ticketId,
    commentId,
    attachmentId,
    webhookId,
    apiAuth,
    appAuth,
    authFor: (entry) =>
      entry.host === 'api'
        ? apiAuth
        : ['login', 'logout'].includes(entry.operation.operationId)
          ? anonymousAuth
          : appAuth,
    pathWith: (entry, overrides = {}) =>
      entry.path.replace(/\{([^}]+)\}/g, (_match, name: string) => overrides[name] ?? idFor(entry, name)),
    async restoreSharedState() {
      // A session of its own: the sweep's may have been replaced (its login examples sign in).
      const cleaner = await createUser('admin', { password: SWEEP_PASSWORD });
      const headers = (await signIn(cleaner.email, SWEEP_PASSWORD)).headers();
      for (const query of ['', `?project_id=${project.id}`]) {
        const cleared = await fetch(`${fleet().appUrl}/api/ai/autonomy/clear-kill${query}`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ reason: 'the sweep is over' }),
        });
        // 409: the switch was not on.
        expect([200, 409], `clear-kill${query}: ${await cleared.text()}`).to.include(cleared.status);
      }
    },
    baseBody(entry) {
      const example = entry.operation.requestBody?.content['application/json']?.example;
      if (typeof example !== 'object' || example === null) return undefined;
      const body = { ...(example as Record<string, unknown>) };
      for (const field of ['assigned_to', 'custom_fields', 'version', 'after_id', 'before_id'])
        delete body[field];
      if ('ticket_type_id' in body) body.ticket_type_id = type.id;
      if ('project_id' in body) body.project_id = project.id;
      if ('ticket_ids' in body) body.ticket_ids = [ticketId];
      if ('target_id' in body) body.target_id = ticketId;
      if ('url' in body) body.url = HOOK_URL;
      return body;
    },
  };
}

// ---- attempts and the rules for their answers --------------------------------------------------------

/** How a raw attempt travels (node:http, exact bytes). */
export interface RawDelivery {
  /** Bytes per write and the pause between writes; absent: the body in one write. */
  trickle?: { bytes: number; everyMs: number };
  /** Destroy the socket after this many body bytes: nobody waits for an answer. */
  abandonAfter?: number;
  /** Content-Length to declare (default: the body's length), or 'chunked' transfer encoding. */
  contentLength?: number | 'chunked';
  /** node:net: write this much of the request head (request line and headers), then destroy. */
  abandonHeadAfter?: number;
}

export interface Attempt {
  label: string;
  swept: SweptOperation;
  method: string;
  /** Path after the host prefix, already percent-encoded where needed. */
  path: string;
  query?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | FormData;
  /** Sent with node:http (or node:net) instead of fetch. */
  raw?: RawDelivery;
  /** Shown instead of the body in reports (bodies too big to quote). */
  summary?: string;
  /** The input is plainly invalid: the answer must be a 4xx. */
  invalid: boolean;
  /** The one status the answer must have, when the input is fine and the outcome known. */
  expectStatus?: number;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const REQUEST_TIMEOUT_MS = 15_000;

/** Printable, bounded: non-ASCII bytes of a Buffer body as \xNN. */
function quoteBody(body: string | Buffer): string {
  const text =
    typeof body === 'string'
      ? body
      : body
          .subarray(0, 400)
          .toString('latin1')
          .replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const shown = text.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
  return body.length > 160
    ? `${shown.slice(0, 160)}... (${body.length} ${typeof body === 'string' ? 'chars' : 'bytes'})`
    : shown;
}

export function describeAttempt(attempt: Attempt): string {
  const body =
    attempt.summary !== undefined
      ? ` body ${attempt.summary}`
      : typeof attempt.body === 'string' || Buffer.isBuffer(attempt.body)
        ? ` body ${quoteBody(attempt.body)}`
        : attempt.body
          ? ' (multipart)'
          : '';
  const query = attempt.query ? `?${attempt.query.slice(0, 120)}` : '';
  const raw = attempt.raw;
  const how = raw
    ? [
        raw.trickle ? `trickled ${raw.trickle.bytes} B every ${raw.trickle.everyMs} ms` : '',
        raw.contentLength !== undefined ? `Content-Length ${raw.contentLength}` : '',
        raw.abandonAfter !== undefined ? `abandoned after ${raw.abandonAfter} B of body` : '',
        raw.abandonHeadAfter !== undefined ? `abandoned after ${raw.abandonHeadAfter} B of head` : '',
      ]
        .filter(Boolean)
        .join(', ')
    : '';
  const type = attempt.headers?.['content-type'];
  return (
    `${attempt.method} ${attempt.swept.host === 'api' ? '/v1' : '/api'}${attempt.path.slice(0, 120)}${query}` +
    `${type ? ` (${type.slice(0, 80)})` : ''}${body} [${attempt.label}${how ? `; ${how}` : ''}]`
  );
}

/**
 * The rules for an answer: no 5xx, X-Correlation-ID, a status the document lists for the operation,
 * a 4xx for plainly invalid input, and errors in the spec's envelope as application/json.
 */
export function checkAnswer(attempt: Attempt, answer: Answer): string[] {
  const found: string[] = [];
  const complain = (what: string): void => {
    found.push(
      `${describeAttempt(attempt)}\n    -> ${answer.status} ${answer.text.slice(0, 300)}\n    ${what}`,
    );
  };
  if (answer.status >= 500) {
    complain('a 5xx for client input');
    return found;
  }
  if (!answer.headers.get('x-correlation-id')) complain('no X-Correlation-ID');
  if (!Object.hasOwn(attempt.swept.operation.responses, String(answer.status))) {
    complain(`status ${answer.status} is not documented for ${attempt.swept.operation.operationId}`);
  }
  if (attempt.invalid && (answer.status < 400 || answer.status >= 500))
    complain('invalid input was not refused');
  if (attempt.expectStatus !== undefined && answer.status !== attempt.expectStatus) {
    complain(`expected ${attempt.expectStatus}`);
  }
  if (answer.status >= 400) {
    let body: { ok?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
    try {
      body = JSON.parse(answer.text) as typeof body;
    } catch {
      complain('an error that is not JSON');
      return found;
    }
    if (body?.ok !== false || body.error?.code !== answer.status || typeof body.error.message !== 'string') {
      complain('an error outside the envelope');
    }
    if (!answer.headers.get('content-type')?.startsWith('application/json'))
      complain('error not application/json');
  }
  return found;
}

// ---- sending ---------------------------------------------------------------------------------------------

function urlOf(attempt: Attempt): URL {
  const base = attempt.swept.host === 'api' ? `${fleet().apiUrl}/v1` : `${fleet().appUrl}/api`;
  return new URL(`${base}${attempt.path}${attempt.query === undefined ? '' : `?${attempt.query}`}`);
}

async function sendWithFetch(attempt: Attempt, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(urlOf(attempt), {
    method: attempt.method,
    headers,
    body: attempt.body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function headersOf(incoming: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, one);
  }
  return headers;
}

/** node:http with exact bytes; resolves undefined for an abandoned attempt (nobody waits for its answer). */
function sendRaw(attempt: Attempt, headers: Record<string, string>): Promise<Answer | undefined> {
  const raw = attempt.raw ?? {};
  if (attempt.body instanceof FormData) throw new Error('a raw attempt sends bytes, not FormData');
  const body = Buffer.isBuffer(attempt.body) ? attempt.body : Buffer.from(attempt.body ?? '');
  const url = urlOf(attempt);
  if (raw.abandonHeadAfter !== undefined) return abandonInHead(attempt, url, headers, raw.abandonHeadAfter);
  const outgoing: http.OutgoingHttpHeaders = { ...headers };
  if (raw.contentLength === 'chunked') outgoing['transfer-encoding'] = 'chunked';
  else outgoing['content-length'] = String(raw.contentLength ?? body.length);
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: attempt.method, headers: outgoing, agent: false });
    let settled = false;
    const timer = setTimeout(
      () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)),
      REQUEST_TIMEOUT_MS,
    );
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
      request.destroy();
    };
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => settle(() => reject(error)));
      response.on('end', () => {
        if (raw.abandonAfter !== undefined) return; // answered early; the socket is abandoned all the same
        const text = Buffer.concat(chunks).toString('utf8');
        settle(() =>
          resolve({ status: response.statusCode ?? 0, headers: headersOf(response.headers), text }),
        );
      });
    });
    // An abandoned attempt waits for nothing: a reset on its way out is its expected end.
    request.on('error', (error) =>
      settle(() => (raw.abandonAfter === undefined ? reject(error) : resolve(undefined))),
    );
    void (async () => {
      const end = Math.min(raw.abandonAfter ?? body.length, body.length);
      const step = raw.trickle?.bytes ?? Math.max(1, end);
      for (let offset = 0; offset < end && !settled; offset += step) {
        if (offset > 0 && raw.trickle) await delay(raw.trickle.everyMs);
        if (!settled) request.write(body.subarray(offset, Math.min(end, offset + step)));
      }
      if (settled) return;
      if (raw.abandonAfter === undefined) {
        request.end();
        return;
      }
      await delay(raw.trickle?.everyMs ?? 20); // let the last bytes leave before the socket goes
      settle(() => resolve(undefined));
    })();
  });
}

/** node:net: the request line and part of the headers, a pause, then the socket destroyed. */
async function abandonInHead(
  attempt: Attempt,
  url: URL,
  headers: Record<string, string>,
  bytes: number,
): Promise<undefined> {
  const lines = [
    `${attempt.method} ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: 100000`,
    '',
    '',
  ];
  const head = Buffer.from(lines.join('\r\n'));
  const socket = net.connect(Number(url.port), url.hostname);
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const trickle = attempt.raw?.trickle;
  const step = trickle?.bytes ?? bytes;
  for (let offset = 0; offset < Math.min(bytes, head.length); offset += step) {
    socket.write(head.subarray(offset, Math.min(bytes, offset + step)));
    await delay(trickle?.everyMs ?? 20);
  }
  socket.destroy();
  return undefined;
}

// ---- the runner, with the fleet's liveness after every request ---------------------------------------------

/** How long a round waits for a (restarted) fleet to be ready before it starts. */
const READY_WAIT_MS = 45_000;
/** After an abandoned request, how long to wait for whatever the server does with it. */
const ABANDON_SETTLE_MS = 300;
/** How long a failed /healthz waits for the launcher to record the exit behind it. */
const EXIT_WAIT_MS = 1_000;
/** Requests that ended this long before a crash are still named as in flight with it. */
const SUSPECT_WINDOW_MS = 1_000;

interface Flight {
  attempt: Attempt;
  startedAt: number;
  endedAt?: number;
}

export class Sweep {
  /** Problems of the current round, each naming its request. */
  readonly problems: string[] = [];
  /** Requests sent over all rounds (liveness checks not counted). */
  sent = 0;
  /** How many answers had each status, over all rounds. */
  readonly statuses = new Map<number, number>();
  private halted = false;
  /** Set by end(): nothing more is sent, whatever a round still tries. */
  private ended = false;
  private readonly inFlight = new Set<Promise<string[]>>();
  private crashBaseline = 0;
  private roundStartedAt = 0;
  private flights: Flight[] = [];

  constructor(
    private readonly target: () => SweepTarget,
    private readonly concurrency = 8,
  ) {}

  /** True once the fleet was found down in this round, or the sweep ended: nothing more is sent. */
  get stopped(): boolean {
    return this.halted || this.ended;
  }

  /**
   * Ends the sweep however its test ended: no attempt is sent from now on (a round abandoned by a
   * timeout or by a failure keeps running in the background: fast-check's loops, runAll's workers),
   * and this resolves once the attempts in flight have answered. Call it in `after` before undoing
   * shared state (SweepTarget.restoreSharedState), so that no late request of the round (a global
   * kill switch thrown) lands after the undo, where the next suites would see it.
   */
  async end(): Promise<void> {
    this.ended = true;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Starts a round: problems cleared, the fleet ready (after a crash the launcher restarts the
   * process after its backoff) and its crash count taken as the baseline.
   */
  async begin(): Promise<void> {
    this.problems.length = 0;
    this.flights = [];
    this.halted = false;
    this.roundStartedAt = Date.now();
    const deadline = Date.now() + READY_WAIT_MS;
    let last = '';
    for (;;) {
      try {
        const response = await fetch(`${fleet().apiUrl}/readyz`, { signal: AbortSignal.timeout(5_000) });
        last = `${response.status} ${(await response.text()).slice(0, 200)}`;
        if (response.status === 200) break;
      } catch (error) {
        last = (error as Error).message;
      }
      if (Date.now() > deadline) {
        this.halted = true;
        this.problems.push(`the fleet was not ready within ${READY_WAIT_MS} ms before the round: ${last}`);
        break;
      }
      await delay(250);
    }
    this.crashBaseline = fleet().crashes.length;
  }

  /** Sends every attempt (a few at a time) until done or the fleet is found down. */
  async runAll(attempts: Attempt[]): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: this.concurrency }, async () => {
        while (next < attempts.length && !this.stopped) await this.attempt(attempts[next++]!);
      }),
    );
    if (this.halted && next < attempts.length) {
      this.problems.push(`stopped after ${next} of ${attempts.length} requests: the fleet was down`);
    }
  }

  /**
   * Sends one attempt, checks its answer and the fleet; returns (and records) this attempt's
   * problems. Sends nothing once stopped.
   */
  async attempt(attempt: Attempt): Promise<string[]> {
    if (this.stopped) return [];
    const sending = this.send(attempt);
    this.inFlight.add(sending);
    try {
      return await sending;
    } finally {
      this.inFlight.delete(sending);
    }
  }

  private async send(attempt: Attempt): Promise<string[]> {
    const flight: Flight = { attempt, startedAt: Date.now() };
    this.flights.push(flight);
    this.sent += 1;
    const headers = { ...this.target().authFor(attempt.swept), ...attempt.headers };
    let found: string[] = [];
    let failure: string | undefined;
    try {
      const answer = attempt.raw ? await sendRaw(attempt, headers) : await sendWithFetch(attempt, headers);
      if (answer) {
        this.statuses.set(answer.status, (this.statuses.get(answer.status) ?? 0) + 1);
        found = checkAnswer(attempt, answer);
      }
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      failure = `no answer: ${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
    } finally {
      flight.endedAt = Date.now();
    }
    if (attempt.raw?.abandonAfter !== undefined || attempt.raw?.abandonHeadAfter !== undefined) {
      await delay(ABANDON_SETTLE_MS);
    }
    const down = await this.fleetDown();
    if (down !== undefined) {
      if (this.halted) return []; // another request found it first and names this one as in flight
      this.halted = true;
      found = [this.describeDown(attempt, down, failure ?? found.join('\n    '))];
    } else if (failure !== undefined) {
      found.push(`${describeAttempt(attempt)}\n    -> ${failure}`);
    }
    this.problems.push(...found);
    return found;
  }

  /** Why the fleet is not alive (new crashes, /healthz), or undefined when it is. */
  private async fleetDown(): Promise<{ why: string; crashedAt?: number } | undefined> {
    let health: string | undefined;
    try {
      const response = await fetch(`${fleet().apiUrl}/healthz`, { signal: AbortSignal.timeout(5_000) });
      const text = await response.text();
      if (response.status !== 200) health = `GET /healthz answered ${response.status} ${text.slice(0, 120)}`;
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      health = `GET /healthz: ${(error as Error).message}${cause?.code ? ` (${cause.code})` : ''}`;
    }
    let crashes = fleet().crashes.slice(this.crashBaseline);
    if (crashes.length === 0 && health === undefined) return undefined;
    // A refused /healthz usually means an exit the launcher has not heard of yet: wait for it briefly.
    for (let waited = 0; crashes.length === 0 && waited < EXIT_WAIT_MS; waited += 50) {
      await delay(50);
      crashes = fleet().crashes.slice(this.crashBaseline);
    }
    const exits = crashes.map(
      (crash) =>
        `${crash.name} exited (code ${crash.code}, signal ${crash.signal}) ${crash.at - this.roundStartedAt} ms into the round`,
    );
    return { why: [...exits, ...(health ? [health] : [])].join('; '), crashedAt: crashes[0]?.at };
  }

  private describeDown(attempt: Attempt, down: { why: string; crashedAt?: number }, answer: string): string {
    const around = down.crashedAt ?? Date.now();
    const others = this.flights.filter(
      (flight) =>
        flight.attempt !== attempt &&
        flight.startedAt <= around &&
        (flight.endedAt === undefined || flight.endedAt >= around - SUSPECT_WINDOW_MS),
    );
    return [
      `THE FLEET WENT DOWN after ${describeAttempt(attempt)}`,
      `    -> ${answer || '(answered)'}`,
      `    ${down.why}`,
      `    other requests in flight around then (${others.length}):`,
      ...others.map((flight) => `      - ${describeAttempt(flight.attempt)}`),
    ].join('\n');
  }

  /** `201 x 12, 400 x 80, ...`: how the answers went, for the run's log. */
  statusSummary(): string {
    return [...this.statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status} x ${count}`)
      .join(', ');
  }

  /** Fails the test with every problem of the round. */
  assertClean(): void {
    expect(this.problems, this.problems.join('\n')).to.deep.equal([]);
  }
}

/** Raw JSON text spliced into a JSON-encoded value: `{"a":RAW}` with RAW kept as written. */
export function spliceRaw(value: Record<string, unknown>, field: string, raw: string): string {
  const marker = '__RAW_VALUE__';
  const [before, after] = JSON.stringify({ ...value, [field]: marker }).split(`"${marker}"`) as [
    string,
    string,
  ];
  // Concatenation keeps huge raw parts shared (no copy per attempt until the body is sent).
  return before + raw + after;
}

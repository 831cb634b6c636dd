/**
 * The console's one API client: openapi-fetch typed from the session host's OpenAPI document, and the
 * one place that reads the envelope (`{ ok, data }` / `{ ok: false, error: { code, message,
 * validation_errors } }`). Screens call `call(api.GET(...))`, which answers `data` or throws an ApiError.
 *
 * What happens here for every request, so that no screen repeats it:
 * - `X-CSRF-Token` on POST, PUT, PATCH and DELETE; a 403 `Invalid CSRF token` refreshes the token
 *   (GET /csrf-token) and retries the request once;
 * - `Idempotency-Key` on POST (a retry of the same request sends the same key);
 * - 401 (outside sign-in itself) signs the user out locally and opens sign-in, keeping the wanted route;
 * - 429 shows a toast for the `Retry-After` seconds.
 * What callers decide: 409 (isConflict: the ticket screen opens the conflict dialog), 422 (fieldErrors:
 * forms show them beside their fields), anything else (showError: a toast).
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../generated/api';
import { toast } from '../ui/toast';
import { onSignedOut } from './auth-events';

export const API_BASE = '/api';
export const INVALID_CSRF_MESSAGE = 'Invalid CSRF token';
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Where a 401 means "wrong credentials", not "signed out". */
const NO_SIGN_OUT_ON_401 = new Set([`${API_BASE}/auth/login`]);

/** A refusal or failure, as the envelope described it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** 422 (and 400 on queries): field -> messages. */
    readonly fieldErrors: Record<string, string[]> = {},
    /** Seconds to wait (429). */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfToken: string | null = null;

/** Remembers the session's CSRF token (from sign-in, /csrf-token or a response header). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Fetches the session's CSRF token (starting an anonymous session when there is none). */
export async function refreshCsrfToken(): Promise<string> {
  const response = await fetch(`${API_BASE}/csrf-token`, { credentials: 'same-origin' });
  const body = (await response.json()) as { data?: { token?: string } };
  const token = body.data?.token;
  if (!response.ok || !token) throw new ApiError(response.status, 'Could not start a session');
  csrfToken = token;
  return token;
}

/** The copies of write requests before they are sent, to retry them after a CSRF refresh. */
const retryable = new WeakMap<Request, Request>();

async function messageOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { error?: { message?: string } };
    return body.error?.message;
  } catch {
    return undefined;
  }
}

function retryAfterOf(response: Response): number | null {
  const value = Number(response.headers.get('Retry-After'));
  return Number.isFinite(value) && value > 0 ? Math.ceil(value) : null;
}

const envelopeMiddleware: Middleware = {
  async onRequest({ request }) {
    if (!WRITE_METHODS.has(request.method)) return request;
    csrfToken ??= await refreshCsrfToken();
    request.headers.set('X-CSRF-Token', csrfToken);
    if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) {
      request.headers.set('Idempotency-Key', crypto.randomUUID());
    }
    retryable.set(request, request.clone());
    return request;
  },
  async onResponse({ request, response }) {
    const token = response.headers.get('X-CSRF-Token');
    if (token) csrfToken = token;
    const path = new URL(request.url).pathname;
    if (response.status === 401 && !NO_SIGN_OUT_ON_401.has(path)) {
      onSignedOut();
      return response;
    }
    if (response.status === 403 && (await messageOf(response)) === INVALID_CSRF_MESSAGE) {
      const copy = retryable.get(request);
      if (!copy) return response;
      retryable.delete(request);
      copy.headers.set('X-CSRF-Token', await refreshCsrfToken());
      return fetch(copy);
    }
    if (response.status === 429) {
      const seconds = retryAfterOf(response) ?? 1;
      toast(`Too many requests: try again in ${seconds} s.`, { kind: 'error', durationMs: seconds * 1000 });
    }
    return response;
  },
};

/** The typed client of the session host (`/api`). */
export const api = createClient<paths>({ baseUrl: API_BASE, credentials: 'same-origin' });
api.use(envelopeMiddleware);

interface Answer<T> {
  data?: { data: T };
  error?: unknown;
  response: Response;
}

/** Awaits an openapi-fetch call and answers the envelope's `data`, or throws its error as an ApiError. */
export async function call<T>(pending: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok && data) return data.data;
  const envelope = (error ?? {}) as {
    error?: { message?: string; validation_errors?: Record<string, unknown> };
  };
  const fieldErrors: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(envelope.error?.validation_errors ?? {})) {
    fieldErrors[field] = Array.isArray(messages) ? messages.map(String) : [String(messages)];
  }
  throw new ApiError(
    response.status,
    envelope.error?.message ?? `The server answered ${response.status}`,
    fieldErrors,
    retryAfterOf(response),
  );
}

/** True when `error` is a 409 (a stale `version`, a reused key, a state that forbids the change). */
export function isConflict(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 409;
}

/** The field errors of a 422 (or 400 on a query), else null. */
export function fieldErrorsOf(error: unknown): Record<string, string[]> | null {
  if (!(error instanceof ApiError) || (error.status !== 422 && error.status !== 400)) return null;
  return Object.keys(error.fieldErrors).length > 0 ? error.fieldErrors : null;
}

/**
 * Shows a failure as a toast, except those already shown or acted on here (401: sign-in opens; 429:
 * its toast is up). Screens call it from their catch blocks for whatever they do not handle themselves.
 */
export function showError(error: unknown): void {
  if (error instanceof ApiError && (error.status === 401 || error.status === 429)) return;
  const message = error instanceof Error ? error.message : String(error);
  toast(message, { kind: 'error' });
}

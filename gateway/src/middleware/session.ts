/**
 * The browser session of an app-host request, read from the `tix_session` cookie (HttpOnly,
 * SameSite=Lax, Path=/, Secure in production). Sessions start on GET /api/csrf-token or at sign-in;
 * signing in replaces the session id (no fixation) and its CSRF token.
 */
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '@tix/kit';
import { isRole, ROLE_SCOPES, type Principal } from '@tix/protos';
import type { LoadedSession } from '../http/request-context.js';
import {
  isSessionId,
  newCsrfToken,
  newSessionId,
  type SessionData,
  type SessionStore,
} from '../sessions/session-store.js';

export const SESSION_COOKIE = 'tix_session';
export const NOT_SIGNED_IN_MESSAGE = 'Not signed in';

export interface SessionOptions {
  store: SessionStore;
  /** Adds `Secure` to the cookie (production: the app host is served over https). */
  secureCookie: boolean;
}

/** The session id in a Cookie header, if it holds a well-formed one. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const equals = part.indexOf('=');
    if (equals === -1 || part.slice(0, equals).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(equals + 1).trim();
    if (isSessionId(value)) return value;
  }
  return undefined;
}

/** The Set-Cookie value carrying session `id` (or clearing it when id is null). */
export function sessionCookie(id: string | null, secure: boolean): string {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (secure) attributes.push('Secure');
  if (id === null) attributes.push('Max-Age=0');
  return `${SESSION_COOKIE}=${id ?? ''}; ${attributes.join('; ')}`;
}

/** Loads the caller's session into request.session (null when none) and its principal, if signed in. */
export function loadSession(options: SessionOptions): RequestHandler {
  return async (request, _response, next) => {
    const id = readSessionCookie(request.headers.cookie);
    const data = id === undefined ? null : await options.store.load(id);
    request.session = id !== undefined && data !== null ? { id, data } : null;
    if (request.session?.data.user) request.principal = sessionPrincipal(request.session.data.user);
    next();
  };
}

/**
 * The session host's gate: 401 `Not signed in` for every request but those `isOpen` lets through
 * (signing in, the CSRF token, the API description), unknown paths included, so an anonymous caller
 * learns nothing about routes.
 */
export function requireSignedIn(isOpen: (request: Request) => boolean): RequestHandler {
  return (request, _response, next) => {
    if (!request.principal && !isOpen(request)) throw AppError.unauthenticated(NOT_SIGNED_IN_MESSAGE);
    next();
  };
}

/** The principal of a signed-in browser: its user's role and the scopes that role allows. */
export function sessionPrincipal(user: NonNullable<SessionData['user']>): Principal {
  return { kind: 'session', user_id: user.id, role: user.role, scopes: [...ROLE_SCOPES[user.role]] };
}

/** Starts a new session (new id, new CSRF token), stores it and sets the cookie. */
export async function startSession(
  request: Request,
  response: Response,
  options: SessionOptions,
  user?: SessionData['user'],
): Promise<LoadedSession> {
  const session: LoadedSession = {
    id: newSessionId(),
    data: { csrfToken: newCsrfToken(), createdAt: new Date().toISOString(), ...(user ? { user } : {}) },
  };
  await options.store.save(session.id, session.data);
  response.append('Set-Cookie', sessionCookie(session.id, options.secureCookie));
  request.session = session;
  return session;
}

/**
 * Starts a signed-in session for `user` (new id and CSRF token, the token also in `X-CSRF-Token`):
 * at sign-in, and to renew the session that changed its password.
 */
export async function startSignedInSession(
  request: Request,
  response: Response,
  options: SessionOptions,
  user: { id: number; role: string },
): Promise<LoadedSession> {
  if (!isRole(user.role)) throw AppError.internal(`lookup returned an unknown role for user ${user.id}`);
  const session = await startSession(request, response, options, { id: user.id, role: user.role });
  response.setHeader('X-CSRF-Token', session.data.csrfToken);
  return session;
}

/** Ends the request's session (if any) and clears the cookie. */
export async function endSession(
  request: Request,
  response: Response,
  options: SessionOptions,
): Promise<void> {
  if (request.session) await options.store.destroy(request.session.id);
  request.session = null;
  request.principal = undefined;
  response.append('Set-Cookie', sessionCookie(null, options.secureCookie));
}

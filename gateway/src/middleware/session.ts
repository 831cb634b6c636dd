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

/** A new session (new id, new CSRF token), stored; the answer that carries it sets its cookie. */
export async function newSession(
  options: SessionOptions,
  user?: SessionData['user'],
): Promise<LoadedSession> {
  const session: LoadedSession = {
    id: newSessionId(),
    data: { csrfToken: newCsrfToken(), createdAt: new Date().toISOString(), ...(user ? { user } : {}) },
  };
  await options.store.save(session.id, session.data);
  return session;
}

/**
 * A new signed-in session for `user` (new id and CSRF token): at sign-in, and to renew the session
 * that changed its password.
 */
export function newSignedInSession(
  options: SessionOptions,
  user: { id: number; role: string },
): Promise<LoadedSession> {
  if (!isRole(user.role)) throw AppError.internal(`lookup returned an unknown role for user ${user.id}`);
  return newSession(options, { id: user.id, role: user.role });
}

/** Ends the request's session (if any) in the store; the answer that says so clears the cookie. */
export async function endSession(
  session: LoadedSession | null | undefined,
  options: SessionOptions,
): Promise<void> {
  if (session) await options.store.destroy(session.id);
}

/**
 * Writes a session effect of an answer (routes/operation.ts AnswerEffects): a started session sets
 * its cookie and its CSRF token in `X-CSRF-Token`; an ended one clears the cookie and the caller.
 */
export function applySessionEffect(
  request: Request,
  response: Response,
  options: SessionOptions,
  effect: { start: LoadedSession } | 'end',
): void {
  if (effect === 'end') {
    request.session = null;
    request.principal = undefined;
    response.append('Set-Cookie', sessionCookie(null, options.secureCookie));
    return;
  }
  response.append('Set-Cookie', sessionCookie(effect.start.id, options.secureCookie));
  response.setHeader('X-CSRF-Token', effect.start.data.csrfToken);
  request.session = effect.start;
}

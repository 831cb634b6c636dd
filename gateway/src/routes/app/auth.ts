/**
 * Browser sign-in on the app host. POST /api/auth/login checks email and password with lookup, then
 * replaces the session (new id and CSRF token: no fixation) and returns `{ user, csrf_token }`.
 * POST /api/auth/logout ends the session. GET /api/auth/me returns the signed-in user (401 otherwise),
 * re-read from lookup so a deactivated user is signed out.
 */
import type { Router } from 'express';
import { z } from 'zod';
import { AppError } from '@tix/kit';
import { isRole } from '@tix/protos';
import { sendData } from '../../http/envelope.js';
import { callContext } from '../../http/request-context.js';
import { defineRoute } from '../../http/routing.js';
import { parseBody } from '../../http/validate.js';
import { endSession, startSession, type SessionOptions } from '../../middleware/session.js';
import { presentUser } from '@tix/protos';
import { requireService, type ServiceClients } from '../../services.js';

export const INVALID_CREDENTIALS_MESSAGE = 'Invalid email or password';
export const NOT_SIGNED_IN_MESSAGE = 'Not signed in';

/** The login body (exported for the OpenAPI description). */
export const LoginBody = z.object(
  {
    email: z
      .string({ error: 'Email is required' })
      .trim()
      .min(1, 'Email is required')
      .max(254, 'Email is too long'),
    password: z
      .string({ error: 'Password is required' })
      .min(1, 'Password is required')
      .max(1024, 'Password is too long'),
  },
  { error: 'Expected a JSON object' },
);

/** The login body, or 422 naming each bad field. */
export function parseLoginBody(body: unknown): z.infer<typeof LoginBody> {
  return parseBody(LoginBody, body ?? {});
}

/** Registers /auth/login, /auth/logout and /auth/me on the session router. */
export function authRoutes(
  router: Router,
  deps: { services: ServiceClients; sessions: SessionOptions },
): void {
  defineRoute(router, '/auth/login', {
    post: [
      async (request, response) => {
        const credentials = parseLoginBody(request.body);
        const lookup = requireService(deps.services, 'lookup');
        const user = await lookup.AuthenticatePassword(credentials, callContext(request)).catch((error) => {
          if (error instanceof AppError && error.kind === 'unauthenticated') {
            throw AppError.unauthenticated(INVALID_CREDENTIALS_MESSAGE);
          }
          throw error;
        });
        if (!isRole(user.role))
          throw AppError.internal(`lookup returned an unknown role for user ${user.id}`);
        if (request.session) await deps.sessions.store.destroy(request.session.id);
        const session = await startSession(request, response, deps.sessions, {
          id: user.id,
          role: user.role,
        });
        response.setHeader('X-CSRF-Token', session.data.csrfToken);
        sendData(response, { user: presentUser(user), csrf_token: session.data.csrfToken });
      },
    ],
  });

  defineRoute(router, '/auth/logout', {
    post: [
      async (request, response) => {
        await endSession(request, response, deps.sessions);
        sendData(response, { message: 'Signed out' });
      },
    ],
  });

  defineRoute(router, '/auth/me', {
    get: [
      async (request, response) => {
        const session = request.session;
        if (!session?.data.user) throw AppError.unauthenticated(NOT_SIGNED_IN_MESSAGE);
        const { users } = await requireService(deps.services, 'lookup').GetUsers(
          { ids: [session.data.user.id] },
          callContext(request),
        );
        const user = users[0];
        if (!user || !user.is_active || !isRole(user.role)) {
          await endSession(request, response, deps.sessions);
          throw AppError.unauthenticated(NOT_SIGNED_IN_MESSAGE);
        }
        if (user.role !== session.data.user.role) {
          session.data.user = { id: user.id, role: user.role };
          await deps.sessions.store.save(session.id, session.data);
        }
        sendData(response, { user: presentUser(user) });
      },
    ],
  });
}

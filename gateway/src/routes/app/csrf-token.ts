/**
 * GET /api/csrf-token: the CSRF token of the caller's session, starting a session (and setting the
 * cookie) when there is none. The token is also sent in the X-CSRF-Token header.
 */
import type { Router } from 'express';
import { sendData } from '../../http/envelope.js';
import { defineRoute } from '../../http/routing.js';
import { startSession, type SessionOptions } from '../../middleware/session.js';

/** Registers /csrf-token on the session router. */
export function csrfTokenRoutes(router: Router, sessions: SessionOptions): void {
  defineRoute(router, '/csrf-token', {
    get: [
      async (request, response) => {
        const session = request.session ?? (await startSession(request, response, sessions));
        response.setHeader('X-CSRF-Token', session.data.csrfToken);
        response.setHeader('Cache-Control', 'no-store');
        sendData(response, { token: session.data.csrfToken });
      },
    ],
  });
}

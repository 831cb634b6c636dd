/**
 * Browser sessions on the app host:
 *   GET  /api/csrf-token   the session's CSRF token (also in X-CSRF-Token), starting a session when
 *                          there is none;
 *   POST /api/auth/login   checks email and password with lookup, then replaces the session (new id
 *                          and CSRF token: no fixation) and returns `{ user, csrf_token }`;
 *   POST /api/auth/logout  ends the session;
 *   GET  /api/auth/me      the signed-in user (401 otherwise), re-read from lookup so that a
 *                          deactivated user is signed out and a changed role is refreshed.
 */
import { z } from 'zod';
import { AppError } from '@tix/kit';
import { isRole, presentUser, USER_LIMITS } from '@tix/protos';
import {
  endSession,
  newSession,
  newSignedInSession,
  NOT_SIGNED_IN_MESSAGE,
} from '../../middleware/session.js';
import { userSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { allowedSessionOperations } from '../../middleware/require-access.js';
import { json, message } from '../../resources/responses.js';
import { z as zod } from '../../resources/zod-openapi.js';
import { operationGroup, type Operation } from '../operation.js';

export const INVALID_CREDENTIALS_MESSAGE = 'Invalid email or password';

export const LoginBody = z.object(
  {
    email: z
      .string({ error: 'Email is required' })
      .trim()
      .min(1, 'Email is required')
      .max(USER_LIMITS.email, 'Email is too long'),
    password: z
      .string({ error: 'Password is required' })
      .min(1, 'Password is required')
      .max(USER_LIMITS.passwordMax, 'Password is too long'),
  },
  { error: 'Expected a JSON object' },
);

const sessionOperation = operationGroup({ hosts: ['app'], project: 'none', tag: 'Session' });

export const SESSION_OPERATIONS: Operation[] = [
  sessionOperation({
    method: 'get',
    path: '/csrf-token',
    access: { session: 'optional' },
    operationId: 'getCsrfToken',
    summary: 'Get the CSRF token of the session (starting one)',
    success: json(
      200,
      'The token (also in the `X-CSRF-Token` header).',
      zod.object({ token: zod.string() }),
      { token: EXAMPLES.csrfToken },
    ),
    errors: [],
    async handle({ session, sessions }) {
      const started = session ? undefined : await newSession(sessions);
      const { csrfToken } = (session ?? started)!.data;
      return {
        data: { token: csrfToken },
        headers: { 'X-CSRF-Token': csrfToken, 'Cache-Control': 'no-store' },
        ...(started ? { session: { start: started } } : {}),
      };
    },
  }),

  sessionOperation({
    method: 'post',
    path: '/auth/login',
    access: { session: 'optional' },
    request: { body: LoginBody },
    bodyExample: { email: 'ada@example.com', password: 'correct horse battery staple' },
    operationId: 'login',
    summary: 'Sign in with email and password',
    success: json(
      200,
      'The signed-in user, the new CSRF token, and what the user may call (as GET /auth/me answers it).',
      zod.object({ user: userSchema, csrf_token: zod.string(), allowed_operations: zod.array(zod.string()) }),
      {
        user: EXAMPLES.user,
        csrf_token: EXAMPLES.csrfToken,
        allowed_operations: ['createTicket', 'getSignedInUser', 'listTickets'],
      },
    ),
    errors: [400, 401, 422],
    async handle({ body: credentials, call, services, session: current, sessions, operations = [] }) {
      const user = await services.lookup.AuthenticatePassword(credentials, call).catch((error) => {
        if (error instanceof AppError && error.kind === 'unauthenticated') {
          throw AppError.unauthenticated(INVALID_CREDENTIALS_MESSAGE);
        }
        throw error;
      });
      await endSession(current, sessions);
      const session = await newSignedInSession(sessions, user);
      return {
        data: {
          user: presentUser(user),
          csrf_token: session.data.csrfToken,
          allowed_operations: isRole(user.role) ? allowedSessionOperations(operations, user.role) : [],
        },
        session: { start: session },
      };
    },
  }),

  sessionOperation({
    method: 'post',
    path: '/auth/logout',
    access: { session: 'optional' },
    operationId: 'logout',
    summary: 'Sign out',
    success: json(200, 'Confirmation; the session cookie is cleared.', message, { message: 'Signed out' }),
    errors: [],
    async handle({ session, sessions }) {
      await endSession(session, sessions);
      return { data: { message: 'Signed out' }, session: 'end' };
    },
  }),

  sessionOperation({
    method: 'get',
    path: '/auth/me',
    access: { session: 'signed_in' },
    operationId: 'getSignedInUser',
    summary: 'The signed-in user, and what they may do',
    success: json(
      200,
      'The user and their operations.',
      zod.object({
        user: userSchema,
        allowed_operations: zod
          .array(zod.string())
          .meta({ description: 'operationIds this user may call on the session host, sorted.' }),
      }),
      { user: EXAMPLES.user, allowed_operations: ['createTicket', 'getSignedInUser', 'listTickets'] },
    ),
    errors: [],
    async handle({ call, services, session, sessions, operations = [] }) {
      if (!session?.data.user) throw AppError.unauthenticated(NOT_SIGNED_IN_MESSAGE);
      const { users } = await services.lookup.GetUsers({ ids: [session.data.user.id] }, call);
      const user = users[0];
      if (!user || !user.is_active || !isRole(user.role)) {
        await endSession(session, sessions);
        return { error: AppError.unauthenticated(NOT_SIGNED_IN_MESSAGE), session: 'end' };
      }
      if (user.role !== session.data.user.role) {
        session.data.user = { id: user.id, role: user.role };
        await sessions.store.save(session.id, session.data);
      }
      return {
        data: {
          user: presentUser(user),
          allowed_operations: allowedSessionOperations(operations, user.role),
        },
      };
    },
  }),
];

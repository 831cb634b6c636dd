/**
 * Account settings and user administration on the session host:
 *   PATCH /api/me              the signed-in user changes their own name;
 *   PUT   /api/me/password     ... their own password (the current one required); every other
 *                              session of theirs ends, and this one is renewed (new id and token);
 *   POST  /api/users           an admin creates a user;
 *   PATCH /api/users/{id}      an admin changes a user's name, role, active flag or password; a
 *                              role, active or password change ends the user's sessions and
 *                              forgets their cached API keys on this gateway at once (the other
 *                              gateways on the user.updated event).
 * The lookup service holds the rules (lengths, the last active admin, who may change what) and
 * checks the caller again.
 */
import { z } from 'zod';
import { AppError } from '@tix/kit';
import { isRole, presentUser, ROLES, USER_LIMITS } from '@tix/protos';
import { forgetUser } from '../../auth/forget-user.js';
import { givenFields } from '../../http/validate.js';
import { idParam, passwordField, requiredTextField, textField } from '../../http/schema-fields.js';
import { newSignedInSession } from '../../middleware/session.js';
import { userSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { json, single } from '../../resources/responses.js';
import { z as zod } from '../../resources/zod-openapi.js';
import { operationGroup, type Operation } from '../operation.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';

export const INVALID_USER_ID_MESSAGE = 'Invalid user id';

const nameField = requiredTextField('Name', {
  max: USER_LIMITS.name,
  description: 'Display name.',
  example: 'Ada',
});
const roleField = z
  .enum(ROLES, { error: `Role must be one of ${ROLES.join(', ')}` })
  .meta({ description: 'admin, team_lead, agent or viewer.', example: 'agent' });

const updateMeBody = z.object({ name: nameField }, { error: BODY_NOT_OBJECT_MESSAGE });

const changePasswordBody = z.object(
  { current_password: passwordField('Current password'), new_password: passwordField('New password') },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const createUserBody = z.object(
  {
    name: nameField,
    email: textField('Email', {
      max: USER_LIMITS.email,
      description: 'Unique; stored lower-cased.',
      example: 'ada@example.com',
    }),
    role: roleField,
    password: passwordField('Password').optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const updateUserBody = z.object(
  {
    name: nameField.optional(),
    role: roleField.optional(),
    is_active: z
      .boolean({ error: 'is_active must be true or false' })
      .optional()
      .meta({ description: 'false deactivates: sessions and API keys stop working at once.' }),
    password: passwordField('Password').optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

export const userIdParams = z.object({
  id: idParam({ message: INVALID_USER_ID_MESSAGE, description: 'User id.', example: 3 }),
});

/** The User of a lookup answer, refusing a role this gateway does not know. */
function userOf(user: Parameters<typeof presentUser>[0]) {
  if (!isRole(user.role)) throw AppError.internal(`lookup returned an unknown role for user ${user.id}`);
  return presentUser(user);
}

const accountOperation = operationGroup({ hosts: ['app'], project: 'none', tag: 'Account' });

export const ACCOUNT_OPERATIONS: Operation[] = [
  accountOperation({
    method: 'patch',
    path: '/me',
    access: { scope: null, role: 'viewer' },
    request: { body: updateMeBody },
    bodyExample: { name: 'Ada Lovelace' },
    operationId: 'updateMe',
    summary: 'Change your name',
    success: single(200, 'You, changed.', 'user', userSchema, EXAMPLES.user),
    errors: [422],
    async handle({ body, services, principal, call }) {
      const user = await services.lookup.UpdateUser({ id: principal.user_id, name: body.name }, call);
      return { data: { user: userOf(user) } };
    },
  }),

  accountOperation({
    method: 'put',
    path: '/me/password',
    access: { scope: null, role: 'viewer' },
    request: { body: changePasswordBody },
    bodyExample: { current_password: 'correct horse battery staple', new_password: 'a longer passphrase 2' },
    operationId: 'changeMyPassword',
    summary: 'Change your password',
    success: json(
      200,
      'You, and the renewed CSRF token.',
      zod.object({ user: userSchema, csrf_token: zod.string() }),
      {
        user: EXAMPLES.user,
        csrf_token: EXAMPLES.csrfToken,
      },
    ),
    errors: [422],
    async handle({ body, call, services, sessions }) {
      const user = await services.lookup.ChangePassword(
        { current_password: body.current_password, new_password: body.new_password },
        call,
      );
      await sessions.store.destroyUserSessions(user.id, new Date());
      const session = await newSignedInSession(sessions, user);
      return {
        data: { user: presentUser(user), csrf_token: session.data.csrfToken },
        session: { start: session },
      };
    },
  }),

  accountOperation({
    method: 'post',
    path: '/users',
    access: { scope: null, role: 'admin' },
    request: { body: createUserBody },
    bodyExample: {
      name: 'Ada',
      email: 'ada@example.com',
      role: 'agent',
      password: 'correct horse battery staple',
    },
    operationId: 'createUser',
    summary: 'Create a user (admin)',
    success: single(201, 'The user.', 'user', userSchema, EXAMPLES.user),
    errors: [422],
    async handle({ body, services, call }) {
      const user = await services.lookup.CreateUser(
        {
          name: body.name,
          email: body.email,
          role: body.role,
          ...givenFields(body, 'password'),
        },
        call,
      );
      return { data: { user: userOf(user) }, status: 201, location: `/users/${user.id}` };
    },
  }),

  accountOperation({
    method: 'patch',
    path: '/users/:id',
    access: { scope: null, role: 'admin' },
    request: { params: userIdParams, body: updateUserBody },
    bodyExample: { role: 'team_lead', is_active: true },
    operationId: 'updateUser',
    summary: "Change a user's name, role, active flag or password (admin)",
    success: single(200, 'The user.', 'user', userSchema, EXAMPLES.user),
    errors: [400, 404, 422],
    async handle({ params, body, call, services, sessions, apiKeys }) {
      const lookup = services.lookup;
      // Read first, so that only a real change ends sessions here (a name change, or the role the
      // user already has, keeps them); lookup's user.updated says the same to the other gateways.
      const [before] = (await lookup.GetUsers({ ids: [params.id] }, call)).users;
      const user = await lookup.UpdateUser(
        {
          id: params.id,
          ...givenFields(body, 'name', 'role', 'is_active', 'password'),
        },
        call,
      );
      const endsSessions =
        body.password !== undefined || before?.role !== user.role || before?.is_active !== user.is_active;
      if (endsSessions) {
        await forgetUser({ apiKeys, sessions: sessions.store }, user.id, new Date());
      }
      return { data: { user: userOf(user) } };
    },
  }),
];

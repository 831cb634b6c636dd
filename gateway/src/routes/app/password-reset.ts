/**
 * Password reset on the session host (open without sign-in; CSRF token needed, as for sign-in):
 *   POST /api/auth/forgot-password      `{ email }` -> always 202 with the same body, answered
 *                                       before lookup is even asked, so neither the answer nor its
 *                                       timing tells whether the address has an account; the link
 *                                       is issued and mailed in the background (failures logged
 *                                       with the correlation id, never shown);
 *   POST /api/auth/reset-password       `{ token, new_password }` -> sets the password and ends
 *                                       every session of that user at once on this gateway (the
 *                                       other gateways on user.updated);
 *   POST /api/users/{id}/password-reset an admin has a link mailed to a user (also how a user created
 *                                       without a password gets one); the link itself is answered
 *                                       when no SMTP relay is configured (nothing would deliver it).
 * Lookup holds the token rules (lifetime, single use, the password rules).
 */
import { z } from 'zod';
import { AppError } from '@tix/kit';
import { USER_LIMITS } from '@tix/protos';
import { forgetUser } from '../../auth/forget-user.js';
import { idParam, passwordField, requiredTextField, textField } from '../../http/schema-fields.js';
import type { IssuedPasswordReset } from '../../mail/password-reset-mail.js';
import { json, message } from '../../resources/responses.js';
import { z as zod } from '../../resources/zod-openapi.js';
import { defineOperation, operationGroup, type Operation } from '../operation.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';
import { INVALID_USER_ID_MESSAGE } from './account.js';

export const FORGOT_PASSWORD_MESSAGE =
  'If that address belongs to an active account, a reset link is on its way';
export const PASSWORD_RESET_MESSAGE = 'Your password has been reset. Sign in with your new password.';
export const RESET_LINK_NOT_MAILED_MESSAGE = 'The reset link could not be mailed; try again later';
/** A token is 43 characters; anything much longer is not one of ours. */
const TOKEN_MAX = 200;

const forgotPasswordBody = z.object(
  {
    email: requiredTextField('Email', {
      max: USER_LIMITS.email,
      description: 'The address of the account.',
      example: 'ada@example.com',
    }),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const resetPasswordBody = z.object(
  {
    token: textField('Token', { max: TOKEN_MAX, description: 'The `token` of the reset link.' }),
    new_password: passwordField('New password'),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const userIdParams = z.object({
  id: idParam({ message: INVALID_USER_ID_MESSAGE, description: 'User id.', example: 3 }),
});

/** A lookup answer that issued a token, as the mailer takes it. */
function issuedReset(answer: {
  token?: string;
  expires_at?: string;
  user?: { name: string; email: string } | null;
}): IssuedPasswordReset {
  if (answer.token === undefined || answer.expires_at === undefined || !answer.user)
    throw AppError.internal('lookup issued a password reset without its token, expiry or user');
  return {
    token: answer.token,
    expiresAt: new Date(answer.expires_at),
    user: { name: answer.user.name, email: answer.user.email },
  };
}

const sessionOperation = operationGroup({ hosts: ['app'], project: 'none', tag: 'Session' });

export const PASSWORD_RESET_OPERATIONS: Operation[] = [
  sessionOperation({
    method: 'post',
    path: '/auth/forgot-password',
    access: { session: 'optional' },
    request: { body: forgotPasswordBody },
    bodyExample: { email: 'ada@example.com' },
    operationId: 'forgotPassword',
    summary: 'Ask for a password reset link by email',
    success: json(202, 'Accepted.', message, { message: FORGOT_PASSWORD_MESSAGE }),
    errors: [400, 422],
    handle({ body, services, passwordResetMail, call, log }) {
      // In the background: nothing the lookup or the mail relay does can show in the answer.
      passwordResetMail.inBackground(async () => {
        const answer = await services.lookup.IssuePasswordReset({ email: body.email }, call);
        if (!answer.issued) return;
        await passwordResetMail.send(issuedReset(answer), { issuedByAdmin: false, log });
      }, log);
      return { data: { message: FORGOT_PASSWORD_MESSAGE }, status: 202 };
    },
  }),

  sessionOperation({
    method: 'post',
    path: '/auth/reset-password',
    access: { session: 'optional' },
    request: { body: resetPasswordBody },
    bodyExample: { token: 'q1Xv0b3Hk9PzR5tL8mW2yC4nF6jD0sA7gE1uI3oK5hM', new_password: 'a new passphrase 3' },
    operationId: 'resetPassword',
    summary: 'Set a new password with a reset link',
    success: json(200, 'Done: sign in with the new password.', message, { message: PASSWORD_RESET_MESSAGE }),
    errors: [400, 422],
    async handle({ body, call, services, log, sessions, apiKeys }) {
      const user = await services.lookup.ResetPassword(
        { token: body.token, new_password: body.new_password },
        call,
      );
      await forgetUser({ apiKeys, sessions: sessions.store }, user.id, new Date());
      log.info({ user_id: user.id }, 'password reset with a link');
      return { data: { message: PASSWORD_RESET_MESSAGE } };
    },
  }),

  defineOperation({
    method: 'post',
    path: '/users/:id/password-reset',
    hosts: ['app'],
    access: { scope: null, role: 'admin' },
    project: 'none',
    request: { params: userIdParams },
    operationId: 'issuePasswordReset',
    tag: 'Account',
    summary: 'Mail a user a password reset link (admin)',
    success: json(
      202,
      'Issued (and mailed, when a relay is configured).',
      zod.object({
        message: zod.string(),
        expires_at: zod.string().meta({ description: 'When the link stops working (ISO 8601).' }),
        link: zod
          .string()
          .optional()
          .meta({ description: 'The link itself, only when no SMTP relay is configured.' }),
      }),
      {
        message: 'A password reset link was mailed to ada@example.com',
        expires_at: '2026-05-01T12:30:00.000Z',
      },
    ),
    errors: [400, 404, 422, 503],
    async handle({ params, services, passwordResetMail, principal, call, log }) {
      const reset = issuedReset(await services.lookup.IssuePasswordReset({ user_id: params.id }, call));
      const link = await passwordResetMail
        .send(reset, { issuedByAdmin: true, log })
        .catch((error: unknown) => {
          log.error({ err: error, user_id: params.id }, 'password reset: mailing failed');
          throw AppError.unavailable(RESET_LINK_NOT_MAILED_MESSAGE);
        });
      log.info(
        { user_id: params.id, issued_by: principal.user_id },
        'password reset link issued by an admin',
      );
      const mailed = passwordResetMail.transport === 'smtp';
      return {
        data: {
          message: mailed
            ? `A password reset link was mailed to ${reset.user.email}`
            : 'No mail relay is configured (SMTP_URL): give the user this link yourself',
          expires_at: reset.expiresAt.toISOString(),
          ...(mailed ? {} : { link }),
        },
        status: 202,
      };
    },
  }),
];

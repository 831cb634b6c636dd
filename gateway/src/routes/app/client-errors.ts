/**
 * POST /api/client-errors: the browser's error reports (the spec's limit row: 30 per 60 s). Anyone
 * with a session may report, signed in or not (the sign-in page fails too), with the CSRF token like
 * every POST of the session host. A report is logged with the request's correlation id and counted
 * in `tix_client_errors_total`; it is never echoed back, stored or sent anywhere else, and its
 * fields are bounded so that a report cannot flood the logs.
 */
import { z } from 'zod';
import { defineCounter } from '@tix/kit';
import { textField } from '../../http/schema-fields.js';
import { json, message } from '../../resources/responses.js';
import { defineOperation, type Operation } from '../operation.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';

export const CLIENT_ERROR_LIMITS = { message: 2_000, stack: 16_000, url: 2_000, release: 100 } as const;
export const CLIENT_ERROR_RECORDED = 'Recorded';

const clientErrors = defineCounter({
  name: 'tix_client_errors_total',
  help: 'Error reports received from browsers (POST /api/client-errors), by whether a user was signed in.',
  labelNames: ['signed_in'],
});

const clientErrorBody = z.object(
  {
    message: textField('Message', {
      max: CLIENT_ERROR_LIMITS.message,
      description: 'The error message.',
    }).min(1, 'Message is required'),
    stack: textField('Stack', {
      max: CLIENT_ERROR_LIMITS.stack,
      description: 'The stack trace, if any.',
    }).optional(),
    url: textField('URL', {
      max: CLIENT_ERROR_LIMITS.url,
      description: 'The page the error happened on.',
    }).optional(),
    release: textField('Release', {
      max: CLIENT_ERROR_LIMITS.release,
      description: 'The UI build.',
    }).optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

export const CLIENT_ERROR_OPERATIONS: Operation[] = [
  defineOperation({
    method: 'post',
    path: '/client-errors',
    hosts: ['app'],
    access: { session: 'optional' },
    project: 'none',
    request: { body: clientErrorBody },
    bodyExample: {
      message: "TypeError: Cannot read properties of undefined (reading 'lanes')",
      stack: 'TypeError: ...\n    at Board (board.js:41:17)',
      url: '/board?project=support',
      release: '2026.11.25-5c024eb',
    },
    operationId: 'reportClientError',
    tag: 'Session',
    summary: "Report a browser error (logged with the request's correlation id)",
    success: json(202, 'Recorded.', message, { message: CLIENT_ERROR_RECORDED }),
    errors: [422],
    handle({ body, session, log }) {
      const userId = session?.data.user?.id;
      clientErrors.inc({ signed_in: userId === undefined ? 'false' : 'true' });
      log.warn(
        { client_error: body, ...(userId === undefined ? {} : { user_id: userId }) },
        'browser reported an error',
      );
      return { data: { message: CLIENT_ERROR_RECORDED }, status: 202 };
    },
  }),
];

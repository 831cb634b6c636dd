/**
 * The prose of sessions, password resets and the API description itself (routes/app/session.ts,
 * password-reset.ts, openapi.ts) in the API description, by operationId.
 */

export const SESSION_DESCRIPTIONS = {
  getCsrfToken:
    'Sets the session cookie when there is no session yet. Send the token as `X-CSRF-Token` on POST, PUT, PATCH and DELETE.',
  login: 'Replaces the session (new cookie and CSRF token).',
  getSignedInUser:
    'The user, re-read (a deactivated user is signed out here), and `allowed_operations`: the operationIds of ' +
    'this document the user may call, decided by the same role rules the server enforces, so a client hides ' +
    'what it may not use instead of re-implementing the roles.',
  forgotPassword:
    'Always answers 202 with the same message, whether or not the address belongs to an active account. The link works once and expires after 30 minutes. 5 requests per hour per client address.',
  resetPassword:
    'Every session of the user ends. An unknown, used or expired token is 422 on `token` (one message for all three). 10 requests per hour per client address.',
  issuePasswordReset:
    'The link works once and expires after 30 minutes; a newer link voids older ones. Without an SMTP relay (SMTP_URL) nothing would deliver it, so the answer carries `link` for you to pass on.',
  getOpenApiDocument:
    'Plain JSON (not in the envelope): the document is a resource of its own. No credentials.',
};

/**
 * Every HTTP operation the gateway serves, in the order the API description lists them. Each host's
 * router mounts those served on its host (routes/mount.ts); openapi/document.ts describes them all.
 */
import { ACCOUNT_OPERATIONS } from './app/account.js';
import { ADMINISTRATION_OPERATIONS } from './app/administration.js';
import { TICKET_TYPE_ADMINISTRATION_OPERATIONS } from './app/ticket-type-administration.js';
import { API_KEY_OPERATIONS } from './app/api-keys.js';
import { ASSISTANT_OPERATIONS } from './app/assistant.js';
import { AUTONOMOUS_ACTION_OPERATIONS } from './app/autonomous-actions.js';
import { AUTONOMY_OPERATIONS } from './app/autonomy.js';
import { CLIENT_ERROR_OPERATIONS } from './app/client-errors.js';
import { DATA_EXPORT_OPERATIONS } from './app/data-export.js';
import { MAIL_OPERATIONS } from './app/mail.js';
import { API_DESCRIPTION_OPERATIONS } from './app/openapi.js';
import { PASSWORD_RESET_OPERATIONS } from './app/password-reset.js';
import { SESSION_OPERATIONS } from './app/session.js';
import type { Operation } from './operation.js';
import { ACTIVITY_OPERATIONS } from './v1/activity.js';
import { ATTACHMENT_OPERATIONS } from './v1/attachments.js';
import { BOARD_OPERATIONS } from './v1/board.js';
import { COMMENT_OPERATIONS } from './v1/comments.js';
import { CUSTOMER_OPERATIONS, ORGANIZATION_OPERATIONS } from './v1/customers.js';
import { LOOKUP_OPERATIONS } from './v1/lookups.js';
import { TICKET_OPERATIONS } from './v1/tickets.js';
import { WEBHOOK_OPERATIONS } from './v1/webhooks.js';

export const OPERATIONS: readonly Operation[] = [
  ...LOOKUP_OPERATIONS,
  ...TICKET_OPERATIONS,
  ...BOARD_OPERATIONS,
  ...COMMENT_OPERATIONS,
  ...ATTACHMENT_OPERATIONS,
  ...CUSTOMER_OPERATIONS,
  ...ORGANIZATION_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...ACTIVITY_OPERATIONS,
  ...ASSISTANT_OPERATIONS,
  ...AUTONOMY_OPERATIONS,
  ...AUTONOMOUS_ACTION_OPERATIONS,
  ...SESSION_OPERATIONS,
  ...PASSWORD_RESET_OPERATIONS,
  ...ACCOUNT_OPERATIONS,
  ...ADMINISTRATION_OPERATIONS,
  ...TICKET_TYPE_ADMINISTRATION_OPERATIONS,
  ...MAIL_OPERATIONS,
  ...API_KEY_OPERATIONS,
  ...DATA_EXPORT_OPERATIONS,
  ...CLIENT_ERROR_OPERATIONS,
  ...API_DESCRIPTION_OPERATIONS,
];

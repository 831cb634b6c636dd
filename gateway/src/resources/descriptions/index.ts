/**
 * The prose of the API description, by operationId: what an operation does beyond its summary, as
 * the document shows it (openapi/document.ts adds who may call it). Route files declare the HTTP
 * facts and the handler; this catalogue below them holds the words, one file per area. An operation
 * without an entry has its summary only; every entry names an operation (a unit test checks).
 */
import { ACCOUNT_DESCRIPTIONS } from './account.js';
import { ACTIVITY_DESCRIPTIONS } from './activity.js';
import { ASSISTANT_DESCRIPTIONS } from './assistant.js';
import { ATTACHMENT_DESCRIPTIONS } from './attachments.js';
import { COMMENT_DESCRIPTIONS } from './comments.js';
import { CUSTOMER_DESCRIPTIONS } from './customers.js';
import { LOOKUP_DESCRIPTIONS } from './lookups.js';
import { MAIL_DESCRIPTIONS } from './mail.js';
import { SESSION_DESCRIPTIONS } from './session.js';
import { TICKET_DESCRIPTIONS } from './tickets.js';
import { WEBHOOK_DESCRIPTIONS } from './webhooks.js';

/** Each area's descriptions, apart (a test checks that no operationId stands in two of them). */
export const DESCRIPTION_AREAS: readonly Readonly<Record<string, string>>[] = [
  LOOKUP_DESCRIPTIONS,
  TICKET_DESCRIPTIONS,
  COMMENT_DESCRIPTIONS,
  ATTACHMENT_DESCRIPTIONS,
  CUSTOMER_DESCRIPTIONS,
  WEBHOOK_DESCRIPTIONS,
  ACTIVITY_DESCRIPTIONS,
  ASSISTANT_DESCRIPTIONS,
  SESSION_DESCRIPTIONS,
  ACCOUNT_DESCRIPTIONS,
  MAIL_DESCRIPTIONS,
];

export const OPERATION_DESCRIPTIONS: Readonly<Record<string, string>> = Object.fromEntries(
  DESCRIPTION_AREAS.flatMap((area) => Object.entries(area)),
);

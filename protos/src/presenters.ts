/**
 * Resources as the public API (and the admin CLI, and event payloads) show them: spec Resources
 * Project, Ticket type, User, Comment and Attachment. A ticket needs no presenter: the ticket
 * service writes it as the API's JSON (its schema is `ticketSchema` in @tix/contract) and every
 * ticket RPC carries that JSON (ticket.ApiTicket). Proto field names already equal the API's, so
 * these mostly pick fields; they also turn absent optionals into null, parse JSON-text fields, and
 * keep internal fields from leaking when the contract grows.
 */
import type {
  ApiKeyJson,
  AttachmentJson,
  CommentJson,
  ProjectJson,
  TicketTypeJson,
  UserJson,
} from '@tix/contract';
import type * as attachment from '../generated/tix/attachment/v1/index.js';
import type * as comment from '../generated/tix/comment/v1/index.js';
import type * as lookup from '../generated/tix/lookup/v1/index.js';

/** Spec Project, plus the additive `prefix` and ordered `statuses`. */
export function presentProject(project: lookup.Project__Output): ProjectJson {
  return {
    id: project.id,
    name: project.name,
    slug: project.slug,
    prefix: project.prefix,
    description: project.description,
    statuses: project.statuses.map((status) => ({
      slug: status.slug,
      label: status.label,
      is_closed: status.is_closed,
      position: status.position,
    })),
  };
}

/** The field_schema array carried as JSON text; empty text means no custom fields. */
export function parseFieldSchemaJson(json: string): unknown[] {
  if (json.trim() === '') return [];
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed)) throw new TypeError('field_schema_json is not a JSON array');
  return parsed;
}

/**
 * Spec Ticket type, with field_schema parsed into an array, plus the additive `retired_at` (null
 * while the type takes new tickets).
 */
export function presentTicketType(type: lookup.TicketType__Output): TicketTypeJson {
  return {
    id: type.id,
    name: type.name,
    slug: type.slug,
    description: type.description,
    is_default: type.is_default,
    // The lookup service checks every entry when a type is written (@tix/custom-fields).
    field_schema: parseFieldSchemaJson(type.field_schema_json) as TicketTypeJson['field_schema'],
    retired_at: type.retired_at ?? null,
  };
}

/**
 * Spec User, plus the additive `is_system` (true only for the assistant's own user, Tix AI: listed so
 * that people see who acted, but it never signs in and nobody edits it).
 */
export function presentUser(user: lookup.User__Output): UserJson {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: user.role,
    is_active: user.is_active,
    is_system: user.is_system,
  };
}

/** An API key as an admin sees it (never its value): the session host's key list and the CLI's. */
export function presentApiKey(key: lookup.ApiKey__Output): ApiKeyJson {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    project_id: key.project_id ?? null,
    user_id: key.user_id,
    created_at: key.created_at,
    last_used_at: key.last_used_at ?? null,
    revoked_at: key.revoked_at ?? null,
  };
}

/** Spec Comment: every field of the message, an absent content_html as null. */
export function presentComment(message: comment.Comment__Output): CommentJson {
  return {
    id: message.id,
    ticket_id: message.ticket_id,
    user_id: message.user_id,
    content: message.content,
    content_html: message.content_html ?? null,
    is_internal: message.is_internal,
    author_type: message.author_type === 'customer' ? 'customer' : 'staff',
    customer_id: message.customer_id ?? null,
    created_at: message.created_at,
    updated_at: message.updated_at,
  };
}

/** Spec Attachment. */
export function presentAttachment(value: attachment.Attachment__Output): AttachmentJson {
  return {
    id: value.id,
    ticket_id: value.ticket_id,
    original_filename: value.original_filename,
    mime_type: value.mime_type,
    size_bytes: value.size_bytes,
    created_at: value.created_at,
  };
}

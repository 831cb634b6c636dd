/**
 * The contract's vocabulary: the values and limits a request is checked against, defined once. The
 * gateway checks them first (its schemas and their OpenAPI description) and the services enforce
 * them (their rules files), both from these constants, so a limit cannot differ between the
 * gateway's message and the service's. Numbers are the spec's ("Limits", "Tickets", "Comments")
 * unless marked additive. Text lengths count Unicode code points (codePointLength).
 */

// ---- integers and text ---------------------------------------------------------------------------

/** The largest integer the contracts carry (int32): ids, sizes, orders. */
export const MAX_INT32 = 2_147_483_647;
/** The smallest int32. */
export const MIN_INT32 = -2_147_483_648;

/**
 * The number of Unicode code points of `value`: the spec's "characters", so an emoji or an accented
 * letter written as one character counts 1 (a lone surrogate counts 1 too).
 */
export function codePointLength(value: string): number {
  let count = 0;
  for (let index = 0; index < value.length; index += 1) {
    const unit = value.charCodeAt(index);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < value.length) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    count += 1;
  }
  return count;
}

/**
 * True when `text` holds C0 control characters or DEL (tab, LF and CR allowed when `multiLine`).
 * PostgreSQL text cannot store NUL at all, and the others are never meant in a name, title or tag.
 */
export function hasControlCharacters(text: string, multiLine: boolean): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x7f) return true;
    if (code < 0x20 && !(multiLine && (code === 0x09 || code === 0x0a || code === 0x0d))) return true;
  }
  return false;
}

/** True when `text` holds a lone UTF-16 surrogate (not Unicode; PostgreSQL cannot store it as UTF-8). */
export function hasLoneSurrogate(text: string): boolean {
  return /\p{Cs}/u.test(text);
}

/**
 * A caller-supplied value quoted for a message, cut to `max` characters: messages (and the gRPC
 * metadata carrying them) stay small whatever was sent.
 */
export function quoted(value: string, max = 64): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}

/** True when `value` has at most `max` code points (cheap when its UTF-16 length already fits). */
export function fitsCodePoints(value: string, max: number): boolean {
  return value.length <= max || codePointLength(value) <= max;
}

/** Slugs (projects, statuses, ticket types): at most this many characters. */
export const SLUG_MAX_LENGTH = 64;

// ---- tickets -------------------------------------------------------------------------------------

/** Ticket priorities, least urgent first (spec: `low`, `medium`, `high`, `critical`). */
export const TICKET_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

export function isTicketPriority(value: string): value is TicketPriority {
  return (TICKET_PRIORITIES as readonly string[]).includes(value);
}

/** Resolution types of a closed ticket (spec). */
export const RESOLUTION_TYPES = ['resolved', 'wont_fix', 'duplicate'] as const;
export type ResolutionType = (typeof RESOLUTION_TYPES)[number];

export function isResolutionType(value: string): value is ResolutionType {
  return (RESOLUTION_TYPES as readonly string[]).includes(value);
}

/** The statuses a bulk update may set (spec: one of the four default slugs). */
export const BULK_STATUSES = ['open', 'work_in_progress', 'waiting', 'closed'] as const;

/** The fields GET /tickets may sort by (spec "List rules"). */
export const TICKET_SORT_FIELDS = [
  'id',
  'title',
  'status',
  'priority',
  'created_at',
  'updated_at',
  'assigned_to',
] as const;
export type TicketSortField = (typeof TICKET_SORT_FIELDS)[number];

/** Ticket text and list limits. */
export const TICKET_LIMITS = {
  title: 200,
  description: 5000,
  /** Tags per ticket (additive). */
  tags: 20,
  /** Characters per tag (additive). */
  tag: 50,
  /** The `q` search text (additive bound). */
  q: 200,
  /** Ticket ids of one bulk update. */
  bulkIds: 100,
  /** Customers copied on one ticket (additive). */
  cc: 50,
} as const;

/** Pages of a list (tickets, webhook deliveries): `per_page` 1 to 100, default 50. */
export const PAGE_LIMITS = { defaultPerPage: 50, maxPerPage: 100 } as const;

/** One page of a list: its number, its size and the rows before it. */
export interface PageWindow {
  page: number;
  perPage: number;
  offset: number;
}

/** The requested page, clamped (page >= 1, per_page 1..100; 0 or absent means the default). */
export function pageWindow(request: { page?: number; per_page?: number } | null | undefined): PageWindow {
  const page = Math.max(request?.page || 1, 1);
  const perPage = Math.min(
    Math.max(request?.per_page || PAGE_LIMITS.defaultPerPage, 1),
    PAGE_LIMITS.maxPerPage,
  );
  return { page, perPage, offset: (page - 1) * perPage };
}

/** The spec's Pagination object; total_pages is 0 when nothing matches. */
export function paginationOf(total: number, window: PageWindow) {
  return {
    total,
    page: window.page,
    per_page: window.perPage,
    total_pages: Math.ceil(total / window.perPage),
  };
}

/** Tickets per board lane (additive `lane_limit`): 1 to 500, default 50. */
export const BOARD_LIMITS = { defaultLaneLimit: 50, maxLaneLimit: 500 } as const;

// ---- comments ------------------------------------------------------------------------------------

/** Comment text limits: `content` and `content_html`, 50000 characters each. */
export const COMMENT_LIMITS = { content: 50_000, contentHtml: 50_000 } as const;

// ---- projects, ticket types, users, API keys (lookup) --------------------------------------------

/** Project names, descriptions and status labels; statuses per workflow. */
export const PROJECT_LIMITS = { name: 200, description: 2000, statusLabel: 100, statuses: 50 } as const;

/** Ticket type names and descriptions. */
export const TICKET_TYPE_LIMITS = { name: 100, description: 2000 } as const;

/** User names, emails (RFC 5321 path limit) and passwords. */
export const USER_LIMITS = { name: 200, email: 254, passwordMin: 8, passwordMax: 1024 } as const;

/** API key names. */
export const API_KEY_LIMITS = { name: 200 } as const;

// ---- custom fields -------------------------------------------------------------------------------

/** The types of a ticket type's custom field (spec "Ticket type", field_schema). */
export const CUSTOM_FIELD_TYPES = [
  'text',
  'textarea',
  'number',
  'date',
  'datetime',
  'select',
  'multi_select',
  'boolean',
  'email',
  'url',
] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

// ---- webhooks ------------------------------------------------------------------------------------

/** A webhook's target URL (at most 2048 characters) and a caller-given secret (16 to 256). */
export const WEBHOOK_LIMITS = { url: 2048, secretMin: 16, secretMax: 256 } as const;

/** Deliveries one bulk redelivery queues at most; `remaining` tells the caller to call again. */
export const MAX_BULK_REDELIVERIES = 100;

// ---- attachments ---------------------------------------------------------------------------------

/**
 * The largest file by default (25 MiB; both the gateway and the attachment service let an operator
 * change it, keeping the two equal), and the largest either accepts (size_bytes is an int32).
 */
export const ATTACHMENT_LIMITS = {
  defaultMaxBytes: 25 * 1024 * 1024,
  maxConfigurableBytes: MAX_INT32,
} as const;

/** `File is larger than 25 MB` for 25 MiB; exact KB or bytes for sizes that are no whole MB. */
export function fileTooLargeMessage(maxBytes: number): string {
  return `File is larger than ${formatSize(maxBytes)}`;
}

/** 1 MB = 1024 KB = 1048576 bytes, as operators write the limit. */
function formatSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

// ---- the assistant -------------------------------------------------------------------------------

/** How a suggested reply greets and signs off (docs/assistant.md); neutral when none is asked. */
export const SUGGESTION_TONES = ['neutral', 'friendly', 'formal'] as const;
export type SuggestionTone = (typeof SUGGESTION_TONES)[number];
export const DEFAULT_SUGGESTION_TONE: SuggestionTone = 'neutral';

/** How many resolved tickets a suggestion or an answer may draw on, and how many when not asked. */
export const SOURCE_LIMITS = { min: 1, max: 5, default: 3 } as const;

/**
 * The confidence floor: below it no reply is suggested, unless the operator sets AI_MIN_CONFIDENCE or
 * the caller asks its own `min_confidence` (0 to 1).
 */
export const DEFAULT_MIN_CONFIDENCE = 0.35;

export type ConfidenceLabel = 'high' | 'medium' | 'low';

/** How a confidence reads to people, Zendesk's three levels: high from 0.85, medium from 0.6, low below. */
export function confidenceLabel(confidence: number): ConfidenceLabel {
  if (confidence >= 0.85) return 'high';
  if (confidence >= 0.6) return 'medium';
  return 'low';
}

/** What the assistant may do on its own, each off, suggest or auto per project (docs/assistant.md). */
export const AUTONOMY_ACTION_TYPES = [
  'set_priority',
  'assign',
  'add_tags',
  'close_duplicate',
  'post_internal_note',
  'send_reply',
] as const;
export type AutonomyActionType = (typeof AUTONOMY_ACTION_TYPES)[number];

/** The action types that write a comment (reverted by deleting it while unedited), not ticket fields. */
export const COMMENT_ACTION_TYPES = [
  'post_internal_note',
  'send_reply',
] as const satisfies readonly AutonomyActionType[];
export type CommentActionType = (typeof COMMENT_ACTION_TYPES)[number];

/** The life of an autonomous action: `executing` while written, then as docs/assistant.md lists them. */
export const AUTONOMOUS_ACTION_STATUSES = [
  'executing',
  'pending_review',
  'acknowledged',
  'reverted',
  'skipped_conflict',
  'cancelled',
  'failed',
] as const;
export type AutonomousActionStatus = (typeof AUTONOMOUS_ACTION_STATUSES)[number];

/** A kill switch's reason (1 to 500 characters) and a review's note or revert reason (up to 1000). */
export const AUTONOMY_TEXT_LIMITS = { reason: 500, review: 1000 } as const;

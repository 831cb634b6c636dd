/**
 * The ticket screens' vocabulary: the API's types under short names, and the small display helpers
 * the list and the ticket view share (labels, dates, sizes, who a user id is).
 */
import { TICKET_PRIORITIES } from '@tix/contract';
import type { components, operations } from '../../generated/api';
import type { Project } from '../../projects';

export type Ticket = components['schemas']['Ticket'];
export type TicketType = components['schemas']['TicketType'];
export type FieldSchemaEntry = components['schemas']['FieldSchemaEntry'];
export type User = components['schemas']['User'];
export type Comment = components['schemas']['Comment'];
export type Attachment = components['schemas']['Attachment'];
export type Activity = components['schemas']['Activity'];
export type Pagination = components['schemas']['Pagination'];
export type TicketUpdate = NonNullable<
  operations['updateTicket']['requestBody']
>['content']['application/json'];
export type Priority = NonNullable<TicketUpdate['priority']>;
export type Resolution = NonNullable<Ticket['resolution_type']>;

export const PRIORITIES = TICKET_PRIORITIES satisfies readonly Priority[];
export const RESOLUTIONS = [
  { value: 'resolved', label: 'Resolved' },
  { value: 'wont_fix', label: "Won't fix" },
  { value: 'duplicate', label: 'Duplicate' },
] as const satisfies readonly { value: Resolution; label: string }[];

export function isPriority(value: string): value is Priority {
  return (PRIORITIES as readonly string[]).includes(value);
}

/** "high" -> "High" (the API's labels are used where it sends them). */
export function capitalised(value: string): string {
  return value ? value[0]!.toUpperCase() + value.slice(1).replaceAll('_', ' ') : value;
}

export function resolutionLabel(value: string | null): string {
  return RESOLUTIONS.find((resolution) => resolution.value === value)?.label ?? 'None';
}

export function statusLabel(project: Project, slug: string): string {
  return project.statuses.find((status) => status.slug === slug)?.label ?? slug;
}

/** Users a ticket can be assigned to: active people (not the assistant's own user). */
export function assignableUsers(users: User[]): User[] {
  return users.filter((user) => user.is_active && !user.is_system);
}

export function userName(users: Map<number, User>, id: number | null): string {
  if (id === null) return 'Unassigned';
  return users.get(id)?.name ?? `User ${id}`;
}

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTimeFormat.format(date);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** "billing, VIP ,billing" -> ["billing", "vip"] (the server trims, lower-cases and collapses too). */
export function parseTags(text: string): string[] {
  const tags = text
    .split(',')
    .map((tag) => tag.trim().toLowerCase())
    .filter(Boolean);
  return [...new Set(tags)];
}

/** The ticket view's address, naming the project so that a shared link opens in it. */
export function ticketPath(ticketId: number, project: Project): string {
  return `/tickets/${ticketId}?project=${encodeURIComponent(project.slug)}`;
}

/** Where the console downloads an attachment of the project (the session host's API, /api). */
export function attachmentDownloadPath(attachmentId: number, project: Pick<Project, 'id'>): string {
  return `/api/attachments/${attachmentId}/download?project_id=${project.id}`;
}

/**
 * A comment's sanitised content_html as the console shows it: an image of an attachment is stored
 * as `/attachments/{id}/download`, which each host resolves (docs/mail.md, "Body"); here it is the
 * session API's download path of the project.
 */
export function consoleCommentHtml(html: string, project: Pick<Project, 'id'>): string {
  return html.replace(
    /(<img\b[^>]*?\ssrc=")\/attachments\/(\d{1,10})\/download(")/g,
    (_match, before: string, id: string, after: string) =>
      `${before}${attachmentDownloadPath(Number(id), project).replace(/&/g, '&amp;')}${after}`,
  );
}

/**
 * Reading attachments. The list needs the ticket live in the caller's project (else the ticket
 * service's 404 `Ticket not found`); one attachment by id needs its row in the caller's project and
 * its ticket live (else 404 `Attachment not found`, whichever part failed, so ids of other projects
 * reveal nothing). A download opens the object before anything is sent, so a store outage is still
 * a clean 503.
 */
import { ERROR_MESSAGES } from '@tix/protos';
import type { Readable } from 'node:stream';
import { AppError, type Caller } from '@tix/kit';
import type { AttachmentDeps } from './attachment-deps.js';
import { attachmentNotFound } from './attachment-errors.js';
import type { AttachmentRow } from './attachment-row.js';

export const PROJECT_REQUIRED = ERROR_MESSAGES.projectRequired;

/** Where an attachment is looked for: the caller's project and the attachment id. */
export interface AttachmentAddress {
  projectId: number;
  id: number;
}

/** 400 when the call names no project (the gateway always sends the caller's). */
export function requireProjectId(projectId: number): number {
  if (!Number.isInteger(projectId) || projectId <= 0) throw AppError.badRequest(PROJECT_REQUIRED);
  return projectId;
}

/** The attachment when it is visible to the caller (see the file header); 404 otherwise. */
export async function findVisibleAttachment(
  deps: AttachmentDeps,
  address: AttachmentAddress,
  caller: Caller,
): Promise<AttachmentRow> {
  const projectId = requireProjectId(address.projectId);
  const row = address.id > 0 ? await deps.attachments.findLive(projectId, address.id) : null;
  if (!row || !(await deps.tickets.isLiveTicket(projectId, row.ticketId, caller))) throw attachmentNotFound();
  return row;
}

/** The live attachments of a live ticket of the caller's project, oldest first. */
export async function listAttachments(
  deps: AttachmentDeps,
  input: { projectId: number; ticketId: number },
  caller: Caller,
): Promise<AttachmentRow[]> {
  const projectId = requireProjectId(input.projectId);
  await deps.tickets.requireLiveTicket(projectId, input.ticketId, caller);
  return deps.attachments.listLive(projectId, input.ticketId);
}

/**
 * A visible attachment and a stream of its bytes (the caller must consume or destroy it; read it
 * with objectBytes). Aborting `signal` (the caller went away) destroys the stream.
 */
export async function openAttachmentDownload(
  deps: AttachmentDeps,
  address: AttachmentAddress,
  caller: Caller,
  signal?: AbortSignal,
): Promise<{ row: AttachmentRow; body: Readable }> {
  const row = await findVisibleAttachment(deps, address, caller);
  return { row, body: await deps.objects.open(row.objectKey, signal) };
}

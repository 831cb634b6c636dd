/**
 * A reply carries the files its comment links to: attachments of the ticket named in the comment as
 * `.../attachments/<id>/download` (how the console and the API link a file). They are fetched from
 * the attachment service when the mail is sent, not when it is queued, so the outbox holds no bytes.
 */
import { AppError, type ServiceClient } from '@tix/kit';
import type { MailAttachment } from '@tix/kit';
import type { SystemCaller } from './system-caller.js';

/** Files of one mail, at most (the relay's usual limit is 25 MB; base64 adds a third). */
export const MAX_ATTACHMENT_BYTES = 18 * 1024 * 1024;

/** The attachment ids a comment's text or HTML links to, in order of first mention. */
export function linkedAttachmentIds(...texts: (string | null)[]): number[] {
  const ids: number[] = [];
  for (const text of texts) {
    for (const match of (text ?? '').matchAll(/attachments\/(\d{1,10})\/download/g)) {
      const id = Number(match[1]);
      if (Number.isSafeInteger(id) && id > 0 && !ids.includes(id)) ids.push(id);
    }
  }
  return ids;
}

export type AttachmentReader = Pick<ServiceClient<'attachments'>, 'DownloadAttachment'>;

/**
 * The files of `ids` on ticket `ticketId`; one that is gone (deleted, another ticket's) is left out,
 * and so is every file past MAX_ATTACHMENT_BYTES. An unavailable attachment service rejects (the
 * attempt is retried).
 */
export async function fetchAttachments(
  reader: AttachmentReader,
  caller: SystemCaller,
  address: { projectId: number; ticketId: number },
  ids: readonly number[],
): Promise<{ files: MailAttachment[]; skipped: number[] }> {
  const files: MailAttachment[] = [];
  const skipped: number[] = [];
  let total = 0;
  const principal = ids.length === 0 ? null : await caller.principal();
  for (const id of ids) {
    try {
      let meta: {
        ticket_id: number;
        original_filename: string;
        mime_type: string;
        size_bytes: number;
      } | null = null;
      const chunks: Buffer[] = [];
      for await (const part of reader.DownloadAttachment(
        { project_id: address.projectId, id },
        { principal },
      )) {
        if (part.attachment) {
          meta = part.attachment;
          if (meta.ticket_id !== address.ticketId || total + meta.size_bytes > MAX_ATTACHMENT_BYTES) break;
        }
        if (part.chunk) chunks.push(part.chunk);
      }
      if (
        meta === null ||
        meta.ticket_id !== address.ticketId ||
        total + meta.size_bytes > MAX_ATTACHMENT_BYTES
      ) {
        skipped.push(id);
        continue;
      }
      const content = Buffer.concat(chunks);
      total += content.length;
      files.push({ filename: meta.original_filename, contentType: meta.mime_type, content });
    } catch (error) {
      if (error instanceof AppError && (error.kind === 'not_found' || error.kind === 'bad_request')) {
        skipped.push(id);
        continue;
      }
      throw error;
    }
  }
  return { files, skipped };
}

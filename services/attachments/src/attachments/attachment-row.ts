/** An attachment as the service holds it, and its two public shapes: the gRPC message and the API JSON. */
import { presentAttachment, type attachment, type AttachmentJson } from '@tix/protos';

export interface AttachmentRow {
  id: number;
  projectId: number;
  ticketId: number;
  objectKey: string;
  originalFilename: string;
  mimeType: string;
  sizeBytes: number;
  sha256: string;
  createdBy: number;
  createdAt: Date;
  deletedAt: Date | null;
}

/** The row as the contract's Attachment message (field names equal the API's). */
export function toAttachmentMessage(row: AttachmentRow): attachment.Attachment__Output {
  return {
    id: row.id,
    ticket_id: row.ticketId,
    original_filename: row.originalFilename,
    mime_type: row.mimeType,
    size_bytes: row.sizeBytes,
    created_at: row.createdAt.toISOString(),
  };
}

/** The row as the spec's Attachment (also the `data` of attachment.* events): presentAttachment of its message. */
export function toAttachmentJson(row: AttachmentRow): AttachmentJson {
  return presentAttachment(toAttachmentMessage(row));
}

/**
 * Uploading an attachment, in this order, so that no failure leaves an object anyone can reach or a
 * row without its bytes:
 * 1. the ticket must be live in the caller's project (ticket service), before any byte is taken;
 * 2. the bytes are received into a spool file (uploads/spool.ts): more than the maximum -> 422, and
 *    nothing reaches the store;
 * 3. the type is decided from the bytes (uploads/file-type-rules.ts): empty, unknown, not allowed or
 *    not what was claimed -> 422, nothing reaches the store;
 * 4. the object is stored under a fresh random key (store down -> 503, nothing recorded);
 * 5. one transaction records the row and attachment.created; if it fails (or the caller has gone),
 *    the object is removed again. Only a crash between 4 and 5, or a removal failing right after a
 *    failed insert, can leave an object behind: unreferenced under a random key, so unreachable, and
 *    logged with its key.
 */
import { fileTypeFromBuffer } from 'file-type';
import { actorOf, requirePrincipal, type CallContext } from '@tix/kit';
import { attachmentCreated } from '../attachments/attachment-events.js';
import type { AttachmentDeps } from '../attachments/attachment-deps.js';
import type { AttachmentRow } from '../attachments/attachment-row.js';
import { requireProjectId } from '../attachments/read-attachments.js';
import type { NewAttachment } from '../attachments/attachment-store.js';
import { newObjectKey } from '../storage/object-key.js';
import { decideStoredType, FILE_EMPTY_MESSAGE, fileRefused, SNIFF_BYTES } from './file-type-rules.js';
import { sanitizeFilename } from './filename-rules.js';
import { spoolChunks, type SpooledFile } from './spool.js';

export interface UploadInput {
  projectId: number;
  ticketId: number;
  /** As the client sent it; cleaned before it is stored. */
  originalFilename: string;
  /** What the client claimed (e.g. the part's Content-Type); only a hint, see file-type-rules.ts. */
  declaredType: string;
  /** The file's bytes, in order. */
  chunks: AsyncIterable<Buffer>;
}

export type UploadCall = Pick<CallContext, 'correlationId' | 'principal' | 'logger' | 'signal'>;

/** The MIME type of the file's signature, if file-type recognises one (never throws on odd bytes). */
async function detectType(head: Buffer): Promise<string | undefined> {
  try {
    return (await fileTypeFromBuffer(head))?.mime;
  } catch {
    return undefined;
  }
}

/** Runs steps 1-5 of the file header; resolves with the recorded attachment. */
export async function uploadAttachment(
  deps: AttachmentDeps,
  input: UploadInput,
  call: UploadCall,
): Promise<AttachmentRow> {
  // The handler has read call.signal already (it only learns of cancellations after its first use).
  const signal = call.signal;
  const projectId = requireProjectId(input.projectId);
  const createdBy = requirePrincipal(call.principal).user_id;
  await deps.tickets.requireLiveTicket(projectId, input.ticketId, call);
  const file = await spoolChunks(input.chunks, {
    dir: deps.uploads.spoolDir,
    maxBytes: deps.uploads.maxBytes,
    headBytes: SNIFF_BYTES,
    idleTimeoutMs: deps.uploads.idleTimeoutMs,
    signal,
  });
  try {
    if (file.sizeBytes === 0) throw fileRefused(FILE_EMPTY_MESSAGE);
    const mimeType = decideStoredType(
      { detectedType: await detectType(file.head), isUtf8Text: file.isUtf8Text },
      input.declaredType,
      deps.uploads.allowedTypes,
    );
    return await storeAndRecord(
      deps,
      file,
      {
        projectId,
        ticketId: input.ticketId,
        objectKey: newObjectKey(projectId),
        originalFilename: sanitizeFilename(input.originalFilename),
        mimeType,
        sizeBytes: file.sizeBytes,
        sha256: file.sha256,
        createdBy,
      },
      call,
    );
  } finally {
    await file.remove();
  }
}

/** Steps 4 and 5: the object, then the row and its event; the object is removed if the row is not. */
async function storeAndRecord(
  deps: AttachmentDeps,
  file: SpooledFile,
  attachment: NewAttachment,
  call: UploadCall,
): Promise<AttachmentRow> {
  await deps.objects.putFile(attachment.objectKey, file, attachment.mimeType, call.signal);
  try {
    // A caller that has gone will never learn the id: record nothing it did not see succeed.
    call.signal.throwIfAborted();
    return await deps.attachments.insert(attachment, (row) => [
      attachmentCreated(row, actorOf(call.principal)),
    ]);
  } catch (error) {
    await deps.objects
      .remove(attachment.objectKey)
      .catch((removalError: unknown) =>
        call.logger.error(
          { err: removalError, object_key: attachment.objectKey },
          'an upload was not recorded and its object could not be removed; the object is unreferenced',
        ),
      );
    throw error;
  }
}

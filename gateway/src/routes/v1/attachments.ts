/**
 * The attachment operations (spec "Attachments", plus the additive GET /attachments/{id}): validated
 * ids, then one AttachmentService call. Uploads and downloads stream end to end
 * (http/multipart-upload.ts into a gRPC client stream; a gRPC server stream into
 * http/file-download.ts), so no file is ever held whole in the gateway. Whether a ticket or
 * attachment is reachable, and what a file may be, is decided by the attachment service; its errors
 * pass through unchanged.
 *
 * Uploads read their own body: parseJsonBody exempts them (mount.ts readsOwnBody).
 */
import type * as grpc from '@grpc/grpc-js';
import { AppError, fromGrpcError, type OutgoingContext, type ServiceClient } from '@tix/kit';
import { presentAttachment, type attachment } from '@tix/protos';
import { receiveSingleFile, type FileSink } from '../../http/multipart-upload.js';
import { attachmentSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { confirmation, confirmed, json, list, tagged } from '../../resources/responses.js';
import { operationGroup, type Operation } from '../operation.js';
import {
  attachmentIdParams,
  FILE_FIELD,
  fileTooLargeMessage,
  ticketIdParams,
  type AttachmentLimits,
} from './attachments.schemas.js';

/** Upload chunks handed to gRPC and not yet written out, per upload: bounds the gateway's memory. */
export const MAX_UPLOAD_MESSAGES_IN_FLIGHT = 4;

/**
 * An UploadAttachment client stream as the sink of the multipart reader: header first, then chunks.
 * The call is opened under the client's circuit breaker: while it is open the result rejects at once
 * with the 503 and nothing is sent (chunks the reader hands over meanwhile are dropped).
 */
function uploadSink(
  client: ServiceClient<'attachments'>,
  header: attachment.UploadHeader,
  context: OutgoingContext,
): FileSink<attachment.Attachment__Output> {
  let call: grpc.ClientWritableStream<attachment.UploadAttachmentRequest> | undefined;
  const result = client.withBreaker(
    () =>
      new Promise<attachment.Attachment__Output>((resolve, reject) => {
        call = client.raw.UploadAttachment(
          client.callMetadata(context),
          client.callOptions(context),
          (error, response) => {
            if (error) reject(fromGrpcError(error));
            else if (response) resolve(response);
            else reject(AppError.internal('the upload call answered without an attachment'));
          },
        );
        call.on('error', () => undefined); // reported through the callback
        call.write({ header });
      }),
  );
  // At most MAX_UPLOAD_MESSAGES_IN_FLIGHT chunks wait below us (grpc-js alone would queue 16).
  let inFlight = 0;
  let drainListener: (() => void) | undefined;
  const written = () => {
    inFlight -= 1;
    if (inFlight === 0 && drainListener) {
      const listener = drainListener;
      drainListener = undefined;
      listener();
    }
  };
  return {
    write(chunk) {
      if (!call) return true;
      inFlight += 1;
      call.write({ chunk }, written);
      return inFlight < MAX_UPLOAD_MESSAGES_IN_FLIGHT;
    },
    onceDrain(listener) {
      if (inFlight === 0) listener();
      else drainListener = listener;
    },
    end: () => call?.end(),
    abort: () => call?.cancel(),
    result,
  };
}

/** The chunks of a download stream after its first (attachment) message. */
async function* chunksAfterHeader(
  messages: AsyncIterator<attachment.DownloadAttachmentResponse__Output>,
): AsyncGenerator<Buffer> {
  try {
    for (;;) {
      const next = await messages.next();
      if (next.done) return;
      if (next.value.part !== 'chunk' || !next.value.chunk)
        throw AppError.internal('unexpected download message');
      yield next.value.chunk;
    }
  } finally {
    // The client left (or the stream failed): cancel the call.
    await messages.return?.(undefined);
  }
}

/** The context of an upload or download call: transfers from slow clients take long. */
function transferContext(call: OutgoingContext, limits: AttachmentLimits): OutgoingContext {
  return { ...call, deadlineMs: limits.transferDeadlineMs };
}

const attachmentOperation = operationGroup({
  hosts: ['api', 'app'],
  project: 'required',
  tag: 'Attachments',
});

export const ATTACHMENT_OPERATIONS: Operation[] = [
  attachmentOperation({
    method: 'get',
    path: '/tickets/:id/attachments',
    access: { scope: 'tickets:read', role: 'viewer' },
    request: { params: ticketIdParams },
    operationId: 'listAttachments',
    summary: 'List the attachments of a ticket',
    success: json(200, 'The attachments.', list('attachments', attachmentSchema), {
      attachments: [EXAMPLES.attachment],
    }),
    errors: [400, 404],
    async handle({ params, services, project, call }) {
      const listed = await services.attachments.ListAttachments(
        { project_id: project.id, ticket_id: params.id },
        call,
      );
      return { data: { attachments: listed.attachments.map(presentAttachment) } };
    },
  }),

  attachmentOperation({
    method: 'post',
    path: '/tickets/:id/attachments',
    access: { scope: 'tickets:write', role: 'agent' },
    request: { params: ticketIdParams },
    upload: { field: FILE_FIELD },
    operationId: 'uploadAttachment',
    summary: 'Upload a file to a ticket',
    success: tagged(201, 'The stored attachment.', 'attachment', attachmentSchema, EXAMPLES.attachment),
    errors: [400, 404, 409, 422],
    async handle({ params, upload, call, services, attachments: limits, project }) {
      const client = services.attachments;
      const projectId = project.id;
      const created = await receiveSingleFile(upload, {
        fieldName: FILE_FIELD,
        maxBytes: limits.maxBytes,
        tooLargeMessage: fileTooLargeMessage(limits.maxBytes),
        openSink: (file) =>
          uploadSink(
            client,
            {
              project_id: projectId,
              ticket_id: params.id,
              original_filename: file.filename,
              declared_mime_type: file.mimeType,
            },
            transferContext(call, limits),
          ),
      });
      const attachment = presentAttachment(created);
      return { data: { attachment }, etag: true, status: 201, location: `/attachments/${created.id}` };
    },
  }),

  attachmentOperation({
    method: 'get',
    path: '/attachments/:id',
    access: { scope: 'tickets:read', role: 'viewer' },
    request: { params: attachmentIdParams },
    operationId: 'getAttachment',
    summary: 'Get the metadata of an attachment (additive)',
    success: tagged(200, 'The attachment.', 'attachment', attachmentSchema, EXAMPLES.attachment),
    errors: [400, 404],
    async handle({ params, services, project, call }) {
      const found = await services.attachments.GetAttachment({ project_id: project.id, id: params.id }, call);
      const attachment = presentAttachment(found);
      return { data: { attachment }, etag: true };
    },
  }),

  attachmentOperation({
    method: 'delete',
    path: '/attachments/:id',
    access: { scope: 'tickets:write', role: 'agent' },
    request: { params: attachmentIdParams },
    operationId: 'deleteAttachment',
    summary: 'Delete an attachment',
    success: confirmation('Attachment deleted'),
    errors: [400, 404],
    handle({ params, services, project, call }) {
      return confirmed(
        services.attachments.DeleteAttachment({ project_id: project.id, id: params.id }, call),
      );
    },
  }),

  attachmentOperation({
    method: 'get',
    path: '/attachments/:id/download',
    access: { scope: 'tickets:read', role: 'viewer' },
    request: { params: attachmentIdParams },
    operationId: 'downloadAttachment',
    summary: 'Download the bytes of an attachment',
    success: { kind: 'file_download' },
    errors: [400, 404],
    async handle({ params, call, services, attachments: limits, project }) {
      const messages = services.attachments
        .DownloadAttachment({ project_id: project.id, id: params.id }, transferContext(call, limits))
        [Symbol.asyncIterator]();
      // Errors before the first message (404, store down) still leave as the JSON envelope.
      const first = await messages.next();
      const found = first.done ? undefined : first.value.attachment;
      if (!found) {
        await messages.return?.(undefined);
        throw AppError.internal('the download stream did not start with the attachment');
      }
      return {
        file: {
          file: {
            contentType: found.mime_type,
            filename: found.original_filename,
            sizeBytes: found.size_bytes,
          },
          chunks: chunksAfterHeader(messages),
        },
      };
    },
  }),
];

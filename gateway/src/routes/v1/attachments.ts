/**
 * The attachment routes (spec "Attachments", plus the additive GET /attachments/{id}): scope ->
 * project context -> validated ids -> one AttachmentService call. Uploads and downloads stream end
 * to end (http/multipart-upload.ts into a gRPC client stream; a gRPC server stream into
 * http/file-download.ts), so no file is ever held whole in the gateway. List and download need
 * tickets:read, upload and delete tickets:write. Whether a ticket or attachment is reachable, and
 * what a file may be, is decided by the attachment service; its errors pass through unchanged.
 *
 * Upload routes read their own body: parseJsonBody exempts them (isAttachmentUpload).
 */
import type * as grpc from '@grpc/grpc-js';
import type { Request, Router } from 'express';
import { AppError, fromGrpcError, type OutgoingContext, type ServiceClient } from '@tix/kit';
import { presentAttachment, type attachment } from '@tix/protos';
import { sendData } from '../../http/envelope.js';
import { sendFile } from '../../http/file-download.js';
import { receiveSingleFile, type FileSink } from '../../http/multipart-upload.js';
import { callContext, requireProject } from '../../http/request-context.js';
import { defineRoute } from '../../http/routing.js';
import { handleValidated } from '../../http/validate.js';
import { projectContext } from '../../middleware/project-context.js';
import { requireScope } from '../../middleware/require-scope.js';
import type { ProjectResolver } from '../../projects/project-resolver.js';
import { requireService, type ServiceClients } from '../../services.js';
import {
  attachmentIdParams,
  FILE_FIELD,
  fileTooLargeMessage,
  ticketIdParams,
  type AttachmentLimits,
} from './attachments.schemas.js';

const UPLOAD_PATH = /^\/tickets\/[^/]+\/attachments\/?$/;

/** Upload chunks handed to gRPC and not yet written out, per upload: bounds the gateway's memory. */
export const MAX_UPLOAD_MESSAGES_IN_FLIGHT = 4;

/** POST /tickets/{id}/attachments: the body is multipart and read by the route, not parseJsonBody. */
export function isAttachmentUpload(request: Request): boolean {
  return request.method === 'POST' && UPLOAD_PATH.test(request.path);
}

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

/** Registers the attachment routes on the API router. */
export function attachmentRoutes(
  router: Router,
  deps: { services: ServiceClients; projects: ProjectResolver; attachments: AttachmentLimits },
): void {
  const limits = deps.attachments;
  const attachments = () => requireService(deps.services, 'attachments');
  const inProject = projectContext({ resolver: deps.projects });
  const read = requireScope('tickets:read');
  const write = requireScope('tickets:write');
  const transfer = (request: Request): OutgoingContext => ({
    ...callContext(request),
    deadlineMs: limits.transferDeadlineMs,
  });

  defineRoute(router, '/tickets/:id/attachments', {
    get: [
      read,
      inProject,
      ...handleValidated({ params: ticketIdParams }, async ({ params }, request, response) => {
        const list = await attachments().ListAttachments(
          { project_id: requireProject(request).id, ticket_id: params.id },
          callContext(request),
        );
        sendData(response, { attachments: list.attachments.map(presentAttachment) });
      }),
    ],
    post: [
      write,
      inProject,
      ...handleValidated({ params: ticketIdParams }, async ({ params }, request, response) => {
        const client = attachments();
        const projectId = requireProject(request).id;
        const created = await receiveSingleFile(request, {
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
              transfer(request),
            ),
        });
        sendData(response, { attachment: presentAttachment(created) }, 201);
      }),
    ],
  });

  defineRoute(router, '/attachments/:id', {
    get: [
      read,
      inProject,
      ...handleValidated({ params: attachmentIdParams }, async ({ params }, request, response) => {
        const found = await attachments().GetAttachment(
          { project_id: requireProject(request).id, id: params.id },
          callContext(request),
        );
        sendData(response, { attachment: presentAttachment(found) });
      }),
    ],
    delete: [
      write,
      inProject,
      ...handleValidated({ params: attachmentIdParams }, async ({ params }, request, response) => {
        const { message } = await attachments().DeleteAttachment(
          { project_id: requireProject(request).id, id: params.id },
          callContext(request),
        );
        sendData(response, { message });
      }),
    ],
  });

  defineRoute(router, '/attachments/:id/download', {
    get: [
      read,
      inProject,
      ...handleValidated({ params: attachmentIdParams }, async ({ params }, request, response) => {
        const messages = attachments()
          .DownloadAttachment({ project_id: requireProject(request).id, id: params.id }, transfer(request))
          [Symbol.asyncIterator]();
        // Errors before the first message (404, store down) still leave as the JSON envelope.
        const first = await messages.next();
        const found = first.done ? undefined : first.value.attachment;
        if (!found) {
          await messages.return?.(undefined);
          throw AppError.internal('the download stream did not start with the attachment');
        }
        await sendFile(
          response,
          { contentType: found.mime_type, filename: found.original_filename, sizeBytes: found.size_bytes },
          chunksAfterHeader(messages),
          { headOnly: request.method === 'HEAD' },
        );
      }),
    ],
  });
}

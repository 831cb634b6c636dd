/**
 * GET /api/me/data-export (the spec's limit row: 3 per hour): one JSON document of everything the
 * signed-in user authored or is assigned to, downloaded as a file:
 *
 *   {"ok":true,"data":{"exported_at":…,"user":{…},"tickets":[…],"comments":[…],"attachments":[…]}}
 *
 * The envelope like every other answer (decisions.md), each item exactly as the v1 API presents it.
 * Its size is bounded by streaming, not by memory: the three services stream their part (gRPC server
 * streams), and the next item is asked for only when the client has taken what was written, so a
 * client that stops reading stops the services too (HTTP/2 flow control) and a client that leaves
 * cancels the calls.
 *
 * A refusal or an outage before the first byte leaves as the error envelope: the three streams are
 * opened at once and each one's first answer awaited before anything is written. After that the
 * status cannot change any more: a failure destroys the response, so the client sees a broken
 * download, never a valid-looking truncated document; it is logged with the correlation id.
 */
import type { Request, Response } from 'express';
import { AppError, type OutgoingContext } from '@tix/kit';
import { presentAttachment, presentComment, presentTicket, presentUser } from '@tix/protos';
import { contentDisposition } from '../../http/file-download.js';
import { callContext, requirePrincipal } from '../../http/request-context.js';
import { attachmentSchema, commentSchema, ticketSchema, userSchema } from '../../openapi/components.js';
import { EXAMPLES } from '../../openapi/examples.js';
import { jsonDownload } from '../../openapi/responses.js';
import { z } from '../../openapi/zod-openapi.js';
import { requireService } from '../../services.js';
import { defineOperation, type Operation } from '../operation.js';
import { drained, STREAM_FLUSH_CHARS } from '../../http/backpressure.js';

/**
 * Deadline of each export stream. A gRPC deadline covers the whole call, and the attachments
 * stream stays open while the tickets and comments are written: generous, for slow clients.
 */
export const EXPORT_DEADLINE_MS = 15 * 60_000;

/** The export's file name: `tix-export-<user id>-<yyyy-mm-dd>.json` (UTC date of the export). */
export function exportFilename(userId: number, exportedAt: Date): string {
  return `tix-export-${userId}-${exportedAt.toISOString().slice(0, 10)}.json`;
}

/** The headers that make the answer a download (an error envelope must not carry them). */
const DOWNLOAD_HEADERS = ['Content-Disposition', 'Cache-Control'] as const;

/** One list of the document: its key, the stream of its items, and how each item is presented. */
interface Section {
  key: 'tickets' | 'comments' | 'attachments';
  items: AsyncIterator<unknown>;
  present: (item: never) => unknown;
}

/** A section whose first answer arrived (a message, or the end). */
interface StartedSection extends Section {
  first: IteratorResult<unknown>;
}

/** Finishes every stream (cancelling those still open); never throws. */
async function closeAll(sections: readonly Section[]): Promise<void> {
  await Promise.all(
    sections.map((section) => Promise.resolve(section.items.return?.()).catch(() => undefined)),
  );
}

/**
 * Waits for every section's first answer. The first refusal (403, 503, …) is thrown after the other
 * streams are closed, so that it leaves as the error envelope.
 */
async function startAll(sections: readonly Section[]): Promise<StartedSection[]> {
  const firsts = await Promise.allSettled(sections.map((section) => section.items.next()));
  const failed = firsts.find((result) => result.status === 'rejected');
  if (failed) {
    await closeAll(sections);
    throw failed.reason;
  }
  return sections.map((section, index) => ({
    ...section,
    first: (firsts[index] as PromiseFulfilledResult<IteratorResult<unknown>>).value,
  }));
}

/**
 * Writes the document: the head, then each section's items as the client takes them. Returns
 * false when the client left (nothing more to do); throws when a stream fails mid-way.
 */
async function writeDocument(
  response: Response,
  head: Record<string, unknown>,
  sections: readonly StartedSection[],
): Promise<boolean> {
  let pending = `{"ok":true,"data":${JSON.stringify(head).slice(0, -1)}`;
  /** Writes what has gathered; waits while the client reads slower than the services answer. */
  const flush = async (): Promise<boolean> => {
    const accepted = response.write(pending);
    pending = '';
    if (!accepted) await drained(response);
    return !response.destroyed;
  };
  for (const section of sections) {
    pending += `,${JSON.stringify(section.key)}:[`;
    let next = section.first;
    let count = 0;
    while (!next.done) {
      pending += (count === 0 ? '' : ',') + JSON.stringify(section.present(next.value as never));
      count += 1;
      if (pending.length >= STREAM_FLUSH_CHARS && !(await flush())) return false;
      next = await section.items.next();
      if (response.destroyed) return false;
    }
    pending += ']';
  }
  response.end(`${pending}}}`);
  return true;
}

/** Streams the export of the signed-in user (see the file header). */
async function sendExport(request: Request, response: Response, deps: Parameters<Operation['handle']>[3]) {
  const principal = requirePrincipal(request);
  const { services } = deps;
  const lookup = requireService(services, 'lookup');
  const tickets = requireService(services, 'tickets');
  const comments = requireService(services, 'comments');
  const attachments = requireService(services, 'attachments');
  const exportedAt = new Date();
  const { users } = await lookup.GetUsers({ ids: [principal.user_id] }, callContext(request));
  const user = users.find((candidate) => candidate.id === principal.user_id);
  if (!user) throw AppError.unauthenticated('Not signed in');

  const streamContext: OutgoingContext = { ...callContext(request), deadlineMs: EXPORT_DEADLINE_MS };
  const ask = { user_id: user.id };
  const sections: Section[] = [
    {
      key: 'tickets',
      items: tickets.ExportUserTickets(ask, streamContext)[Symbol.asyncIterator](),
      present: presentTicket,
    },
    {
      key: 'comments',
      items: comments.ExportUserComments(ask, streamContext)[Symbol.asyncIterator](),
      present: presentComment,
    },
    {
      key: 'attachments',
      items: attachments.ExportUserAttachments(ask, streamContext)[Symbol.asyncIterator](),
      present: presentAttachment,
    },
  ];
  const started = await startAll(sections);

  response.statusCode = 200;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Disposition', contentDisposition(exportFilename(user.id, exportedAt)));
  response.setHeader('Cache-Control', 'no-store');
  try {
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    const head = { exported_at: exportedAt.toISOString(), user: presentUser(user) };
    if (!(await writeDocument(response, head, started))) {
      request.log.info('the client left during the data export; its streams are cancelled');
    }
  } catch (error) {
    if (!response.headersSent) {
      // Nothing went out yet: the failure still leaves as the error envelope, not as a download.
      for (const header of DOWNLOAD_HEADERS) response.removeHeader(header);
      throw error;
    }
    // Too late for an envelope: a broken download, never a document that looks complete.
    request.log.error({ err: error }, 'data export failed after the response started; cutting it short');
    response.destroy();
  } finally {
    await closeAll(started);
  }
}

/** The document's schema (the `data` of the envelope). */
const dataExportSchema = z
  .object({
    exported_at: z.string().meta({ description: 'When the export was made (ISO 8601).' }),
    user: userSchema,
    tickets: z.array(ticketSchema).meta({
      description: 'Every live ticket, of any project, that you created or are assigned to, by id.',
    }),
    comments: z.array(commentSchema).meta({
      description: 'Every comment you wrote, of any project, internal notes included, by id.',
    }),
    attachments: z.array(attachmentSchema).meta({
      description:
        'The metadata of every live attachment you uploaded, of any project, by id (not the bytes).',
    }),
  })
  .openapi('DataExport', { description: 'Everything the signed-in user authored or is assigned to.' });

export const DATA_EXPORT_OPERATIONS: Operation[] = [
  defineOperation({
    method: 'get',
    path: '/me/data-export',
    hosts: ['app'],
    access: { scope: null, role: 'viewer' },
    project: 'none',
    operationId: 'exportMyData',
    tag: 'Account',
    summary: 'Download everything you authored or are assigned to (3 per hour)',
    description:
      'One JSON document, streamed: the envelope, with your user, your tickets (created or assigned), ' +
      'your comments and the metadata of your attachments, each as the API presents it. Served as a ' +
      'download (`Content-Disposition: attachment`, `Cache-Control: no-store`). Limited to 3 per hour ' +
      '(429 with `Retry-After`). A failure after the download started breaks the connection instead of ' +
      'ending the document: an export that parses is complete.',
    success: jsonDownload({
      description: 'Your data, as a file.',
      data: dataExportSchema,
      example: {
        exported_at: '2026-11-25T23:30:00.000Z',
        user: EXAMPLES.user,
        tickets: [EXAMPLES.ticket],
        comments: [EXAMPLES.comment],
        attachments: [EXAMPLES.attachment],
      },
      filename: exportFilename(EXAMPLES.user.id, new Date('2026-11-25T23:30:00.000Z')),
    }),
    errors: [429],
    handle: (_input, request, response, deps) => sendExport(request, response, deps),
  }),
];

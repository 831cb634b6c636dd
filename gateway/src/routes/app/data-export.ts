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
import { AppError, type OutgoingContext } from '@tix/kit';
import { presentAttachment, presentComment, presentUser, type Principal, type ticket } from '@tix/protos';
import { attachmentSchema, commentSchema, ticketSchema, userSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { jsonDownload } from '../../resources/responses.js';
import { z } from '../../resources/zod-openapi.js';
import { defineOperation, type Answer, type HandlerInput, type Operation } from '../operation.js';

/**
 * Deadline of each export stream. A gRPC deadline covers the whole call, and the attachments
 * stream stays open while the tickets and comments are written: generous, for slow clients.
 */
export const EXPORT_DEADLINE_MS = 15 * 60_000;

/** The export's file name: `tix-export-<user id>-<yyyy-mm-dd>.json` (UTC date of the export). */
export function exportFilename(userId: number, exportedAt: Date): string {
  return `tix-export-${userId}-${exportedAt.toISOString().slice(0, 10)}.json`;
}

/** One list of the document: its key, the stream of its items, and each item's JSON text. */
interface Section {
  key: 'tickets' | 'comments' | 'attachments';
  items: AsyncIterator<unknown>;
  text: (item: never) => string;
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

/** The export of the signed-in user (see the file header). */
async function exportOf({
  principal,
  call,
  services,
}: HandlerInput & { principal: Principal }): Promise<Answer> {
  // Each client first: a service not deployed is 503 before anything is asked.
  const { lookup, tickets, comments, attachments } = services;
  const exportedAt = new Date();
  const { users } = await lookup.GetUsers({ ids: [principal.user_id] }, call);
  const user = users.find((candidate) => candidate.id === principal.user_id);
  if (!user) throw AppError.unauthenticated('Not signed in');

  const streamContext: OutgoingContext = { ...call, deadlineMs: EXPORT_DEADLINE_MS };
  const ask = { user_id: user.id };
  const sections: Section[] = [
    {
      key: 'tickets',
      items: tickets.ExportUserTickets(ask, streamContext)[Symbol.asyncIterator](),
      // The ticket service answers each ticket as the API's JSON already.
      text: (item: ticket.ApiTicket__Output) => item.json.toString('utf8'),
    },
    {
      key: 'comments',
      items: comments.ExportUserComments(ask, streamContext)[Symbol.asyncIterator](),
      text: (item: Parameters<typeof presentComment>[0]) => JSON.stringify(presentComment(item)),
    },
    {
      key: 'attachments',
      items: attachments.ExportUserAttachments(ask, streamContext)[Symbol.asyncIterator](),
      text: (item: Parameters<typeof presentAttachment>[0]) => JSON.stringify(presentAttachment(item)),
    },
  ];
  const started = await startAll(sections);
  return {
    sections: {
      head: { exported_at: exportedAt.toISOString(), user: presentUser(user) },
      sections: started,
      close: () => closeAll(started),
    },
    filename: exportFilename(user.id, exportedAt),
    // With Content-Disposition, what makes the answer a download (an error envelope carries neither).
    headers: { 'Cache-Control': 'no-store' },
  };
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
    handle: exportOf,
  }),
];

/** gRPC handlers of the CommentService: translate messages to use-case inputs and back, nothing else. */
import type { AsyncHandlers } from '@tix/kit';
import type { comment } from '@tix/protos';
import type { CommentDeps } from './comment-deps.js';
import { toCommentMessage } from './comment-row.js';
import { createComment } from './create-comment.js';
import { deleteComment } from './delete-comment.js';
import { getComment } from './get-comment.js';
import { listComments } from './list-comments.js';
import { updateComment } from './update-comment.js';

export type CommentHandlers = AsyncHandlers<comment.CommentServiceHandlers>;

/** An absent wrapper: unchanged; a wrapper without a value: null (cleared). */
function nullable<T>(wrapper: { value?: T } | null): T | null | undefined {
  if (wrapper === null) return undefined;
  return wrapper.value ?? null;
}

/** RPCs served by their own modules, registered beside these in server.ts (ExportUserComments: export/export-user-comments.ts). */
type ServedElsewhere = 'ExportUserComments';

/** Every RPC of the contract over the comment use cases. */
export function commentHandlers(deps: CommentDeps): Omit<CommentHandlers, ServedElsewhere> {
  return {
    async *ListComments(request, context) {
      const batches = await listComments(
        deps,
        {
          projectId: request.project_id,
          ticketId: request.ticket_id,
          includeInternal: request.include_internal,
        },
        context,
      );
      for await (const rows of batches) yield* rows.map(toCommentMessage);
    },

    async CreateComment(request, context) {
      const created = await createComment(
        deps,
        {
          projectId: request.project_id,
          ticketId: request.ticket_id,
          content: request.content,
          contentHtml: request.content_html,
          isInternal: request.is_internal,
          ...(request.customer_id === undefined ? {} : { customerId: request.customer_id }),
          ...(request.source_ref === undefined ? {} : { sourceRef: request.source_ref }),
        },
        context,
      );
      return toCommentMessage(created);
    },

    async GetComment(request, context) {
      return toCommentMessage(
        await getComment(deps, { projectId: request.project_id, id: request.id }, context),
      );
    },

    async UpdateComment(request, context) {
      const updated = await updateComment(
        deps,
        {
          projectId: request.project_id,
          id: request.id,
          content: request.content,
          contentHtml: nullable(request.content_html),
          isInternal: request.is_internal,
        },
        context,
      );
      return toCommentMessage(updated);
    },

    async DeleteComment(request, context) {
      return deleteComment(
        deps,
        {
          projectId: request.project_id,
          id: request.id,
          ...(request.expected_content_sha256 === undefined
            ? {}
            : { expectedContentSha256: request.expected_content_sha256 }),
        },
        context,
      );
    },
  };
}

/**
 * The comment routes (spec "Comments"), each a thin chain: scope -> project context -> validation
 * (comments.schemas.ts) -> one CommentService call -> the spec's JSON. Reads need comments:read,
 * writes comments:write. The rules (the ticket must be live in the project, sanitizing, who may edit
 * or delete, public stays public) live in the comment service; its errors pass through unchanged.
 */
import type { Router } from 'express';
import { presentComment, type comment } from '@tix/protos';
import { sendData, sendDataStream } from '../../http/envelope.js';
import { callContext, requireProject } from '../../http/request-context.js';
import { defineRoute } from '../../http/routing.js';
import { handleValidated } from '../../http/validate.js';
import { projectContext } from '../../middleware/project-context.js';
import { requireScope } from '../../middleware/require-scope.js';
import type { ProjectResolver } from '../../projects/project-resolver.js';
import { requireService, type ServiceClients } from '../../services.js';
import {
  commentIdParams,
  createCommentBody,
  listCommentsQuery,
  updateCommentBody,
  type UpdateCommentBody,
} from './comments.schemas.js';
import { ticketIdParams } from './tickets.schemas.js';

/** The UpdateComment request: absent fields stay absent; content_html null becomes an empty wrapper (clear). */
export function updateCommentRequest(
  projectId: number,
  id: number,
  body: UpdateCommentBody,
): comment.UpdateCommentRequest {
  return {
    project_id: projectId,
    id,
    ...(body.content === undefined ? {} : { content: body.content }),
    ...(body.content_html === undefined
      ? {}
      : { content_html: body.content_html === null ? {} : { value: body.content_html } }),
    ...(body.is_internal === undefined ? {} : { is_internal: body.is_internal }),
  };
}

/** Registers /tickets/{id}/comments and /comments/{id} on the API router. */
export function commentRoutes(
  router: Router,
  deps: { services: ServiceClients; projects: ProjectResolver },
): void {
  const comments = () => requireService(deps.services, 'comments');
  const inProject = projectContext({ resolver: deps.projects });
  const read = requireScope('comments:read');
  const write = requireScope('comments:write');

  defineRoute(router, '/tickets/:id/comments', {
    get: [
      read,
      inProject,
      ...handleValidated(
        { params: ticketIdParams, query: listCommentsQuery },
        async ({ params, query }, request, response) => {
          // Up to 1000 comments of up to 100,000 characters each: streamed, never held whole.
          const listed = comments().ListComments(
            {
              project_id: requireProject(request).id,
              ticket_id: params.id,
              include_internal: query.include_internal,
            },
            callContext(request),
          );
          await sendDataStream(response, 'comments', listed, {
            present: presentComment,
            after: (count) => ({ count, ticket_id: params.id }),
          });
        },
      ),
    ],
    post: [
      write,
      inProject,
      ...handleValidated(
        { params: ticketIdParams, body: createCommentBody },
        async ({ params, body }, request, response) => {
          const created = await comments().CreateComment(
            {
              project_id: requireProject(request).id,
              ticket_id: params.id,
              content: body.content,
              ...(body.content_html === undefined || body.content_html === null
                ? {}
                : { content_html: body.content_html }),
              ...(body.is_internal === undefined ? {} : { is_internal: body.is_internal }),
            },
            callContext(request),
          );
          sendData(response, { comment: presentComment(created) }, 201);
        },
      ),
    ],
  });

  defineRoute(router, '/comments/:id', {
    get: [
      read,
      inProject,
      ...handleValidated({ params: commentIdParams }, async ({ params }, request, response) => {
        const found = await comments().GetComment(
          { project_id: requireProject(request).id, id: params.id },
          callContext(request),
        );
        sendData(response, { comment: presentComment(found) });
      }),
    ],
    put: [
      write,
      inProject,
      ...handleValidated(
        { params: commentIdParams, body: updateCommentBody },
        async ({ params, body }, request, response) => {
          const updated = await comments().UpdateComment(
            updateCommentRequest(requireProject(request).id, params.id, body),
            callContext(request),
          );
          sendData(response, { comment: presentComment(updated) });
        },
      ),
    ],
    delete: [
      write,
      inProject,
      ...handleValidated({ params: commentIdParams }, async ({ params }, request, response) => {
        const { message } = await comments().DeleteComment(
          { project_id: requireProject(request).id, id: params.id },
          callContext(request),
        );
        sendData(response, { message });
      }),
    ],
  });
}

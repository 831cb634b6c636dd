/**
 * The comment operations (spec "Comments"): each validated by comments.schemas.ts, then one
 * CommentService call, then the spec's JSON. The rules (the ticket must be live in the project,
 * sanitizing, who may edit or delete, public stays public) live in the comment service; its errors
 * pass through unchanged.
 */
import { presentComment, type comment } from '@tix/protos';
import { givenFields } from '../../http/validate.js';
import { commentSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { confirmation, confirmed, count, json, list, tagged } from '../../resources/responses.js';
import { z } from '../../resources/zod-openapi.js';
import { dataStream } from '../../http/envelope.js';
import { operationGroup, type Operation } from '../operation.js';
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
    ...givenFields(body, 'content'),
    ...(body.content_html === undefined
      ? {}
      : { content_html: body.content_html === null ? {} : { value: body.content_html } }),
    ...givenFields(body, 'is_internal'),
  };
}

const commentOperation = operationGroup({ hosts: ['api', 'app'], project: 'required', tag: 'Comments' });

export const COMMENT_OPERATIONS: Operation[] = [
  commentOperation({
    method: 'get',
    path: '/tickets/:id/comments',
    access: { scope: 'comments:read', role: 'viewer' },
    request: { params: ticketIdParams, query: listCommentsQuery },
    operationId: 'listComments',
    summary: 'List the comments of a ticket',
    success: json(
      200,
      'The comments.',
      list('comments', commentSchema, {
        count,
        ticket_id: z.number().int().meta({ description: 'The ticket.' }),
      }),
      { comments: [EXAMPLES.comment], count: 1, ticket_id: 42 },
    ),
    errors: [400, 404],
    handle({ params, query, services, project, call }) {
      // Up to 1000 comments of up to 100,000 characters each: streamed, never held whole.
      const listed = services.comments.ListComments(
        {
          project_id: project.id,
          ticket_id: params.id,
          include_internal: query.include_internal,
        },
        call,
      );
      return {
        stream: dataStream('comments', listed, {
          present: presentComment,
          after: (total) => ({ count: total, ticket_id: params.id }),
        }),
      };
    },
  }),

  commentOperation({
    method: 'post',
    path: '/tickets/:id/comments',
    access: { scope: 'comments:write', role: 'agent' },
    request: { params: ticketIdParams, body: createCommentBody },
    bodyExample: { content: 'Restarted the printer; please try again.', is_internal: false },
    operationId: 'createComment',
    summary: 'Comment on a ticket',
    success: tagged(201, 'The created comment.', 'comment', commentSchema, EXAMPLES.comment),
    errors: [400, 404, 409, 422],
    async handle({ params, body, services, project, call }) {
      const created = await services.comments.CreateComment(
        {
          project_id: project.id,
          ticket_id: params.id,
          content: body.content,
          ...(body.content_html === undefined || body.content_html === null
            ? {}
            : { content_html: body.content_html }),
          ...givenFields(body, 'is_internal'),
        },
        call,
      );
      const comment = presentComment(created);
      return { data: { comment }, etag: true, status: 201, location: `/comments/${created.id}` };
    },
  }),

  commentOperation({
    method: 'get',
    path: '/comments/:id',
    access: { scope: 'comments:read', role: 'viewer' },
    request: { params: commentIdParams },
    operationId: 'getComment',
    summary: 'Get a comment',
    success: tagged(200, 'The comment.', 'comment', commentSchema, EXAMPLES.comment),
    errors: [400, 404],
    async handle({ params, services, project, call }) {
      const found = await services.comments.GetComment({ project_id: project.id, id: params.id }, call);
      const comment = presentComment(found);
      return { data: { comment }, etag: true };
    },
  }),

  commentOperation({
    method: 'put',
    path: '/comments/:id',
    access: { scope: 'comments:write', role: 'agent' },
    request: { params: commentIdParams, body: updateCommentBody },
    bodyExample: { content: 'Restarted the printer twice; please try again.' },
    operationId: 'updateComment',
    summary: 'Edit a comment',
    success: tagged(200, 'The edited comment.', 'comment', commentSchema, EXAMPLES.comment),
    errors: [400, 403, 404, 409, 422],
    async handle({ params, body, services, project, call }) {
      const updated = await services.comments.UpdateComment(
        updateCommentRequest(project.id, params.id, body),
        call,
      );
      const comment = presentComment(updated);
      return { data: { comment }, etag: true };
    },
  }),

  commentOperation({
    method: 'delete',
    path: '/comments/:id',
    access: { scope: 'comments:write', role: 'agent' },
    request: { params: commentIdParams },
    operationId: 'deleteComment',
    summary: 'Delete a comment',
    success: confirmation('Comment deleted'),
    errors: [400, 403, 404],
    handle({ params, services, project, call }) {
      return confirmed(services.comments.DeleteComment({ project_id: project.id, id: params.id }, call));
    },
  }),
];

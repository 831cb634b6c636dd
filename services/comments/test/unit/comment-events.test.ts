import { expect } from 'chai';
import { commentSchema, presentComment } from '@tix/protos';
import { commentCreated, commentDeleted, commentUpdated } from '../../src/comments/comment-events.js';
import { toCommentMessage, type CommentRow } from '../../src/comments/comment-row.js';

const ROW: CommentRow = {
  id: 5,
  projectId: 2,
  ticketId: 9,
  userId: 3,
  content: 'Hello',
  contentHtml: null,
  isInternal: true,
  authorType: 'staff',
  customerId: null,
  sourceRef: null,
  createdAt: new Date('2026-01-02T03:04:05.006Z'),
  updatedAt: new Date('2026-01-02T03:04:06.007Z'),
};

const JSON_OF_ROW = {
  id: 5,
  ticket_id: 9,
  user_id: 3,
  content: 'Hello',
  content_html: null,
  is_internal: true,
  author_type: 'staff',
  customer_id: null,
  created_at: '2026-01-02T03:04:05.006Z',
  updated_at: '2026-01-02T03:04:06.007Z',
};

describe('comments: message, public JSON and events', () => {
  it("the public JSON parses with the contract's comment schema in strict mode", () => {
    for (const row of [ROW, { ...ROW, contentHtml: '<p>Hello</p>', isInternal: false }]) {
      const json = commentCreated(row, { kind: 'user', user_id: 3, api_key_id: null }).data;
      expect(commentSchema.strict().safeParse(json).error?.issues ?? []).to.deep.equal([]);
    }
    expect(commentSchema.strict().safeParse({ ...JSON_OF_ROW, project_id: 2 }).success).to.equal(false);
  });

  it('a null content_html is an absent optional in the message and null in the JSON', () => {
    const message = toCommentMessage(ROW);
    expect(message).to.deep.equal({
      id: 5,
      ticket_id: 9,
      user_id: 3,
      content: 'Hello',
      is_internal: true,
      author_type: 'staff',
      created_at: '2026-01-02T03:04:05.006Z',
      updated_at: '2026-01-02T03:04:06.007Z',
    });
    expect(presentComment(message)).to.deep.equal(JSON_OF_ROW);
    const byCustomer = toCommentMessage({
      ...ROW,
      authorType: 'customer',
      customerId: 12,
      isInternal: false,
    });
    expect(presentComment(byCustomer)).to.include({ author_type: 'customer', customer_id: 12 });
    expect(presentComment(toCommentMessage({ ...ROW, contentHtml: '<p>x</p>' })).content_html).to.equal(
      '<p>x</p>',
    );
  });

  it('presentComment keeps only the spec fields (the oneof marker of the loader does not leak)', () => {
    const decoded = { ...toCommentMessage(ROW), _content_html: 'content_html' as const };
    expect(Object.keys(presentComment(decoded))).to.deep.equal(Object.keys(JSON_OF_ROW));
  });

  it('events carry the comment as the API shows it, the project, and the time of the change', () => {
    const deletedAt = new Date('2026-01-03T00:00:00.000Z');
    const actor = { kind: 'user', user_id: 3, api_key_id: null } as const;
    const created = commentCreated(ROW, actor);
    const updated = commentUpdated(ROW, { ...ROW, content: 'Hi', isInternal: false }, actor);
    const deleted = commentDeleted(ROW, deletedAt, actor);
    expect(created).to.deep.equal({
      id: created.id,
      type: 'comment.created',
      occurred_at: '2026-01-02T03:04:05.006Z',
      source: 'comments',
      project_id: 2,
      actor,
      changes: {},
      data: JSON_OF_ROW,
    });
    expect(updated).to.deep.include({
      type: 'comment.updated',
      occurred_at: '2026-01-02T03:04:06.007Z',
      actor,
      changes: { content: { from: 'Hi', to: 'Hello' }, is_internal: { from: false, to: true } },
      data: JSON_OF_ROW,
    });
    expect(deleted).to.deep.include({
      type: 'comment.deleted',
      occurred_at: '2026-01-03T00:00:00.000Z',
      data: JSON_OF_ROW,
    });
    expect(new Set([created.id, updated.id, deleted.id]).size).to.equal(3);
  });
});

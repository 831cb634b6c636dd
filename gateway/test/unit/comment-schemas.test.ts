import { expect } from 'chai';
import { parseBody, parseParams, parseQuery } from '../../src/http/validate.js';
import { presentComment } from '@tix/protos';
import { updateCommentRequest } from '../../src/routes/v1/comments.js';
import {
  commentIdParams,
  createCommentBody,
  listCommentsQuery,
  updateCommentBody,
} from '../../src/routes/v1/comments.schemas.js';
import { bodyErrors, thrownAppError as failure } from '../support/refusals.js';

describe('comment route schemas', () => {
  describe('path id', () => {
    it('accepts 1..2147483647 and refuses everything else with 400 Invalid comment id', () => {
      expect(parseParams(commentIdParams, { id: '2147483647' })).to.deep.equal({ id: 2147483647 });
      for (const raw of ['0', '01', '-1', '1.5', 'abc', '', '2147483648', '1e3']) {
        const error = failure(() => parseParams(commentIdParams, { id: raw }));
        expect([error.httpStatus, error.message], raw).to.deep.equal([400, 'Invalid comment id']);
      }
    });
  });

  describe('GET /tickets/{id}/comments query', () => {
    it('include_internal defaults to true; true/false/1/0 parse to booleans', () => {
      expect(parseQuery(listCommentsQuery, {})).to.deep.equal({ include_internal: true });
      for (const [raw, value] of [
        ['true', true],
        ['1', true],
        ['false', false],
        ['0', false],
      ] as const) {
        expect(parseQuery(listCommentsQuery, { include_internal: raw })).to.deep.equal({
          include_internal: value,
        });
      }
    });

    it('anything else is 400 on include_internal', () => {
      for (const raw of ['yes', 'TRUE', 'False', '', '2', ['true', 'false']]) {
        const error = failure(() => parseQuery(listCommentsQuery, { include_internal: raw }));
        expect(
          { status: error.httpStatus, message: error.message, errors: error.validationErrors },
          JSON.stringify(raw),
        ).to.deep.equal({
          status: 400,
          message: 'Invalid include_internal',
          errors: { include_internal: ['include_internal must be true or false (or 1 or 0)'] },
        });
      }
    });

    it('other query parameters are dropped', () => {
      expect(parseQuery(listCommentsQuery, { include_internal: '0', project: 'x', page: '2' })).to.deep.equal(
        {
          include_internal: false,
        },
      );
    });
  });

  describe('POST body', () => {
    it('content is required; content_html and is_internal are optional; unknown fields are dropped', () => {
      expect(parseBody(createCommentBody, { content: ' Hi\n', user_id: 99, id: 5 })).to.deep.equal({
        content: ' Hi\n',
      });
      expect(
        parseBody(createCommentBody, { content: 'Hi', content_html: null, is_internal: false }),
      ).to.deep.equal({ content: 'Hi', content_html: null, is_internal: false });
    });

    it('refuses missing, blank, non-string and over-long content; bad content_html and is_internal', () => {
      expect(bodyErrors(createCommentBody, undefined)).to.deep.equal({ content: ['Content is required'] });
      expect(bodyErrors(createCommentBody, { content: '  \n' })).to.deep.equal({
        content: ['Content cannot be empty'],
      });
      expect(bodyErrors(createCommentBody, { content: 5 })).to.deep.equal({
        content: ['Content must be a string'],
      });
      expect(
        bodyErrors(createCommentBody, {
          content: 'a'.repeat(50_001),
          content_html: 'b'.repeat(50_001),
          is_internal: 'yes',
        }),
      ).to.deep.equal({
        content: ['Content must be at most 50000 characters'],
        content_html: ['Content HTML must be at most 50000 characters'],
        is_internal: ['is_internal must be true or false'],
      });
      expect(bodyErrors(createCommentBody, { content: 'x', content_html: 3 })).to.deep.equal({
        content_html: ['Content HTML must be a string or null'],
      });
      expect(bodyErrors(createCommentBody, [])).to.deep.equal({
        body: ['Request body must be a JSON object'],
      });
    });

    it('counts code points: 50000 emoji fit', () => {
      expect(parseBody(createCommentBody, { content: '😀'.repeat(50_000) }).content).to.have.length(100_000);
    });
  });

  describe('PUT body', () => {
    it('every field is optional, but one must be given; null content_html counts (it clears)', () => {
      expect(parseBody(updateCommentBody, { content_html: null })).to.deep.equal({ content_html: null });
      expect(parseBody(updateCommentBody, { is_internal: false })).to.deep.equal({ is_internal: false });
      expect(bodyErrors(updateCommentBody, {})).to.deep.equal({
        body: ['Give at least one field to change: content, content_html or is_internal'],
      });
      expect(bodyErrors(updateCommentBody, { content: '' })).to.deep.equal({
        content: ['Content cannot be empty'],
      });
    });
  });

  describe('mapping', () => {
    it('updateCommentRequest: absent stays absent, null clears (empty wrapper), a string sets', () => {
      expect(updateCommentRequest(1, 2, { is_internal: false })).to.deep.equal({
        project_id: 1,
        id: 2,
        is_internal: false,
      });
      expect(updateCommentRequest(1, 2, { content: 'x', content_html: null })).to.deep.equal({
        project_id: 1,
        id: 2,
        content: 'x',
        content_html: {},
      });
      expect(updateCommentRequest(1, 2, { content_html: '<p>x</p>' })).to.deep.equal({
        project_id: 1,
        id: 2,
        content_html: { value: '<p>x</p>' },
      });
    });

    it('presentComment: the spec fields, an absent content_html and customer_id as null', () => {
      const message = {
        id: 1,
        ticket_id: 2,
        user_id: 3,
        content: 'c',
        is_internal: true,
        author_type: 'staff',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
        _content_html: 'content_html' as const,
      };
      expect(presentComment(message)).to.deep.equal({
        id: 1,
        ticket_id: 2,
        user_id: 3,
        content: 'c',
        content_html: null,
        is_internal: true,
        author_type: 'staff',
        customer_id: null,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      });
    });

    it('presentComment: a customer comment names its customer', () => {
      const json = presentComment({
        id: 1,
        ticket_id: 2,
        user_id: 3,
        content: 'c',
        is_internal: false,
        author_type: 'customer',
        customer_id: 44,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      });
      expect(json).to.include({ author_type: 'customer', customer_id: 44 });
    });
  });
});
